import { randomInt } from "node:crypto";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, signUpInBrowser } from "../helpers/browser";
import { startTestServer, type TestServer } from "../helpers/server";

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const pageErrors: string[] = [];

const NAME = "code-review";
const FIRST_DESCRIPTION = "Reviews a diff for bugs and risky changes; use when asked to review code.";
const SECOND_DESCRIPTION = "Reviews a diff for bugs, style and tests; use when asked to review code.";
const INSTRUCTIONS = "# Code review\n\nRead the whole diff before commenting.\n";
const PROJECT_TYPED = "/home/ada/Code/Shop/";
const PROJECT = "/home/ada/code/shop";

// Built here so that no token-shaped literal sits in the repository.
function fakeGitHubToken(): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  const tail = Array.from({ length: 36 }, () => alphabet[randomInt(alphabet.length)]).join("");
  return `gh${"p_"}${tail}`;
}

type SkillDetail = {
  name: string;
  description: string;
  body: string;
  document: string;
  enabled: boolean;
  state: string;
  scope: { mode: string; projects: string[] };
  version: number;
  revision: number;
};

// The REST API as the signed-in browser sees it: the session cookie, read from the context.
async function rest(path: string): Promise<Response> {
  const cookies = await context.cookies(server.url);
  const cookie = cookies.map((item) => `${item.name}=${item.value}`).join("; ");
  return fetch(`${server.url}/v1/workspaces/me${path}`, { headers: { cookie, accept: "application/json" } });
}

// The frame's navigation; pages also link back to their list in a breadcrumb of the same name.
const nav = (name: string) =>
  page.getByRole("navigation", { name: "Console" }).getByRole("link", { name, exact: true });

async function skill(): Promise<SkillDetail> {
  const response = await rest(`/skills/${NAME}`);
  expect(response.status).toBe(200);
  return (await response.json()) as SkillDetail;
}

