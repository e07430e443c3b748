/**
 * An upstream server's skills reviewed in the console, in Chromium, against a real Loadout and a
 * real upstream serving the Skills extension: after Test each skill is a row of kind Skill waiting
 * for review with its manifest's size, and approving it there pins it; a skill the upstream
 * changes waits again and its row says which fields and files changed; a file served with other
 * bytes than its digest, found out by an agent's read at /mcp, puts the reason on the row until
 * Test checks the server again.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, signUpInBrowser } from "../helpers/browser";
import { startTestServer, type TestServer } from "../helpers/server";
import { type SkillsUpstream, skillDoc, startSkillsUpstream } from "../helpers/skills-upstream";

let server: TestServer;
let upstream: SkillsUpstream;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const pageErrors: string[] = [];

const SLUG = "manuals";
const PDF = skillDoc("pdf", "Fill in PDF forms.");
const FORMS = "# Forms\n\nField by field.\n";
const NOTES = skillDoc("notes", "Keep meeting notes.");
const PDF_V2 = skillDoc("pdf", "Fill in and sign PDF forms.");
const FILL = "print('filling')\n";

type ItemView = { kind: string; key: string; pin: string; problem: string | null };

const bytes = (...texts: string[]) => texts.reduce((n, text) => n + Buffer.byteLength(text), 0);
// The console's manifest summary, as skill-diff.ts words it.
const summary = (files: number, size: number) => `${files} ${files === 1 ? "file" : "files"}, ${size} bytes`;

async function cookieHeader(): Promise<{ cookie: string; csrf: string }> {
  const cookies = await context.cookies(server.url);
  return {
    cookie: cookies.map((item) => `${item.name}=${item.value}`).join("; "),
    csrf: decodeURIComponent(cookies.find((item) => item.name === "lo_csrf")?.value ?? ""),
  };
}

// The items as the REST API stores them, read with the browser's session.
async function skills(): Promise<ItemView[]> {
  const { cookie } = await cookieHeader();
  const response = await fetch(`${server.url}/v1/workspaces/me/servers/${SLUG}/items`, {
    headers: { cookie, accept: "application/json" },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { items: ItemView[] }).items.filter((item) => item.kind === "skill");
}

const card = () => page.getByRole("region", { name: "Resources and prompts" });
// A skill's row, found by its SKILL.md URI in the row header.
const row = (skill: string): Locator =>
  card()
    .getByTestId("item-row")
    .filter({ has: page.getByRole("rowheader").getByText(`skill://${skill}/SKILL.md`, { exact: true }) });
const review = (skill: string) => row(skill).getByRole("cell").first();

async function pressTest(): Promise<void> {
  const connection = page.getByRole("region", { name: "Connection" });
  await connection.getByRole("button", { name: "Test", exact: true }).click();
  // The click empties the status line at once; it says what Test found once the answer is in.
  await connection
    .getByRole("status")
    .filter({ hasText: /Connected: the server lists \d+ tools?/ })
    .waitFor();
}

beforeAll(async () => {
  [server, upstream] = await Promise.all([
    startTestServer({ LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1" }),
    startSkillsUpstream({
      pdf: { "SKILL.md": PDF, "references/forms.md": FORMS },
      notes: { "SKILL.md": NOTES },
    }),
  ]);
  browser = await launchChromium();
  context = await browser.newContext();
  page = await context.newPage();
  page.on("pageerror", (error) => pageErrors.push(error.message));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all([server?.close(), upstream?.stop()]);
});

describe("an upstream server's skills in the console", () => {
  it("lists each skill after Test as a new Skill row with its files' summary, and approves them from the page", async () => {
    await signUpInBrowser(page, server.url, "server-skills@example.com");
    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Servers", exact: true }).click();
    await page.waitForURL(`${server.url}/servers/`);
    await page.getByRole("button", { name: "Paste servers" }).click();
    const dialog = page.getByRole("dialog", { name: "Paste servers" });
    await dialog.getByLabel("mcpServers block").fill(JSON.stringify({ mcpServers: { [SLUG]: { url: upstream.url } } }));
    await dialog.getByRole("button", { name: "Import" }).click();
    await dialog.getByRole("link", { name: SLUG }).click();
    await page.waitForURL(`${server.url}/servers/edit/?slug=${SLUG}&ws=me`);
    await pressTest();

    await card().getByTestId("items-waiting").waitFor();
    for (const [skill, description, files, size] of [
      ["pdf", "Fill in PDF forms.", 2, bytes(PDF, FORMS)],
      ["notes", "Keep meeting notes.", 1, bytes(NOTES)],
    ] as const) {
      const header = row(skill).getByRole("rowheader");
      await header.getByText("Skill", { exact: true }).waitFor();
      await header.getByText(skill, { exact: true }).waitFor();
      await header.getByText(description).waitFor();
      await header.getByText(summary(files, size), { exact: true }).waitFor();
      await review(skill).getByText("New: waits for review").waitFor();
    }
    expect((await skills()).map((item) => [item.key, item.pin])).toEqual([
      ["skill://notes/SKILL.md", "new"],
      ["skill://pdf/SKILL.md", "new"],
    ]);

    // One from its own row; the other, the last one waiting, from the card's button.
    await row("pdf").getByRole("button", { name: "Approve pdf" }).click();
    await review("pdf").getByText("Approved", { exact: true }).waitFor();
    expect(await row("pdf").getByRole("button", { name: "Approve pdf" }).count()).toBe(0);
    await review("notes").getByText("New: waits for review").waitFor();
    await card().getByRole("button", { name: "Approve it" }).click();
    await review("notes").getByText("Approved", { exact: true }).waitFor();
    await card().getByTestId("items-waiting").waitFor({ state: "detached" });
    expect((await skills()).map((item) => item.pin)).toEqual(["approved", "approved"]);

    // What the page shows after a reload is what was stored.
    await page.reload();
    await review("pdf").getByText("Approved", { exact: true }).waitFor();
    await review("notes").getByText("Approved", { exact: true }).waitFor();
  });

  it("shows a skill the upstream changed as waiting again, with the fields and files that changed, and approves it again", async () => {
    // A new description (so SKILL.md changes too), a file added and one removed.
    await upstream.setSkill("pdf", { "SKILL.md": PDF_V2, "scripts/fill.py": FILL });
    await pressTest();

    await review("pdf").getByText("Changed: waits for review").waitFor();
    await review("notes").getByText("Approved", { exact: true }).waitFor();
    const header = row("pdf").getByRole("rowheader");
    await header.getByText(summary(2, bytes(PDF_V2, FILL)), { exact: true }).waitFor();
    const change = row("pdf").getByTestId("item-change");
    await change.waitFor();
    const lines = (await change.getByRole("listitem").allTextContents()).sort();
    expect(lines).toEqual(
      [
        "description: was Fill in PDF forms., now Fill in and sign PDF forms.",
        "Added skill://pdf/scripts/fill.py",
        "Removed skill://pdf/references/forms.md",
        "Changed skill://pdf/SKILL.md",
      ].sort(),
    );
    expect(await row("notes").getByTestId("item-change").count()).toBe(0);
    expect((await skills()).find((item) => item.key === "skill://pdf/SKILL.md")?.pin).toBe("changed");

    await row("pdf").getByRole("button", { name: "Approve pdf" }).click();
    await review("pdf").getByText("Approved", { exact: true }).waitFor();
    await change.waitFor({ state: "detached" });
    await card().getByTestId("items-waiting").waitFor({ state: "detached" });
    expect((await skills()).map((item) => item.pin)).toEqual(["approved", "approved"]);
  });

  it("puts the reason on a skill's row once an agent's read finds a file that does not match its digest, and Test clears it", async () => {
    upstream.tamper("skill://notes/SKILL.md", skillDoc("notes", "Keep meeting notes.", "# Do something else\n"));
    const { cookie, csrf } = await cookieHeader();
    const created = await fetch(`${server.url}/v1/tokens`, {
      method: "POST",
      headers: { cookie, "x-csrf-token": csrf, "content-type": "application/json" },
      body: JSON.stringify({ name: "agent", scopes: ["mcp"] }),
    });
    expect(created.status).toBe(201);
    const { secret } = (await created.json()) as { secret: string };
    const client = new Client({ name: "server-skills-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${secret}` } },
      }),
    );
    try {
      await expect(client.readResource({ uri: `skill://_servers/${SLUG}/notes/SKILL.md` })).rejects.toThrow(/withheld/);
      // The untouched skill is still served.
      const pdf = await client.readResource({ uri: `skill://_servers/${SLUG}/pdf/SKILL.md` });
      expect(pdf.contents[0]).toMatchObject({ text: PDF_V2 });
    } finally {
      await client.close();
    }

    await page.reload();
    const problem = row("notes").getByTestId("item-problem");
    await problem.waitFor();
    expect(await problem.textContent()).toMatch(
      /^Withheld: SKILL\.md did not match its approved manifest \(the server served \d+ bytes where .+\)\. Test the server to check it again\.$/,
    );
    // Still approved: withheld for what the read found, not for review.
    await review("notes")
      .getByText(/^Approved\s*Withheld: /)
      .waitFor();
    expect(await row("pdf").getByTestId("item-problem").count()).toBe(0);
    expect((await skills()).find((item) => item.key === "skill://notes/SKILL.md")?.problem).toMatch(
      /did not match its approved manifest/,
    );

    await pressTest();
    await problem.waitFor({ state: "detached" });
    expect((await skills()).map((item) => item.problem)).toEqual([null, null]);
  });

  it("raised no page errors", () => {
    expect(pageErrors).toEqual([]);
  });
});
