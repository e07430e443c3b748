/**
 * Loadout's MCP Apps views in headless Chromium, under a host built on ext-apps' own AppBridge
 * (see host.ts). Everything the views get is real: the documents are what a real Loadout serves on
 * `resources/read` to an SDK client that negotiated `io.modelcontextprotocol/ui`, the results are
 * that client's real `skills` and `skill_edit` calls, and a view's `tools/call` is forwarded to the
 * same client. Proven: the handshake and host context, rendering of list, get and edit results,
 * search and keyboard use, file viewing and paging up to the view's bound, cancellation, theme
 * changes, teardown, a skill's markup shown as text with nothing executed, no request beyond the
 * host page, the bundle and the view itself, and the fallback text under a host without the extension.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/server";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Account, signUpAccount } from "../helpers/account";
import { launchChromium } from "../helpers/browser";
import { startTestServer, type TestServer } from "../helpers/server";
import { BRIDGE_PATH, bundleAppBridge, HOST_PATH, HostPage, type HostServer, startHostServer } from "./host";

const SKILLS_VIEW = "ui://loadout/skills.html";
const EDIT_VIEW = "ui://loadout/skill-edit.html";

const REVIEW_BODY = [
  "# Review",
  "",
  "Read the **diff** first, then run `npm test`.",
  "",
  "## Steps",
  "",
  "1. Check the tests",
  "2. Check the docs, see [the guide](https://example.com/guide)",
  "",
  "```sh",
  "npm run lint",
  "```",
  "",
].join("\n");
const PAYLOAD = "window.top.__pwned = 1";
const INJECTED_BODY = [
  "# Trap",
  "",
  `<img src=x onerror="${PAYLOAD}">`,
  "",
  `<script>${PAYLOAD}</script>`,
  "",
  "[click me](javascript:alert(1))",
  "",
].join("\n");
/** More than the view renders (200,000 characters) in 20,000-character chunks. */
const BIG = Array.from({ length: 2_200 }, (_, i) => `Line ${String(i).padStart(5, "0")} of the big reference file.`)
  .join("\n")
  .padEnd(210_000, ".");

let server: TestServer;
let account: Account;
let client: Client;
let host: HostServer;
let browser: Browser;
let page: Page;
let app: HostPage;
let skillsTool: Record<string, unknown>;
/** Every request the page made, and every CSP complaint on its console, in this test. */
let requests: string[];
let refusals: string[];

