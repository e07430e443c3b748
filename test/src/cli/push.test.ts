/**
 * `loadout skills push`, `pull` and `list` as child processes against the real server: a folder
 * of valid and invalid skills publishes the valid ones, reports each refusal with its file, line
 * and rule, stores nothing of the refused ones, skips unchanged ones by digest, and exits 1 so CI
 * fails; a dry run stores nothing.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Account, signUpAccount } from "../helpers/account";
import { cliEnv, runCli, tempHome } from "../helpers/cli";
import { startTestServer, type TestServer } from "../helpers/server";

let server: TestServer;
let account: Account;
let home: ReturnType<typeof tempHome>;
let env: NodeJS.ProcessEnv;
let repo: string;

const skill = (name: string, description: string | null, body = "Do the thing.\n") =>
  `---\nname: ${name}\n${description === null ? "" : `description: ${description}\n`}---\n${body}`;

function write(file: string, text: string | Uint8Array) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

// A GitHub token shape, assembled so that this file holds none.
const leaked = `gh${"p_"}${"Zq8".repeat(12)}`;

beforeAll(async () => {
  server = await startTestServer();
  account = await signUpAccount(server.url, "push@example.com");
  home = tempHome();
  env = cliEnv(home.home, server.url);
  repo = path.join(home.home, "repo", "skills");
  write(path.join(repo, "code-review", "SKILL.md"), skill("code-review", "Reviews diffs; use when asked to review."));
  write(path.join(repo, "code-review", "references", "checklist.md"), "- tests\n- names\n");
  write(path.join(repo, "code-review", "assets", "logo.bin"), new Uint8Array([0, 255, 1, 254, 2]));
  write(path.join(repo, "release-notes", "SKILL.md"), skill("release-notes", "Writes release notes from a log."));
  write(path.join(repo, "no-description", "SKILL.md"), skill("no-description", null));
  write(path.join(repo, "leaky", "SKILL.md"), skill("leaky", "Calls GitHub."));
  write(path.join(repo, "leaky", "scripts", "call.sh"), `#!/bin/sh\n\ncurl -H "Authorization: token ${leaked}"\n`);
  write(path.join(repo, "wrong-name", "SKILL.md"), skill("other-name", "Its folder and its name differ."));
  write(path.join(repo, "not-a-skill", "notes.txt"), "no SKILL.md here\n");
  write(
    path.join(repo, "staff-engineer", "PERSONA.md"),
    "---\nname: staff-engineer\ndescription: A staff engineer.\n---\nBe one.\n",
  );
  const ci = await account.token(["skills:read", "skills:write"], { name: "ci" });
  const login = await runCli(["login", "--token", ci.secret], { env });
  expect(login.stderr).toBe("");
  expect(login.code).toBe(0);
  expect(login.stdout).toContain("as push@example.com");
});
afterAll(async () => {
  home?.remove();
  await server?.close();
});

const stored = async (name: string) => (await account.rest(`/v1/workspaces/me/skills/${name}`)).status;

describe("loadout login --token", () => {
  it("keeps the token in the config folder, readable by its owner only", () => {
    const file = path.join(home.home, ".config", "loadout", "credentials.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(readFileSync(file, "utf8"));
    expect(saved.current).toBe(server.url);
    expect(saved.servers[server.url].kind).toBe("token");
  });

  it("refuses a token the server does not know, with exit code 3, and keeps nothing", async () => {
    const other = tempHome();
    try {
      const refused = await runCli(["login", "--token", `lo_${"x".repeat(43)}`], {
        env: cliEnv(other.home, server.url),
      });
      expect(refused.code).toBe(3);
      expect(refused.stderr).toMatch(/refused the token/);
      const list = await runCli(["skills", "list"], { env: cliEnv(other.home, server.url) });
      expect(list.code).toBe(3);
      expect(list.stderr).toMatch(/not signed in to .*Run `loadout login/);
    } finally {
      other.remove();
    }
  });
});

describe("loadout skills push", () => {
  it("does nothing on a dry run, but names what it would do and what would be refused", async () => {
    const dry = await runCli(["skills", "push", repo, "--dry-run"], { env });
    expect(dry.code).toBe(1);
    expect(dry.stdout).toContain("would create code-review");
    expect(dry.stdout).toContain("would create release-notes");
    expect(dry.stdout).toMatch(/refused no-description: .*description/);
    expect(dry.stdout).toMatch(/leaky\/scripts\/call\.sh:3: .*GitHub token/);
    expect(await stored("code-review")).toBe(404);
  });

  it("publishes the valid skills, reports each refused one with file, line and rule, and exits 1", async () => {
    const pushed = await runCli(["skills", "push", repo], { env });
    expect(pushed.code).toBe(1);
    expect(pushed.stdout).toContain("created code-review (version 1)");
    expect(pushed.stdout).toContain("created release-notes (version 1)");
    expect(pushed.stdout).toContain("created staff-engineer (version 1)");
    expect(pushed.stdout).toMatch(/refused no-description: .*\n\s+no-description\/SKILL\.md(:\d+)?: description/);
    expect(pushed.stdout).toMatch(/refused leaky: .*\n\s+leaky\/scripts\/call\.sh:3: .*GitHub token/);
    expect(pushed.stdout).toMatch(/refused wrong-name: .*other-name/);
    expect(pushed.stdout).not.toContain("not-a-skill");
    expect(pushed.stdout).toContain("3 of 6 published or unchanged, 3 refused.");
    // The output never carries the secret it refused.
    expect(pushed.stdout + pushed.stderr).not.toContain(leaked);
    // Nothing of a refused skill is stored.
    for (const name of ["no-description", "leaky", "wrong-name", "other-name"]) expect(await stored(name)).toBe(404);
    const detail = (await account.rest("/v1/workspaces/me/skills/code-review")).body;
    expect(detail.files.map((f: { path: string }) => f.path).sort()).toEqual([
      "SKILL.md",
      "assets/logo.bin",
      "references/checklist.md",
    ]);
  });

  it("skips unchanged skills by digest, and sends only what changed", async () => {
    const one = path.join(repo, "code-review");
    const again = await runCli(["skills", "push", one], { env });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("unchanged code-review");
    expect((await account.rest("/v1/workspaces/me/skills/code-review")).body.version).toBe(1);

    write(path.join(one, "references", "checklist.md"), "- tests\n- names\n- docs\n");
    write(path.join(one, "references", "new.md"), "new\n");
    const dry = await runCli(["skills", "push", one, "--dry-run"], { env });
    expect(dry.stdout).toContain("would update code-review");
    expect((await account.rest("/v1/workspaces/me/skills/code-review")).body.version).toBe(1);

    const updated = await runCli(["skills", "push", one], { env });
    expect(updated.code).toBe(0);
    expect(updated.stdout).toContain("updated code-review (version 2)");
    const detail = (await account.rest("/v1/workspaces/me/skills/code-review")).body;
    expect(detail.files.map((f: { path: string }) => f.path).sort()).toEqual([
      "SKILL.md",
      "assets/logo.bin",
      "references/checklist.md",
      "references/new.md",
    ]);
  });

  it("publishes to a team with --workspace, and answers a usage error with exit code 2", async () => {
    expect(
      (await account.rest("/v1/workspaces", { method: "POST", body: { slug: "acme", name: "Acme" } })).status,
    ).toBe(201);
    const team = await runCli(["skills", "push", path.join(repo, "release-notes"), "--workspace", "acme"], { env });
    expect(team.code).toBe(0);
    expect((await account.rest("/v1/workspaces/acme/skills/release-notes")).status).toBe(200);

    const none = await runCli(["skills", "push", path.join(home.home, "repo", "skills", "not-a-skill")], { env });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/No skill found/);
    expect((await runCli(["skills", "push"], { env })).code).toBe(2);
    expect((await runCli(["skills", "push", repo, "--no-such-flag"], { env })).code).toBe(2);
  });
});

describe("loadout skills pull and list", () => {
  it("lists the items, and pulls one's files as stored, bytes and all", async () => {
    const list = await runCli(["skills", "list"], { env });
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^code-review {2}\[global, v2\] {2}Reviews diffs/m);
    const json = JSON.parse((await runCli(["skills", "list", "--json"], { env })).stdout) as { name: string }[];
    expect(json.map((i) => i.name).sort()).toEqual(["code-review", "release-notes", "staff-engineer"]);
    expect(list.stdout).toMatch(/^staff-engineer \(persona\)/m);

    const into = path.join(home.home, "pulled");
    const pulled = await runCli(["skills", "pull", "code-review", into], { env });
    expect(pulled.code).toBe(0);
    expect(readFileSync(path.join(into, "code-review", "SKILL.md"), "utf8")).toBe(
      readFileSync(path.join(repo, "code-review", "SKILL.md"), "utf8"),
    );
    expect([...readFileSync(path.join(into, "code-review", "assets", "logo.bin"))]).toEqual([0, 255, 1, 254, 2]);
    const team = await runCli(["skills", "pull", "acme/release-notes", into], { env });
    expect(team.code).toBe(0);
    expect(readFileSync(path.join(into, "release-notes", "SKILL.md"), "utf8")).toContain("name: release-notes");
    const missing = await runCli(["skills", "pull", "nope", into], { env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/"nope" was not found/);
  });
});
