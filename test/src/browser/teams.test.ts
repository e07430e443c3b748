/**
 * Teams in the console, with two people in two browser contexts: Ada creates a team and invites
 * Bob; Bob opens the link, signs up and accepts; the team's skill reaches Bob's MCP URL (the SDK
 * client); Ada removes Bob on the Team page, and Bob's next call is refused. Ada's Activity page
 * shows Bob's call and the chart.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, signUpInBrowser } from "../helpers/browser";
import { startTestServer, type TestServer } from "../helpers/server";

let server: TestServer;
let browser: Browser;
let adaContext: BrowserContext;
let bobContext: BrowserContext;
let ada: Page;
let bob: Page;
const pageErrors: string[] = [];
let inviteUrl = "";
let bobToken = "";

const TEAM = "acme-platform";

// The REST API as a signed-in context sees it: its cookies, and the CSRF header on writes.
async function rest(context: BrowserContext, path: string, init: { method?: string; body?: unknown } = {}) {
  const cookies = await context.cookies(server.url);
  const cookie = cookies.map((c) => `${c.name}=${c.value}`).join("; ");
  const csrf = cookies.find((c) => c.name === "lo_csrf")?.value ?? "";
  const res = await fetch(`${server.url}${path}`, {
    method: init.method ?? "GET",
    headers: {
      cookie,
      "x-csrf-token": csrf,
      accept: "application/json",
      ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  return { status: res.status, body: res.status === 204 ? null : await res.json() };
}

async function mcp(secret: string) {
  const client = new Client({ name: "bob-laptop", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${secret}` } },
    }),
  );
  return client;
}

const textOf = (result: { content?: unknown }) =>
  ((result.content ?? []) as { text?: string }[]).map((c) => c.text ?? "").join("\n");

const nav = (page: Page, name: string) =>
  page.getByRole("navigation", { name: "Console" }).getByRole("link", { name, exact: true });

beforeAll(async () => {
  server = await startTestServer();
  browser = await launchChromium();
  adaContext = await browser.newContext();
  bobContext = await browser.newContext();
  ada = await adaContext.newPage();
  bob = await bobContext.newPage();
  for (const page of [ada, bob]) page.on("pageerror", (error) => pageErrors.push(error.message));
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("teams in the console", () => {
  it("creates a team and an invite link to copy", async () => {
    await signUpInBrowser(ada, server.url, "ada@teams.example.com");
    await nav(ada, "Team").click();
    await ada.waitForURL(`${server.url}/team/`);
    await ada.getByLabel("Team name").fill("Acme Platform");
    expect(await ada.getByLabel("Team slug").inputValue()).toBe(TEAM);
    await ada.getByRole("button", { name: "Create team" }).click();
    await ada.getByRole("heading", { name: "Acme Platform", level: 1 }).waitFor();
    expect(await ada.getByLabel("Workspace", { exact: true }).inputValue()).toBe(TEAM);
    // The sole owner is not offered a change of their own role: a team must keep an owner.
    expect(await ada.getByTestId("member-ada@teams.example.com").textContent()).toContain("Owner");
    expect(await ada.getByLabel("Role of ada@teams.example.com").count()).toBe(0);

    await ada.getByLabel("Email").fill("bob@teams.example.com");
    await ada.getByRole("button", { name: "Create invite link" }).click();
    inviteUrl = await ada.getByTestId("invite-link").inputValue();
    expect(inviteUrl).toMatch(new RegExp(`^${server.url}/invite/#token=loi_`));
    await ada.getByRole("cell", { name: "pending" }).waitFor();

    const skill = await rest(adaContext, `/v1/workspaces/${TEAM}/skills`, {
      method: "POST",
      body: { name: "release-checklist", description: "The team's release checklist.", instructions: "# Ship\n" },
    });
    expect(skill.status).toBe(201);
  });

  it("lets the second user open the link, sign up, accept, and see the team's skill over MCP", async () => {
    await bob.goto(inviteUrl);
    // Before sign-in the page says which team and which address the invite is for, and nothing more.
    await bob.getByRole("heading", { name: "Join Acme Platform", level: 1 }).waitFor();
    expect(await bob.getByTestId("invite-email").textContent()).toBe("bob@teams.example.com");
    const card = (await bob.locator(".auth-card").textContent()) ?? "";
    expect(card).not.toContain("ada@teams.example.com");
    expect(card).not.toContain(TEAM);
    expect(await bob.getByRole("button", { name: "Accept and join" }).count()).toBe(0);
    await bob.getByRole("link", { name: "Create an account" }).click();
    await bob.waitForURL(/\/signup\//);
    await bob.getByLabel("Name").fill("Bob Builder");
    await bob.getByLabel("Email").fill("bob@teams.example.com");
    await bob.getByLabel("Password").fill("correct horse battery");
    await bob.getByRole("button", { name: "Sign up" }).click();
    await bob.waitForURL(`${server.url}/invite/`);
    await bob.getByRole("heading", { name: "Join Acme Platform" }).waitFor();
    await bob.getByRole("button", { name: "Accept and join" }).click();
    await bob.waitForURL(`${server.url}/team/`);
    await bob.getByTestId("member-bob@teams.example.com").getByText("Member").waitFor();
    expect(await bob.getByLabel("Workspace", { exact: true }).inputValue()).toBe(TEAM);
    // A member does not manage invites, and works on the team's skills in the team's workspace.
    expect(await bob.getByRole("heading", { name: "Invites" }).count()).toBe(0);
    await nav(bob, "Skills").click();
    await bob.waitForURL(`${server.url}/skills/`);
    await bob.getByRole("link", { name: "release-checklist" }).first().waitFor();
    await bob.getByLabel("Workspace", { exact: true }).selectOption("me");
    await bob.getByText("No skills yet").waitFor();
    // A link naming the team's workspace opens in it.
    await bob.goto(`${server.url}/skills/?ws=${TEAM}`);
    await bob.getByRole("link", { name: "release-checklist" }).first().waitFor();
    expect(await bob.getByLabel("Workspace", { exact: true }).inputValue()).toBe(TEAM);

    const token = await rest(bobContext, "/v1/tokens", { method: "POST", body: { name: "laptop", scopes: ["mcp"] } });
    expect(token.status).toBe(201);
    bobToken = token.body.secret;
    const client = await mcp(bobToken);
    try {
      const list = await client.callTool({ name: "skills", arguments: { action: "list" } });
      expect(textOf(list)).toContain(`${TEAM}/release-checklist [team ${TEAM}]`);
      const got = await client.callTool({
        name: "skills",
        arguments: { action: "get", name: `${TEAM}/release-checklist` },
      });
      expect(textOf(got)).toContain("The team's release checklist.");
    } finally {
      await client.close();
    }
  });

  it("tells a signed-out visitor of a used link only that it cannot be used", async () => {
    const visitor = await (await browser.newContext()).newPage();
    try {
      await visitor.goto(inviteUrl);
      const alert = visitor.getByRole("alert").filter({ hasText: "This invite link cannot be used" });
      await alert.waitFor();
      const card = (await visitor.locator(".auth-card").textContent()) ?? "";
      for (const secret of ["Acme Platform", TEAM, "bob@teams.example.com", "ada@teams.example.com"])
        expect(card).not.toContain(secret);
      // A link that was never issued reads the same.
      await visitor.goto("about:blank");
      await visitor.goto(`${server.url}/invite/#token=loi_${"x".repeat(43)}`);
      await alert.waitFor();
    } finally {
      await visitor.context().close();
    }
  });

  it("shows the member's call on the team's Activity page", async () => {
    await nav(ada, "Activity").click();
    await ada.waitForURL(`${server.url}/activity/`);
    // The page reads the events and the usage in two requests; a batch of call records written
    // between them shows in one and not yet in the other, so both are polled until both show it.
    const usageChart = ada.getByTestId("usage-chart");
    await expect
      .poll(
        async () => {
          await ada.reload();
          await ada.getByRole("heading", { name: "Events" }).waitFor();
          await usageChart.or(ada.getByText("No MCP calls in the last 30 days.")).waitFor();
          const rows = await ada
            .getByTestId("activity-row")
            .filter({ hasText: "bob@teams.example.com" })
            .filter({ hasText: "tools/call" })
            .count();
          return { rows: rows > 0, chart: await usageChart.isVisible() };
        },
        { timeout: 10_000 },
      )
      .toEqual({ rows: true, chart: true });

    // A change links to the version it made, in the skill's history.
    const current = await rest(adaContext, `/v1/workspaces/${TEAM}/skills/release-checklist`);
    const edited = await rest(adaContext, `/v1/workspaces/${TEAM}/skills/release-checklist`, {
      method: "PATCH",
      body: { revision: current.body.revision, description: "The team's release checklist, version two." },
    });
    expect(edited.status).toBe(200);
    await ada.reload();
    await ada.getByRole("link", { name: "release-checklist v1" }).click();
    await ada.waitForURL(/\/skills\/history\/\?name=release-checklist&version=1&ws=[a-z-]+$/);
    await ada.getByText("Version 1 compared with the current version (v2)").waitFor();
    await nav(ada, "Activity").click();
    await ada.getByRole("heading", { name: "Events" }).waitFor();
    await ada.getByLabel("Kind").selectOption("member");
    await ada.getByRole("button", { name: "Apply filters" }).click();
    await ada.getByTestId("activity-row").filter({ hasText: "member.joined" }).waitFor();
    expect(await ada.getByTestId("activity-row").filter({ hasText: "tools/call" }).count()).toBe(0);
  });

  it("removes the member, whose next MCP call is refused", async () => {
    const client = await mcp(bobToken);
    try {
      expect(textOf(await client.callTool({ name: "skills", arguments: { action: "list" } }))).toContain(TEAM);
      await nav(ada, "Team").click();
      const row = ada.getByTestId("member-bob@teams.example.com");
      await row.getByRole("button", { name: "Remove" }).click();
      await row.getByRole("button", { name: "Yes, remove" }).click();
      await expect.poll(() => ada.getByTestId("member-bob@teams.example.com").count()).toBe(0);

      const refused = await client.callTool({
        name: "skills",
        arguments: { action: "get", name: `${TEAM}/release-checklist` },
      });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toContain(`no team "${TEAM}"`);
      expect(textOf(await client.callTool({ name: "skills", arguments: { action: "list" } }))).not.toContain(TEAM);
    } finally {
      await client.close();
    }
    // Bob's console falls back to his personal workspace.
    await bob.goto(`${server.url}/team/`);
    await bob.getByRole("heading", { name: "Teams", level: 1 }).waitFor();
    expect(pageErrors).toEqual([]);
  });
});