type ToolResult = Awaited<ReturnType<Client["callTool"]>>;
const call = (name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args }) as Promise<ToolResult>;

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchChromium()]);
  account = await signUpAccount(server.url, "apps-views@example.com");
  const skills = [
    {
      name: "review",
      description: "How we review code.",
      instructions: REVIEW_BODY,
      files: [
        { path: "references/checklist.md", content: "- tests\n- docs\n" },
        { path: "references/big.md", content: BIG },
      ],
    },
    { name: "deploy-notes", description: "How we ship releases.", instructions: "Ship on Tuesdays.\n" },
    { name: "trap", description: "A skill whose body is markup.", instructions: INJECTED_BODY },
  ];
  for (const body of skills) {
    const created = await account.rest("/v1/workspaces/me/skills", { method: "POST", body });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  }
  const secret = (await account.token(["mcp"])).secret;
  client = new Client(
    { name: "apps-host-test", version: "1.0.0" },
    { capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [RESOURCE_MIME_TYPE] } } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${secret}` } },
    }),
  );
  const views = new Map<string, string>();
  for (const uri of [SKILLS_VIEW, EDIT_VIEW]) {
    const [content] = (await client.readResource({ uri })).contents as { mimeType?: string; text?: string }[];
    expect(content?.mimeType).toBe(RESOURCE_MIME_TYPE);
    views.set(uri, content?.text ?? "");
  }
  const tools = (await client.listTools()).tools;
  const found = tools.find((t) => t.name === "skills");
  expect((found?._meta as { ui?: { resourceUri?: string } } | undefined)?.ui?.resourceUri).toBe(SKILLS_VIEW);
  skillsTool = found as unknown as Record<string, unknown>;
  host = await startHostServer(await bundleAppBridge(), views);
}, 120_000);

afterAll(async () => {
  await Promise.all([client?.close(), browser?.close(), host?.close()]);
  await server?.close();
});

beforeEach(async () => {
  page = await browser.newPage();
  requests = [];
  refusals = [];
  page.on("request", (request) => requests.push(request.url()));
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) refusals.push(message.text());
  });
  await page.exposeFunction("forwardToolCall", (params: { name: string; arguments?: Record<string, unknown> }) =>
    client.callTool(params),
  );
  app = new HostPage(page, host);
});

afterEach(async () => {
  await page.close();
});

/** What the page may load: the host page, the bridge bundle and the one view document. */
function expectOnlyHostRequests(view: string) {
  expect([...new Set(requests)].sort()).toEqual(
    [`${host.url}${HOST_PATH}`, `${host.url}${BRIDGE_PATH}`, `${host.url}${host.viewPath(view)}`].sort(),
  );
  expect(refusals).toEqual([]);
}

async function loadAndInitialize(view: string, options: Parameters<HostPage["load"]>[1] = {}) {
  await app.load(view, {
    serverTools: true,
    hostContext: { theme: "light", toolInfo: { tool: skillsTool }, ...options.hostContext },
    ...options,
  });
  await expect.poll(async () => (await app.events()).initialized).toBe(1);
}

describe("the skills view under an AppBridge host", () => {
  it("completes the handshake and applies the host context it was given", async () => {
    await loadAndInitialize(SKILLS_VIEW, {
      hostContext: {
        theme: "dark",
        styles: { variables: { "--color-background-primary": "rgb(1, 2, 3)" } },
        containerDimensions: { maxHeight: 5000 },
        locale: "en-GB",
      },
    });
    expect(await app.appInfo()).toEqual({ name: "loadout-skills-view", version: "1.0.0" });
    const root = app.view.locator("html");
    await expect.poll(() => root.getAttribute("data-theme")).toBe("dark");
    await expect.poll(() => root.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe("rgb(1, 2, 3)");
    // Before any result: the fallback text.
    await expect.poll(() => app.view.getByRole("status").textContent()).toMatch(/once the host sends one/);
    await expect.poll(async () => (await app.events()).sizes.at(-1)?.height ?? 0).toBeGreaterThan(0);
    expect(await app.teardown()).toEqual({});
    expectOnlyHostRequests(SKILLS_VIEW);
  });

  it("browses the real list, filters it, opens an item by keyboard, views a file, and loads nothing", async () => {
    await loadAndInitialize(SKILLS_VIEW);
    await app.toolInputPartial({ action: "li" });
    await app.toolInput({ action: "list" });
    await expect.poll(() => app.view.getByRole("status").textContent()).toMatch(/Loading your skills/);
    const list = await call("skills", { action: "list" });
    await app.toolResult(list);

    const items = app.view.getByRole("list", { name: "Skills and personas" }).getByRole("listitem");
    await expect.poll(() => items.count()).toBe(3);
    const review = app.view.getByRole("button", { name: /^review/ });
    await expect.poll(() => review.textContent()).toMatch(/How we review code\..*/);
    await expect.poll(() => review.textContent()).toMatch(/personal/);
    const tokens = (list.structuredContent as { items: { name: string; tokens: number }[] }).items.find(
      (i) => i.name === "review",
    )?.tokens;
    await expect.poll(() => review.textContent()).toContain(`~${tokens?.toLocaleString("en-US")} tokens`);

    const search = app.view.getByRole("searchbox", { name: "Search skills and personas" });
    await search.fill("ship releases");
    await expect.poll(() => items.allTextContents()).toEqual([expect.stringMatching(/^deploy-notes/)]);
    await expect.poll(() => app.view.locator("#summary").textContent()).toBe("1 match of 3 items");
    await search.fill("");
    await expect.poll(() => items.count()).toBe(3);

    // Keyboard only: from the search box down to the first item, then open it.
    await search.focus();
    await page.keyboard.press("ArrowDown");
    await expect.poll(() => app.view.locator(":focus").getAttribute("data-name")).toBe("deploy-notes");
    await page.keyboard.press("ArrowDown");
    await expect.poll(() => app.view.locator(":focus").getAttribute("data-name")).toBe("review");
    await page.keyboard.press("Enter");

    await expect.poll(() => app.view.getByRole("heading", { level: 1 }).textContent()).toBe("review");
    expect((await app.events()).calls).toEqual([{ name: "skills", arguments: { action: "get", name: "review" } }]);
    await expect.poll(() => app.view.getByRole("heading", { name: "Steps" }).count()).toBe(1);
    await expect.poll(() => app.view.locator("pre code").first().textContent()).toBe("npm run lint");

    await app.view.getByRole("button", { name: "references/checklist.md" }).click();
    await expect
      .poll(() => app.view.getByRole("region", { name: "Content of references/checklist.md" }).textContent())
      .toBe("testsdocs");
    expect((await app.events()).calls.at(-1)).toEqual({
      name: "skills",
      arguments: { action: "get", name: "review", path: "references/checklist.md" },
    });
    await app.view.getByRole("button", { name: /All skills/ }).click();
    await expect.poll(() => items.count()).toBe(3);
    expectOnlyHostRequests(SKILLS_VIEW);
  });

  it("renders a real get: Markdown, frontmatter, and the file list with sizes and digests", async () => {
    await loadAndInitialize(SKILLS_VIEW);
    await app.toolInput({ action: "get", name: "review" });
    const got = await call("skills", { action: "get", name: "review" });
    await app.toolResult(got);
    const v = app.view;
    await expect.poll(() => v.getByRole("heading", { level: 1 }).textContent()).toBe("review");
    await expect.poll(() => v.getByRole("heading", { name: "Review", level: 2 }).count()).toBe(1);
    expect(await v.getByRole("heading", { name: "Steps", level: 3 }).count()).toBe(1);
    expect(await v.locator("strong").first().textContent()).toBe("diff");
    expect(await v.locator("#content p code").first().textContent()).toBe("npm test");
    expect(await v.locator("ol li").allTextContents()).toEqual([
      "Check the tests",
      "Check the docs, see the guide (https://example.com/guide)",
    ]);
    // A link is text: nothing to follow.
    expect(await v.locator("a").count()).toBe(0);
    const frontmatter = v.getByRole("table").filter({ hasText: "Frontmatter" });
    expect(await frontmatter.getByRole("row", { name: /description/ }).textContent()).toContain("How we review code.");
    // The server's note after the chunk ("[Files of this skill: …]") is not part of the document.
    expect(await v.locator("#content").textContent()).not.toContain("[Files of this skill");

    const files = (got.structuredContent as { files: { path: string; size: number; digest: string }[] }).files;
    expect(files.map((f) => f.path)).toEqual(["SKILL.md", "references/big.md", "references/checklist.md"]);
    const rows = v.locator("table.files tbody tr");
    expect(await rows.count()).toBe(3);
    for (const [i, file] of files.entries()) {
      const digest = rows.nth(i).locator("code");
      expect(await digest.getAttribute("title")).toBe(file.digest);
      expect(await digest.textContent()).toBe(file.digest.slice("sha256:".length, "sha256:".length + 12));
    }
    expect(await rows.nth(2).locator("td").nth(1).textContent()).toBe("15 bytes");
    expect(await v.getByRole("button", { name: "SKILL.md" }).getAttribute("aria-current")).toBe("true");
    expectOnlyHostRequests(SKILLS_VIEW);
  });

  it("pages a large file with Load more, and stops at its bound with how to read the rest", async () => {
    await loadAndInitialize(SKILLS_VIEW);
    const got = await call("skills", { action: "get", name: "review", path: "references/big.md" });
    expect((got.structuredContent as { next_start: number }).next_start).toBe(20_000);
    await app.toolResult(got);
    const more = app.view.getByRole("button", { name: /^Load more/ });
    await expect.poll(() => more.textContent()).toBe("Load more (190,000 more characters)");
    for (let loaded = 1; loaded < 10; loaded++) {
      await more.click();
      await expect.poll(async () => (await app.events()).calls.length, { timeout: 20_000 }).toBe(loaded);
      await expect.poll(() => more.count()).toBe(loaded < 9 ? 1 : 0);
    }
    expect((await app.events()).calls.map((c) => c.arguments?.start)).toEqual(
      Array.from({ length: 9 }, (_, i) => 20_000 * (i + 1)),
    );
    const bound = app.view.getByRole("note").filter({ hasText: "at most 200,000" });
    await expect
      .poll(() => bound.textContent())
      .toBe(
        'Showing 200,000 of 210,000 characters; this view shows at most 200,000. To read the rest, ask the agent for skills(action="get", name="review", path="references/big.md", start=200000).',
      );
    expect(await app.view.locator("#content").textContent()).toContain("Line 02199 of the big reference file.");
    expectOnlyHostRequests(SKILLS_VIEW);
  });

  it("shows a skill's markup as text and runs none of it", async () => {
    await loadAndInitialize(SKILLS_VIEW);
    await app.toolResult(await call("skills", { action: "get", name: "trap" }));
    const content = app.view.locator("#content");
    await expect.poll(() => content.textContent()).toContain(`<img src=x onerror="${PAYLOAD}">`);
    expect(await content.textContent()).toContain(`<script>${PAYLOAD}</script>`);
    expect(await content.textContent()).toContain("click me (javascript:alert(1))");
    expect(await app.view.locator("img, a, #content script").count()).toBe(0);
    expect(await app.view.locator("script").count()).toBe(1);
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await app.view.locator("html").evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBe(
      undefined,
    );
    expectOnlyHostRequests(SKILLS_VIEW);
  });

  it("shows an error result's text, a cancellation, and a theme change", async () => {
    await loadAndInitialize(SKILLS_VIEW);
    const missing = await call("skills", { action: "get", name: "no-such-skill" });
    expect(missing.isError).toBe(true);
    await app.toolResult(missing);
    await expect.poll(() => app.view.getByRole("alert").textContent()).toMatch(/no-such-skill/);

    await app.hostContextChanged({ theme: "dark" });
    await expect.poll(() => app.view.locator("html").getAttribute("data-theme")).toBe("dark");
    const dark = await app.view.locator("html").evaluate((el) => getComputedStyle(el).colorScheme);
    expect(dark).toBe("dark");
    await app.hostContextChanged({ theme: "light" });
    await expect.poll(() => app.view.locator("html").getAttribute("data-theme")).toBe("light");
    expectOnlyHostRequests(SKILLS_VIEW);

    await page.close();
    page = await browser.newPage();
    app = new HostPage(page, host);
    await loadAndInitialize(SKILLS_VIEW);
    await app.toolInput({ action: "list" });
    await app.toolCancelled("user action");
    await expect
      .poll(() => app.view.getByRole("status").textContent())
      .toBe("The tool call was cancelled (user action).");
  });

  it("offers no tool calls under a host without serverTools, and says how to ask the agent", async () => {
    await loadAndInitialize(SKILLS_VIEW, { serverTools: false });
    await app.toolResult(await call("skills", { action: "list" }));
    await expect.poll(() => app.view.getByRole("listitem").count()).toBe(3);
    expect(await app.view.getByRole("button").count()).toBe(0);
    expect(await app.view.getByRole("note").first().textContent()).toContain('skills(action="get", name="<name>")');
  });

  it("fits a narrow host without sideways scrolling, and stops animating under reduced motion", async () => {
    await page.emulateMedia({ reducedMotion: "reduce" });
    await loadAndInitialize(SKILLS_VIEW, { width: 320 });
    await app.toolInput({ action: "get", name: "review" });
    const status = app.view.getByRole("status");
    await expect.poll(() => status.getAttribute("class")).toBe("muted pending");
    expect(await status.evaluate((el) => getComputedStyle(el).animationName)).toBe("none");
    await app.toolResult(await call("skills", { action: "get", name: "review" }));
    await expect.poll(() => app.view.locator("table.files tbody tr").count()).toBe(3);
    const root = app.view.locator("html");
    expect(await root.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    // The digest column gives way at this width; the path and size stay.
    expect(await app.view.locator("table.files tbody tr").first().locator("td").nth(2).isVisible()).toBe(false);
    await app.view.getByRole("button", { name: "references/checklist.md" }).focus();
    const outline = await app.view.locator(":focus").evaluate((el) => getComputedStyle(el).outlineStyle);
    expect(outline).toBe("solid");
  });

  it("keeps its fallback text under a host without the extension", async () => {
    await app.loadBare(SKILLS_VIEW);
    const status = app.view.getByRole("status");
    await expect.poll(() => status.textContent()).toMatch(/^Loadout skills: this view shows a skills result/);
    await page.waitForTimeout(1_000);
    expect(await status.textContent()).toMatch(/The tool's text result has the same information\.$/);
    expect(await app.view.locator("#view").textContent()).toBe("");
  });
});

describe("the edit view under an AppBridge host", () => {
  it("shows a real skill_edit's diff per file, marked beyond colour", async () => {
    await loadAndInitialize(EDIT_VIEW);
    await app.toolInput({ action: "edit", name: "review" });
    const edited = await call("skill_edit", {
      action: "edit",
      name: "review",
      files: { "references/checklist.md": "- tests\n- changelog\n", "references/new.md": "New notes.\n" },
    });
    expect(edited.isError).toBeFalsy();
    await app.toolResult(edited);
    const v = app.view;
    await expect.poll(() => v.getByRole("heading", { level: 1 }).textContent()).toBe("Edited review");
    const changed = v.getByRole("region", { name: "references/checklist.md, changed" });
    await expect.poll(() => changed.locator(".ln.add").allTextContents()).toEqual(["Added line: +- changelog"]);
    expect(await changed.locator(".ln.del").allTextContents()).toEqual(["Removed line: \u2212- docs"]);
    expect(await changed.locator(".ln.add .mk").getAttribute("aria-hidden")).toBe("true");
    const added = v.getByRole("region", { name: "references/new.md, added" });
    expect(await added.locator(".ln.add").allTextContents()).toEqual(["Added line: +New notes."]);
    expect(await v.getByText(/^2 files: 1 added, 1 changed\.$/).count()).toBe(1);
    expectOnlyHostRequests(EDIT_VIEW);
  });

  it("says when the server cut a diff short", async () => {
    await loadAndInitialize(EDIT_VIEW);
    // An added file of 1,000 lines: a patch of about 36,000 characters, which the server cuts at 20,000.
    const long = Array.from({ length: 1_000 }, (_, i) => `Entry ${i} of the long reference file.`).join("\n");
    const edited = await call("skill_edit", { action: "edit", name: "review", files: { "references/long.md": long } });
    expect(edited.isError).toBeFalsy();
    const [change] = (edited.structuredContent as { changes: { truncated?: boolean; patch?: string }[] }).changes;
    expect(change?.truncated).toBe(true);
    await app.toolResult(edited);
    const section = app.view.getByRole("region", { name: "references/long.md, added" });
    await expect
      .poll(() => section.getByRole("note").textContent())
      .toBe(
        'The server cut this diff short. Read the whole file with skills(action="get", name="review", path="references/long.md").',
      );
    expect(await section.locator(".ln.add").count()).toBeGreaterThan(400);
    expect(await section.locator(".ln.add").last().textContent()).not.toContain("Entry 999 ");
    expectOnlyHostRequests(EDIT_VIEW);
  });
});
