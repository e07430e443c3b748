/**
 * `loadout sync` as a child process against the real server, into a temporary home folder with
 * each client's folder: every client's documented layout, the lock file, only changes written, an
 * item removed in Loadout removed here, a local edit kept (and replaced with --force), the
 * project's folders with --project-folders, and the device's report to Loadout.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { normalizeProjectPath } from "@loadout/api/domain/activation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Account, signUpAccount } from "../helpers/account";
import { cliEnv, runCli, tempHome } from "../helpers/cli";
import { startTestServer, type TestServer } from "../helpers/server";

let server: TestServer;
let account: Account;
let home: ReturnType<typeof tempHome>;
let env: NodeJS.ProcessEnv;
let project: string;

const CLIENT_FOLDERS = [".claude", ".codex", ".cursor", ".config/opencode"];
const at = (...parts: string[]) => path.join(home.home, ...parts);
const read = (...parts: string[]) => readFileSync(at(...parts), "utf8");

async function create(body: Record<string, unknown>) {
  const res = await account.rest("/v1/workspaces/me/skills", { method: "POST", body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function edit(name: string, change: Record<string, unknown>) {
  const current = (await account.rest(`/v1/workspaces/me/skills/${name}`)).body;
  const res = await account.rest(`/v1/workspaces/me/skills/${name}`, {
    method: "PATCH",
    body: { revision: current.revision, ...change },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

const syncNow = (...args: string[]) => runCli(["sync", "--project", project, ...args], { env });

beforeAll(async () => {
  server = await startTestServer();
  account = await signUpAccount(server.url, "sync@example.com");
  home = tempHome(CLIENT_FOLDERS);
  env = cliEnv(home.home, server.url);
  project = at("code", "shop");
  mkdirSync(project, { recursive: true });
  await create({
    name: "code-review",
    description: "Reviews diffs.",
    instructions: "Check the tests.\n",
    files: [{ path: "references/checklist.md", content: "- tests\n" }],
  });
  await create({ name: "deploy", description: "Deploys the shop.", instructions: "Run make deploy.\n" });
  await create({
    name: "elsewhere",
    description: "Only for another project.",
    instructions: "x\n",
    scope: { mode: "projects", projects: ["/somewhere/else"] },
  });
  await create({
    kind: "persona",
    name: "staff-engineer",
    description: "A staff engineer.",
    instructions: "Be one.\n",
  });
  const token = await account.token(["skills:read"], { name: "sync" });
  expect((await runCli(["login", "--token", token.secret], { env })).code).toBe(0);
});
afterAll(async () => {
  home?.remove();
  await server?.close();
});

describe("loadout sync", () => {
  it("writes the project's active items into each installed client's folders, as each documents", async () => {
    const first = await syncNow();
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("Claude Code");
    expect(first.stdout).toContain("2 skills and 1 persona");
    for (const root of [".claude", ".codex", ".cursor", ".config/opencode"]) {
      expect(read(root, "skills", "code-review", "SKILL.md")).toContain("name: code-review");
      expect(read(root, "skills", "code-review", "references", "checklist.md")).toBe("- tests\n");
      expect(read(root, "skills", "deploy", "SKILL.md")).toContain("Run make deploy.");
      // Scoped to another project: not active here.
      expect(existsSync(at(root, "skills", "elsewhere"))).toBe(false);
    }
    // Personas: Claude Code's subagents, Cursor's and opencode's agents; Codex reads none.
    for (const root of [".claude", ".cursor", ".config/opencode"])
      expect(read(root, "agents", "staff-engineer.md")).toMatch(/^---\nname: staff-engineer\n/);
    expect(existsSync(at(".codex", "agents"))).toBe(false);
    const lock = at(".config", "loadout", "sync-lock.json");
    expect(statSync(lock).mode & 0o777).toBe(0o600);
    expect(Object.keys(JSON.parse(readFileSync(lock, "utf8")).roots).sort()).toEqual(
      CLIENT_FOLDERS.map((f) => at(f)).sort(),
    );

    // The device reported which clients read which kinds.
    const devices = (await account.rest("/v1/devices")).body.devices;
    expect(devices).toHaveLength(1);
    expect(devices[0]).toMatchObject({
      project: normalizeProjectPath(project),
      fitting: true,
      written: { skill: 2, persona: 1 },
      readers: [
        { client: "claude-code", kinds: ["skill", "persona"] },
        { client: "codex", kinds: ["skill"] },
        { client: "cursor", kinds: ["skill", "persona"] },
        { client: "opencode", kinds: ["skill", "persona"] },
      ],
    });
    const device = JSON.parse(read(".config", "loadout", "device.json")).id;
    expect(devices[0].deviceId).toBe(device);
    const activity = (await account.rest("/v1/workspaces/me/activity?kind=change")).body.events;
    expect(activity.some((e: { action: string }) => e.action === "device.synced")).toBe(true);
  });

  it("writes nothing when nothing changed", async () => {
    const before = statSync(at(".claude", "skills", "code-review", "SKILL.md")).mtimeMs;
    const again = await syncNow();
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/Claude Code \(.*\): 0 written, 0 removed, 3 unchanged/);
    expect(statSync(at(".claude", "skills", "code-review", "SKILL.md")).mtimeMs).toBe(before);
  });

  it("writes a change made in Loadout, and removes an item removed there", async () => {
    await edit("deploy", { instructions: "Run make deploy-prod.\n" });
    const current = (await account.rest("/v1/workspaces/me/skills/code-review")).body;
    expect(
      (await account.rest(`/v1/workspaces/me/skills/code-review?revision=${current.revision}`, { method: "DELETE" }))
        .status,
    ).toBe(204);
    const after = await syncNow();
    expect(after.code).toBe(0);
    expect(after.stdout).toMatch(/Claude Code \(.*\): 1 written, 2 removed, 1 unchanged/);
    expect(after.stdout).toMatch(/Codex \(.*\): 1 written, 2 removed, 0 unchanged/);
    for (const root of CLIENT_FOLDERS) {
      expect(read(root, "skills", "deploy", "SKILL.md")).toContain("make deploy-prod");
      expect(existsSync(at(root, "skills", "code-review"))).toBe(false);
      expect(existsSync(at(root, "skills"))).toBe(true);
    }
  });

  it("keeps a file edited here, says so, and replaces it only with --force", async () => {
    const file = at(".claude", "skills", "deploy", "SKILL.md");
    writeFileSync(file, `${readFileSync(file, "utf8")}\nMy own note.\n`);
    await edit("deploy", { instructions: "Run make deploy-canary.\n" });
    const kept = await syncNow();
    expect(kept.code).toBe(0);
    expect(kept.stdout).toMatch(
      /kept skills\/deploy\/SKILL\.md: edited here since the last sync \(--force replaces it\)/,
    );
    expect(readFileSync(file, "utf8")).toContain("My own note.");
    // The other clients' copies were not edited: they follow Loadout.
    expect(read(".codex", "skills", "deploy", "SKILL.md")).toContain("make deploy-canary");
    // Still kept on the next sync: the lock remembers what Loadout wrote, not the edit.
    expect((await syncNow()).stdout).toContain("kept skills/deploy/SKILL.md");

    const forced = await syncNow("--force");
    expect(forced.code).toBe(0);
    expect(readFileSync(file, "utf8")).not.toContain("My own note.");
    expect(readFileSync(file, "utf8")).toContain("make deploy-canary");
    expect((await syncNow()).stdout).not.toContain("kept");
  });

  it("does not overwrite a skill folder that was there before Loadout", async () => {
    const theirs = at(".cursor", "skills", "handmade", "SKILL.md");
    mkdirSync(path.dirname(theirs), { recursive: true });
    writeFileSync(theirs, "---\nname: handmade\ndescription: mine\n---\nMine.\n");
    await create({ name: "handmade", description: "From Loadout.", instructions: "Loadout's.\n" });
    const report = await syncNow();
    expect(report.stdout).toMatch(/kept skills\/handmade\/SKILL\.md: was there before Loadout/);
    expect(readFileSync(theirs, "utf8")).toContain("Mine.");
    expect(read(".claude", "skills", "handmade", "SKILL.md")).toContain("Loadout's.");
  });

  it("writes into the project's own folders with --project-folders, for the clients named", async () => {
    const report = await syncNow("--project-folders", "--clients", "claude-code,codex");
    expect(report.code).toBe(0);
    expect(readFileSync(path.join(project, ".claude", "skills", "deploy", "SKILL.md"), "utf8")).toContain("deploy");
    expect(readFileSync(path.join(project, ".claude", "agents", "staff-engineer.md"), "utf8")).toContain("staff");
    expect(existsSync(path.join(project, ".codex", "skills", "deploy", "SKILL.md"))).toBe(true);
    expect(existsSync(path.join(project, ".cursor"))).toBe(false);
    const devices = (await account.rest("/v1/devices")).body.devices;
    expect(devices[0].readers.map((r: { client: string }) => r.client)).toEqual(["claude-code", "codex"]);

    const unknown = await syncNow("--clients", "notepad");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Unknown client "notepad"/);
  });
});
