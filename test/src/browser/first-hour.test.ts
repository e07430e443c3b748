/**
 * The first hour in the console, as issue 22 found it: a password's strength said while typing and
 * refused by the API with its reason (with no generic banner over the field's message), breadcrumbs
 * without a trailing "/", "Last used" with its time, the URL hint that does not say "https only", and
 * a team's sole owner who is offered neither a role change nor "Leave team", the getting-started
 * checklist that ticks itself (the client step when the first MCP call arrives), and item links that
 * carry their workspace.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, postAsPage } from "../helpers/browser";
import { startTestServer, type TestServer } from "../helpers/server";

let server: TestServer;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  server = await startTestServer();
  browser = await launchChromium();
  page = await (await browser.newContext()).newPage();
  page.on("pageerror", (error) => pageErrors.push(error.message));
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const nav = (name: string) =>
  page.getByRole("navigation", { name: "Console" }).getByRole("link", { name, exact: true });

describe("the first hour in the console", () => {
  it("judges the password while typing, and shows the API's reason beside the field only", async () => {
    await page.goto(`${server.url}/signup/`);
    await page.getByLabel("Name").fill("Nora Newcomer");
    await page.getByLabel("Email").fill("nora@example.com");
    await page.getByLabel("Password").fill("password123");
    const verdict = page.getByTestId("password-verdict");
    await expect
      .poll(() => verdict.textContent())
      .toContain("Password is too easy to guess: it is a commonly used password");

    // The console's verdict is advice; the API refuses on its own, with the same reason.
    await page.getByRole("button", { name: "Sign up" }).click();
    const fieldError = page.locator(".field-error, [id$='-error']").filter({ hasText: "too easy to guess" });
    await expect.poll(() => fieldError.count()).toBeGreaterThan(0);
    expect(await page.getByText("Check the highlighted fields").count()).toBe(0);
    expect(await page.getByRole("alert").filter({ hasText: "Request ID" }).count()).toBe(0);

    await page.getByLabel("Password").fill("correct horse battery");
    await expect.poll(() => verdict.textContent()).toBe("Strong enough.");
    await page.getByRole("button", { name: "Sign up" }).click();
    await page.waitForURL(`${server.url}/tokens/`);
  });

  it("shows a getting-started checklist on the first page", async () => {
    const list = page.getByTestId("getting-started");
    await list.waitFor();
    expect(await list.textContent()).toContain("0 of 4");
    for (const step of ["token", "client", "skill", "server"])
      expect(await page.getByTestId(`step-${step}`).getAttribute("data-done")).toBe("false");
  });

  it("shows when a token was last used with its time", async () => {
    await page.getByLabel("Token name").fill("laptop");
    await page.getByRole("button", { name: "Create token" }).click();
    const secret = ((await page.getByTestId("token-secret").textContent()) ?? "").trim();
    expect((await fetch(`${server.url}/v1/me`, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(200);
    await page.reload();
    const used = page.getByTestId("token-row").filter({ hasText: "laptop" }).locator("time");
    await expect.poll(() => used.count()).toBeGreaterThan(0);
    // A date and a time such as "1 Dec 2026, 21:04", not the date alone.
    await expect.poll(async () => (await used.last().textContent()) ?? "").toMatch(/\d{1,2}:\d{2}/);
  });

  it("ticks the token step, then the client step by itself when the first MCP call arrives", async () => {
    const step = (key: string) => page.getByTestId(`step-${key}`).getAttribute("data-done");
    await expect.poll(() => step("token")).toBe("true");
    expect(await step("client")).toBe("false");
    const secret = String((await postAsPage(page, "/v1/tokens", { name: "checklist", scopes: ["mcp"] })).body.secret);
    const client = new Client({ name: "first-hour", version: "1" }, { versionNegotiation: { mode: "auto" } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${secret}` } },
      }),
    );
    try {
      await client.callTool({ name: "skills", arguments: { action: "list" } });
    } finally {
      await client.close();
    }
    // No reload: the checklist looks again while it waits for a client.
    await expect.poll(() => step("client"), { timeout: 20_000 }).toBe("true");
    expect(await page.getByTestId("getting-started").textContent()).toContain("2 of 4");
  });

  it("ends breadcrumbs without a stray slash and says https only for server URLs where loopback is not allowed", async () => {
    await page.goto(`${server.url}/skills/new/`);
    const crumb = page.locator(".breadcrumb").first();
    await crumb.waitFor();
    expect((await crumb.textContent())?.trim()).toBe("Skills");

    const imported = (
      await postAsPage(page, "/v1/workspaces/me/servers/import", {
        text: JSON.stringify({ mcpServers: { docs: { url: "https://docs.example.com/mcp" } } }),
      })
    ).status;
    expect(imported).toBe(200);
    await page.goto(`${server.url}/servers/edit/?slug=docs`);
    // This instance refuses servers on loopback: the hint says https only, and how to allow this machine.
    const hint = page.getByText("Changing it drops the connection").first();
    await hint.waitFor();
    expect(await hint.textContent()).toContain("A public https URL only");
    expect(await hint.textContent()).toContain("start Loadout with LOADOUT_ALLOW_LOOPBACK_UPSTREAMS=1");
    expect((await page.locator(".breadcrumb").first().textContent())?.trim()).toBe("Servers");
  });

  it("asks before unsaved edits in the skill editor are lost, and stays when told to", async () => {
    await page.goto(`${server.url}/skills/new/?kind=skill`);
    await page.getByLabel("Description").fill("Draft that is not saved yet; use when testing.");
    const questions: string[] = [];
    let accept = false;
    const onDialog = (dialog: import("playwright-core").Dialog) => {
      questions.push(dialog.message());
      void (accept ? dialog.accept() : dialog.dismiss());
    };
    page.on("dialog", onDialog);
    try {
      await nav("Servers").click();
      await expect.poll(() => questions.length).toBe(1);
      expect(questions[0]).toBe("You have unsaved changes. Leave this page and lose them?");
      expect(new URL(page.url()).pathname).toBe("/skills/new/");
      expect(await page.getByLabel("Description").inputValue()).toContain("Draft that is not saved");
      accept = true;
      await nav("Servers").click();
      await page.waitForURL(`${server.url}/servers/`);
      expect(questions).toHaveLength(2);
    } finally {
      page.off("dialog", onDialog);
    }
  });

  it("takes files dropped on the skill editor's file input and on the archive import", async () => {
    const drop = (testId: string, name: string) =>
      page.evaluate(
        ({ testId, name }) => {
          const files = new DataTransfer();
          files.items.add(new File(["# Checklist\n"], name, { type: "text/markdown" }));
          const zone = document.querySelector(`[data-testid="${testId}"]`);
          zone?.dispatchEvent(new DragEvent("dragover", { dataTransfer: files, bubbles: true, cancelable: true }));
          zone?.dispatchEvent(new DragEvent("drop", { dataTransfer: files, bubbles: true, cancelable: true }));
        },
        { testId, name },
      );
    await page.goto(`${server.url}/skills/new/?kind=skill`);
    await page.getByTestId("drop-files").waitFor();
    await drop("drop-files", "checklist.md");
    await expect.poll(() => page.locator("table").filter({ hasText: "checklist.md" }).count()).toBeGreaterThan(0);

    page.once("dialog", (dialog) => void dialog.accept());
    await page.goto(`${server.url}/skills/import/?kind=skill`);
    await page.getByTestId("drop-archive").waitFor();
    await drop("drop-archive", "review.skill");
    await expect.poll(() => page.getByTestId("drop-archive").textContent()).toContain("Chosen: review.skill");
  });

  it("links a refused duplicate name to the existing item", async () => {
    const made = (
      await postAsPage(page, "/v1/workspaces/me/skills", {
        name: "meeting-notes",
        description: "Write up a meeting.",
        instructions: "# Notes\n",
      })
    ).status;
    expect(made).toBe(201);
    await page.goto(`${server.url}/skills/new/?kind=skill`);
    await page.getByLabel("Description").fill("Another take on meeting notes; use when writing up.");
    await page.getByLabel("Name", { exact: true }).fill("meeting-notes");
    await page.getByLabel("Instructions", { exact: true }).fill("# Notes again\n");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    const taken = page.getByTestId("name-taken");
    await taken.waitFor();
    expect(await taken.getByRole("link", { name: "meeting-notes" }).getAttribute("href")).toBe(
      "/skills/edit/?name=meeting-notes&ws=me",
    );
    // The refused draft is unsaved work: following the link asks first.
    page.once("dialog", (dialog) => void dialog.accept());
    await taken.getByRole("link", { name: "meeting-notes" }).click();
    await page.waitForURL(`${server.url}/skills/edit/?name=meeting-notes&ws=me`);
    await page.getByRole("heading", { name: "meeting-notes", level: 1 }).waitFor();
  });

  it("offers the sole owner of a team neither a change of their own role nor Leave team", async () => {
    await nav("Team").click();
    await page.waitForURL(`${server.url}/team/`);
    await page.getByLabel("Team name").fill("Nora Labs");
    await page.getByRole("button", { name: "Create team" }).click();
    await page.getByRole("heading", { name: "Nora Labs", level: 1 }).waitFor();
    const me = page.getByTestId("member-nora@example.com");
    await me.waitFor();
    expect(await me.locator("select").count()).toBe(0);
    expect(await me.textContent()).toContain("Owner");
    expect(await page.getByRole("button", { name: "Leave team" }).count()).toBe(0);
  });

  it("puts the workspace in item links, opens a shared link in its workspace, and goes to the list on a switch", async () => {
    const created = (
      await postAsPage(page, "/v1/workspaces/nora-labs/skills", {
        name: "team-notes",
        description: "Notes the team shares; use when writing up a meeting.",
        instructions: "# Notes\n",
      })
    ).status;
    expect(created).toBe(201);
    await page.getByLabel("Workspace", { exact: true }).selectOption("nora-labs");
    await nav("Skills").click();
    const link = page.getByRole("link", { name: "team-notes", exact: true });
    await link.waitFor();
    expect(await link.getAttribute("href")).toBe("/skills/edit/?name=team-notes&ws=nora-labs");

    // Opened fresh in the personal workspace, the shared link still opens the team's item.
    await page.getByLabel("Workspace", { exact: true }).selectOption("me");
    await page.goto(`${server.url}/skills/edit/?name=team-notes&ws=nora-labs`);
    await page.getByRole("heading", { name: "team-notes", level: 1 }).waitFor();
    expect(await page.getByLabel("Workspace", { exact: true }).inputValue()).toBe("nora-labs");

    // Switching workspace on an item page goes to that workspace's list, not to "Not found".
    await page.getByLabel("Workspace", { exact: true }).selectOption("me");
    await page.waitForURL(`${server.url}/skills/`);
    expect(await page.getByText("not found", { exact: false }).count()).toBe(0);
  });

  it("names people and sessions in Activity instead of their ids, in a chart that fills its card", async () => {
    await nav("Activity").click();
    await page.waitForURL(`${server.url}/activity/`);
    const rows = page.getByTestId("activity-row");
    const created = rows.filter({ hasText: "user.created" });
    await created.waitFor();
    expect(await created.textContent()).toContain("Nora Newcomer");
    expect(await page.locator(".event-table").textContent()).not.toMatch(/\b(?:usr|ses|prj)_[0-9a-z]{10,}/);

    const chart = page.getByTestId("usage-chart");
    await chart.waitFor();
    const [svg, card] = await Promise.all([
      chart.boundingBox(),
      page.locator(".card").filter({ has: chart }).first().boundingBox(),
    ]);
    // The card's padding is 20 px a side: the chart takes the rest of its width.
    expect(svg?.width ?? 0).toBeGreaterThanOrEqual((card?.width ?? 0) - 42);
    const labels = chart.locator("text");
    const last = await labels.last().boundingBox();
    expect((last?.x ?? 0) + (last?.width ?? 0)).toBeLessThanOrEqual((svg?.x ?? 0) + (svg?.width ?? 0));
    expect(pageErrors).toEqual([]);
  });
});