beforeAll(async () => {
  server = await startTestServer();
  browser = await launchChromium();
  context = await browser.newContext();
  page = await context.newPage();
  page.on("pageerror", (error) => pageErrors.push(error.message));
  // These tests leave refused edits behind on purpose and move on: the unsaved-edit question
  // (tested in first-hour.test.ts) is answered "leave".
  page.on("dialog", (dialog) => void dialog.accept());
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("skills in the console", () => {
  it("signs up and writes a skill that shows in the list", async () => {
    await signUpInBrowser(page, server.url);

    await nav("Skills").click();
    await page.waitForURL(`${server.url}/skills/`);
    await page.getByText("No skills yet").waitFor();
    await page.getByRole("button", { name: "New skill", exact: true }).click();
    await page.waitForURL(/\/skills\/new\/\?kind=skill$/);

    // A bad name is reported while typing.
    await page.getByLabel("Name", { exact: true }).fill("Code Review");
    await expect.poll(() => page.getByRole("alert").filter({ hasText: "lowercase" }).count()).toBeGreaterThan(0);

    await page.getByLabel("Description", { exact: true }).fill(FIRST_DESCRIPTION);
    await page.getByLabel("Name", { exact: true }).fill(NAME);
    await page.getByLabel("Instructions", { exact: true }).fill(INSTRUCTIONS);
    await expect.poll(() => page.getByTestId("byte-counter").textContent()).toMatch(/^SKILL\.md: .* of 128 KiB/);

    // The preview renders Markdown, and script in skill text never runs.
    await page
      .getByLabel("Instructions", { exact: true })
      .fill(`${INSTRUCTIONS}\n<img src="x" onerror="window.__pwned = 1">\n`);
    await page.getByRole("button", { name: "Preview" }).click();
    const preview = page.locator(".markdown-preview");
    await preview.getByRole("heading", { name: "Code review" }).waitFor();
    expect(await preview.innerHTML()).not.toContain("onerror");
    expect(await page.evaluate(() => "__pwned" in window)).toBe(false);
    await page.getByRole("button", { name: "Preview" }).click();
    await page.getByLabel("Instructions", { exact: true }).fill(INSTRUCTIONS);

    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.waitForURL(`${server.url}/skills/edit/?name=${NAME}&ws=me`);
    await page.getByRole("heading", { name: NAME }).waitFor();
    const created = await skill();
    expect(created.description).toBe(FIRST_DESCRIPTION);
    expect(created.body).toContain("Read the whole diff");
    expect(created.version).toBe(1);

    await nav("Skills").click();
    const row = page.getByTestId("skill-row").filter({ hasText: NAME });
    await row.waitFor();
    expect(await row.textContent()).toContain(FIRST_DESCRIPTION);
    expect(await row.getByRole("radio", { name: "global" }).isChecked()).toBe(true);
  });

  it("refuses a credential with its file and line, and stores nothing", async () => {
    await page.getByTestId("skill-row").filter({ hasText: NAME }).getByRole("link", { name: NAME }).click();
    await page.waitForURL(`${server.url}/skills/edit/?name=${NAME}&ws=me`);
    const before = await skill();

    const body = `${INSTRUCTIONS}\nUse the token ${fakeGitHubToken()} to call the API.\n`;
    await page.getByLabel("Instructions", { exact: true }).fill(body);
    await page.getByRole("button", { name: "Save", exact: true }).click();

    // SKILL.md has two fence lines and two fields above the body: the token's line in the file.
    const bodyLine = body.split("\n").findIndex((line) => line.includes("Use the token")) + 1;
    const line = 4 + bodyLine;
    // Shown where it occurred: under the instructions, naming the file and the line.
    const instructions = page.locator(".field").filter({ has: page.getByLabel("Instructions", { exact: true }) });
    const alert = instructions
      .getByRole("alert")
      .filter({ hasText: "SKILL.md" })
      .filter({ hasText: `line ${line}` });
    await alert.waitFor();
    expect(await alert.textContent()).toContain("GitHub token");

    const after = await skill();
    expect(after.revision).toBe(before.revision);
    expect(after.version).toBe(1);
    expect(after.document).not.toContain("Use the token");
    const versions = (await (await rest(`/skills/${NAME}/versions`)).json()) as { versions: unknown[] };
    expect(versions.versions).toHaveLength(1);
  });

  it("scopes the skill to a new project through the picker, and keeps the projects when off", async () => {
    await nav("Skills").click();
    await page.waitForURL(`${server.url}/skills/`);
    const row = page.getByTestId("skill-row").filter({ hasText: NAME });
    const state = row.getByRole("radiogroup", { name: NAME });
    await state.getByRole("radio", { name: "projects" }).check();

    const picker = page.getByTestId("project-picker");
    await picker.waitFor();
    await picker.getByLabel("Project path").fill(PROJECT_TYPED);
    await picker.getByRole("button", { name: "Add project" }).click();
    const box = picker.getByRole("checkbox", { name: PROJECT, exact: true });
    await box.waitFor();
    expect(await box.isChecked()).toBe(true);
    await picker.getByRole("button", { name: "Done" }).click();
    await picker.waitFor({ state: "detached" });

    await expect.poll(async () => (await skill()).state).toBe("projects");
    const scoped = await skill();
    expect(scoped.scope).toEqual({ mode: "projects", projects: [PROJECT] });
    expect(scoped.enabled).toBe(true);
    expect(await state.getByRole("radio", { name: "projects" }).isChecked()).toBe(true);

    await state.getByRole("radio", { name: "off" }).check();
    await expect.poll(async () => (await skill()).state).toBe("off");
    const off = await skill();
    expect(off.enabled).toBe(false);
    expect(off.scope).toEqual({ mode: "projects", projects: [PROJECT] });

    // Back on: the kept projects are used, no picker.
    await state.getByRole("radio", { name: "projects" }).check();
    await expect.poll(async () => (await skill()).state).toBe("projects");
    expect((await skill()).scope).toEqual({ mode: "projects", projects: [PROJECT] });
    expect(await page.getByTestId("project-picker").count()).toBe(0);
  });

  it("keeps history: diffs a version and restores it", async () => {
    await page.getByTestId("skill-row").filter({ hasText: NAME }).getByRole("link", { name: NAME }).click();
    await page.waitForURL(`${server.url}/skills/edit/?name=${NAME}&ws=me`);
    await page.getByLabel("Description", { exact: true }).fill(SECOND_DESCRIPTION);
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("Saved as version 2.").waitFor();
    expect((await skill()).description).toBe(SECOND_DESCRIPTION);

    await page.getByRole("link", { name: "History", exact: true }).click();
    await page.waitForURL(`${server.url}/skills/history/?name=${NAME}&ws=me`);
    const rows = page.getByTestId("version-row");
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.first().textContent()).toContain("v2");

    await page.getByRole("button", { name: "Compare version 1 with the current version" }).click();
    const diff = page.getByTestId("line-diff");
    await diff.waitFor();
    expect(await diff.locator(".diff-removed").textContent()).toContain(FIRST_DESCRIPTION);
    expect(await diff.locator(".diff-added").textContent()).toContain(SECOND_DESCRIPTION);

    await page.getByRole("button", { name: "Restore", exact: true }).click();
    await page.getByRole("button", { name: "Yes, restore" }).click();
    await page.getByText("Restored version 1 as version 3.").waitFor();
    await expect.poll(() => rows.count()).toBe(3);

    const restored = await skill();
    expect(restored.description).toBe(FIRST_DESCRIPTION);
    expect(restored.version).toBe(3);
  });

  it("adds a file under a folder path and removes it", async () => {
    await page.getByRole("link", { name: NAME, exact: true }).click();
    await page.waitForURL(`${server.url}/skills/edit/?name=${NAME}&ws=me`);
    await page.getByLabel("Add files").setInputFiles({
      name: "checklist.md",
      mimeType: "text/markdown",
      buffer: Buffer.from("- tests pass\n- no secrets\n"),
    });
    await page.getByLabel("Path for checklist.md").fill("references/checklist.md");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("Saved as version 4.").waitFor();
    const withFile = (await skill()) as SkillDetail & { files: { path: string; size: number }[] };
    expect(withFile.files.map((file) => file.path)).toEqual(["SKILL.md", "references/checklist.md"]);
    expect(withFile.description).toBe(FIRST_DESCRIPTION);
    const download = await rest(`/skills/${NAME}/file?path=references/checklist.md`);
    expect(await download.text()).toBe("- tests pass\n- no secrets\n");

    await page.getByRole("button", { name: "Remove references/checklist.md" }).click();
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("Saved as version 5.").waitFor();
    const without = (await skill()) as SkillDetail & { files: { path: string }[] };
    expect(without.files.map((file) => file.path)).toEqual(["SKILL.md"]);
  });

  it("removes the skill after an inline confirmation", async () => {
    await page.getByRole("link", { name: "History", exact: true }).click();
    await page.waitForURL(`${server.url}/skills/history/?name=${NAME}&ws=me`);
    await page.getByRole("link", { name: NAME, exact: true }).click();
    await page.waitForURL(`${server.url}/skills/edit/?name=${NAME}&ws=me`);
    await page.getByRole("button", { name: "Remove", exact: true }).click();
    await page.getByRole("button", { name: "Yes, remove" }).click();
    await page.waitForURL(`${server.url}/skills/`);
    await page.getByText("No skills yet").waitFor();
    expect((await rest(`/skills/${NAME}`)).status).toBe(404);
    expect(pageErrors).toEqual([]);
  });
});
