/**
 * Client fitting (issue 20, seed 003) with the real MCP SDK client on both eras: after a
 * `loadout sync` on this device, a client that reads the folders the CLI wrote (by its handshake
 * name) and sends the device id gets no block for the kinds it reads; with a stale or missing
 * sync, another device's id, another user's device, or any other client name, the whole list.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Account, signUpAccount } from "../helpers/account";
import { cliEnv, runCli, tempHome } from "../helpers/cli";
import { startTestServer, type TestServer } from "../helpers/server";

let server: TestServer;
let account: Account;
let mcpToken: string;
let home: ReturnType<typeof tempHome>;
let device: string;
let skewMs = 0;

type Era = "2025" | "2026-07-28";
const ERAS: Era[] = ["2025", "2026-07-28"];
const DAY = 86_400_000;

/** The instructions block a client of this name and era gets, sending these headers. */
async function instructionsFor(name: string, era: Era, headers: Record<string, string>, token = mcpToken) {
  const client = new Client(
    { name, version: "1.0.0" },
    era === "2026-07-28" ? { versionNegotiation: { mode: "auto" } } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}`, ...headers } },
    }),
  );
  try {
    expect(client.getProtocolEra?.()).toBe(era === "2026-07-28" ? "modern" : "legacy");
    return client.getInstructions() ?? "";
  } finally {
    await client.close();
  }
}

const listed = (block: string) => block.split("\n").filter((l) => l.startsWith("- "));
const WHOLE = ["- review-diffs: Reviews diffs.", "- staff-engineer (persona): A staff engineer."];

beforeAll(async () => {
  server = await startTestServer({}, { clock: () => new Date(Date.now() + skewMs) });
  account = await signUpAccount(server.url, "fitting@example.com");
  mcpToken = (await account.token(["mcp"])).secret;
  for (const body of [
    { name: "review-diffs", description: "Reviews diffs.", instructions: "Check.\n" },
    { kind: "persona", name: "staff-engineer", description: "A staff engineer.", instructions: "Be one.\n" },
  ])
    expect((await account.rest("/v1/workspaces/me/skills", { method: "POST", body })).status).toBe(201);
  home = tempHome([".claude", ".codex"]);
  const env = cliEnv(home.home, server.url);
  mkdirSync(path.join(home.home, "shop"));
  expect((await runCli(["login", "--token", (await account.token(["skills:read"])).secret], { env })).code).toBe(0);
  const synced = await runCli(["sync", "--project", path.join(home.home, "shop")], { env });
  expect(synced.code, synced.stderr).toBe(0);
  device = /reported as device (dev_[a-z0-9]+)/.exec(synced.stdout)?.[1] ?? "";
  expect(device).toMatch(/^dev_/);
});
afterAll(async () => {
  home?.remove();
  await server?.close();
});

describe.each(ERAS)("fitting on %s", (era) => {
  it("gives claude-code on a freshly synced device no block: it reads both kinds from its folders", async () => {
    const block = await instructionsFor("claude-code", era, { "X-Loadout-Device": device });
    expect(listed(block)).toEqual([]);
  });

  it("gives codex the personas only: the sync reported it reads skills", async () => {
    const block = await instructionsFor("codex-mcp-client", era, { "X-Loadout-Device": device });
    expect(listed(block)).toEqual(["- staff-engineer (persona): A staff engineer."]);
  });

  it("gives the whole list to claude-ai, to an unnamed device, and to another device", async () => {
    expect(listed(await instructionsFor("claude-ai", era, { "X-Loadout-Device": device }))).toEqual(WHOLE);
    expect(listed(await instructionsFor("claude-code", era, {}))).toEqual(WHOLE);
    expect(
      listed(await instructionsFor("claude-code", era, { "X-Loadout-Device": "dev_nevernevernevernevernever" })),
    ).toEqual(WHOLE);
    // Cursor was not installed on this device, so its sync did not report it.
    expect(listed(await instructionsFor("cursor-vscode", era, { "X-Loadout-Device": device }))).toEqual(WHOLE);
  });

  it("does not fit another user's session to this user's device", async () => {
    const other = await signUpAccount(server.url, `other-${era}@example.com`);
    const body = { name: "their-skill", description: "Theirs.", instructions: "x\n" };
    expect((await other.rest("/v1/workspaces/me/skills", { method: "POST", body })).status).toBe(201);
    const theirs = (await other.token(["mcp"])).secret;
    const block = await instructionsFor("claude-code", era, { "X-Loadout-Device": device }, theirs);
    expect(listed(block)).toEqual(["- their-skill: Theirs."]);
  });
});

describe("a sync's kinds and age", () => {
  it("leaves the personas in for claude-code when only skills were synced", async () => {
    const res = await account.rest("/v1/devices/sync", {
      method: "POST",
      body: {
        device,
        name: "laptop",
        readers: [{ client: "claude-code", kinds: ["skill"] }],
        written: { skill: 1, persona: 0 },
      },
    });
    expect(res.status).toBe(200);
    for (const era of ERAS)
      expect(listed(await instructionsFor("claude-code", era, { "X-Loadout-Device": device }))).toEqual([
        "- staff-engineer (persona): A staff engineer.",
      ]);
  });

  it("gives the whole list again once the last sync is more than 7 days old", async () => {
    skewMs = 7 * DAY - 60_000;
    try {
      expect(listed(await instructionsFor("claude-code", "2025", { "X-Loadout-Device": device }))).toEqual([
        "- staff-engineer (persona): A staff engineer.",
      ]);
      skewMs = 7 * DAY + 60_000;
      for (const era of ERAS)
        expect(listed(await instructionsFor("claude-code", era, { "X-Loadout-Device": device }))).toEqual(WHOLE);
      const devices = (await account.rest("/v1/devices")).body.devices;
      expect(devices[0]).toMatchObject({ deviceId: device, fitting: false });
    } finally {
      skewMs = 0;
    }
  });

  it("refuses a bad report whole, naming each field, and stores nothing", async () => {
    const res = await account.rest("/v1/devices/sync", {
      method: "POST",
      body: { device, name: "", readers: [{ client: "notepad", kinds: [] }], written: { skill: -1, persona: 0 } },
    });
    expect(res.status).toBe(400);
    const paths = res.body.error.details.map((d: { path: string }) => d.path);
    expect(paths).toEqual(expect.arrayContaining(["name", "readers.0.client", "readers.0.kinds", "written.skill"]));
    expect((await account.rest("/v1/devices")).body.devices[0].name).toBe("laptop");
    const badId = await account.rest("/v1/devices/sync", {
      method: "POST",
      body: { device: "bad id!", name: "x", readers: [], written: { skill: 0, persona: 0 } },
    });
    expect(badId.status).toBe(400);
    expect(badId.body.error.details).toEqual([{ path: "device", message: expect.stringMatching(/device id must be/) }]);
  });

  it("forgets a device: another user's is a 404 like a missing one, and the whole list comes back", async () => {
    const other = await signUpAccount(server.url, "forget@example.com");
    expect((await other.rest(`/v1/devices/${device}`, { method: "DELETE" })).status).toBe(404);
    expect((await account.rest(`/v1/devices/${device}`, { method: "DELETE" })).status).toBe(204);
    expect((await account.rest(`/v1/devices/${device}`, { method: "DELETE" })).status).toBe(404);
    expect(listed(await instructionsFor("claude-code", "2026-07-28", { "X-Loadout-Device": device }))).toEqual(WHOLE);
  });
});
