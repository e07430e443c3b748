/**
 * What a warm MCP call reads: nothing from Postgres (principal, skill, manifest, upstream tool
 * are in memory), and yet every change, made through the API or straight in Postgres, reaches
 * the next call, because the triggers of migration 0010 notify each instance on commit.
 */
import { apiTokens } from "@loadout/db";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Account, addApprovedServer, signUpAccount } from "../helpers/account";
import { ENVELOPE, mcpHeaders } from "../helpers/mcp-http";
import { startTestServer, type TestServer } from "../helpers/server";
import { type StatelessUpstream, startStatelessUpstream } from "../helpers/upstreams";

const META = { ...ENVELOPE, "io.modelcontextprotocol/clientInfo": { name: "hot-cache-test", version: "1" } };

let server: TestServer;
let upstream: StatelessUpstream;
let account: Account;
let token: { id: string; secret: string };
const queries: string[] = [];

async function call(
  name: string,
  args: Record<string, unknown>,
  secret = token.secret,
  extra: { headers?: Record<string, string>; meta?: Record<string, unknown> } = {},
) {
  const res = await fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: { ...mcpHeaders(secret, "tools/call", name), ...extra.headers },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name, arguments: args, _meta: { ...META, ...extra.meta } },
    }),
  });
  const raw = await res.text();
  const json = raw.startsWith("{")
    ? JSON.parse(raw)
    : JSON.parse(
        raw
          .split("\n")
          .filter((l) => l.startsWith("data:"))
          .pop()
          ?.slice(5) ?? "{}",
      );
  const text = ((json.result?.content ?? []) as { text?: string }[]).map((c) => c.text ?? "").join("");
  const lane = /lane;desc="(\w+)"/.exec(res.headers.get("server-timing") ?? "")?.[1] ?? "sdk";
  return { status: res.status, isError: Boolean(json.result?.isError), text, error: json.error, lane };
}

/** The queries the app ran while `work` ran, except the activity log's batched inserts (written after the answers). */
async function queriesDuring(work: () => Promise<unknown>): Promise<string[]> {
  // What earlier calls deferred (a first client sighting) lands before the count starts.
  await new Promise((r) => setTimeout(r, 100));
  queries.length = 0;
  await work();
  // Work deferred after the response (a last-used time, a client sighting) would show up here.
  await new Promise((r) => setTimeout(r, 50));
  return queries.filter((q) => !/^\s*insert into "audit_events"/i.test(q));
}

const exec = (statement: ReturnType<typeof sql>) => server.database.db.execute(statement);
/** How far the server's clock runs ahead of the real one (the last-use test moves it). */
let ahead = 0;
/** Until this instance has heard of the SQL change just made (its notification arrives asynchronously). */
const settle = () => server.caughtUp();

beforeAll(async () => {
  server = await startTestServer(
    { LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1" },
    { logQuery: (q) => queries.push(q), clock: () => new Date(Date.now() + ahead) },
  );
  upstream = await startStatelessUpstream();
  account = await signUpAccount(server.url, "hot@example.com");
  token = await account.token(["mcp"]);
  const created = await account.rest("/v1/workspaces/me/skills", {
    method: "POST",
    body: { name: "warm-skill", description: "Served from memory.", instructions: "# Warm\n\nHot path body.\n" },
  });
  expect(created.status).toBe(201);
  await addApprovedServer(account, "hot", upstream.url);
}, 60_000);

afterAll(async () => {
  await upstream?.stop();
  await server?.close();
});

describe("a warm call", () => {
  it("skills get reads nothing from Postgres", async () => {
    expect((await call("skills", { action: "get", name: "warm-skill" })).text).toContain("Hot path body.");
    const ran = await queriesDuring(async () => {
      const again = await call("skills", { action: "get", name: "warm-skill" });
      expect(again.text).toContain("Hot path body.");
    });
    expect(ran).toEqual([]);
  });

  it("a proxied call reads nothing from Postgres", async () => {
    expect((await call("hot_echo", { text: "one" })).text).toBe("one");
    const ran = await queriesDuring(async () => {
      expect((await call("hot_echo", { text: "two" })).text).toBe("two");
    });
    expect(ran).toEqual([]);
  });

  it("the first call of a new token does read it (nothing is guessed)", async () => {
    const other = await account.token(["mcp"], { name: "second" });
    const ran = await queriesDuring(async () => {
      expect((await call("skills", { action: "get", name: "warm-skill" }, other.secret)).text).toContain("Hot path");
    });
    expect(ran.some((q) => /from "api_tokens"/i.test(q))).toBe(true);
  });
});

describe("a warm call (its session and tool memoised, see api/src/services/mcp/session-memo.ts)", () => {
  /**
   * Calls until the route is warm. A route is kept only if nothing was heard of while its call was
   * decided (a new token's own notification may arrive then): it is the second call, or a later
   * one, that takes it.
   */
  const warmUp = async (secret = token.secret, headers?: Record<string, string>) => {
    await settle();
    for (let attempt = 0; attempt < 20; attempt++) {
      const answer = await call("hot_echo", { text: "warm" }, secret, { headers });
      expect(answer.text).toBe("warm");
      if (answer.lane === "warm") return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error("no call took a warm route");
  };

  it("is taken by the same call again, and reads nothing from Postgres", async () => {
    await warmUp();
    const ran = await queriesDuring(async () => {
      const again = await call("hot_echo", { text: "again" });
      expect(again).toMatchObject({ lane: "warm", text: "again" });
    });
    expect(ran).toEqual([]);
  });

  it("stops with the token: revoked through the API, or in SQL", async () => {
    const byApi = await account.token(["mcp"], { name: "warm-revoked-by-api" });
    await warmUp(byApi.secret);
    expect((await account.rest(`/v1/tokens/${byApi.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await call("hot_echo", { text: "x" }, byApi.secret)).status).toBe(401);

    const inSql = await account.token(["mcp"], { name: "warm-revoked-in-sql" });
    await warmUp(inSql.secret);
    await exec(sql`update api_tokens set revoked_at = now() where id = ${inSql.id}`);
    await settle();
    expect((await call("hot_echo", { text: "x" }, inSql.secret)).status).toBe(401);
  });

  it("stops with the tool: switched off, or its server narrowed to another project, in SQL", async () => {
    await warmUp();
    await exec(sql`update mcp_server_tools set enabled = false where name = 'echo'`);
    await settle();
    const off = await call("hot_echo", { text: "x" });
    expect(off.isError).toBe(true);
    // It says what happened and where to undo it, not a scope problem.
    expect(off.text).toBe(
      "Tool hot_echo is not active for this session: it was switched off on server hot's page in the Loadout console (Tools, Enabled).",
    );
    await exec(sql`update mcp_server_tools set enabled = true where name = 'echo'`);
    await settle();

    await warmUp();
    await exec(sql`update mcp_servers set scope_mode = 'projects', scope_projects = '{/elsewhere}' where slug = 'hot'`);
    await settle();
    const narrowed = await call("hot_echo", { text: "x" });
    expect(narrowed.isError).toBe(true);
    expect(narrowed.text).toBe(
      "Tool hot_echo is not active for this session: its server hot is active only on chosen projects, and this session names none (send X-Loadout-Project or ?project=).",
    );
    await exec(sql`update mcp_servers set scope_mode = 'global', scope_projects = '{}' where slug = 'hot'`);
    await settle();
    expect((await call("hot_echo", { text: "back" })).text).toBe("back");
  });

  it("is not the route of a call in another mode, nor one that names another tool in its body", async () => {
    await warmUp();
    const plan = await call("hot_echo", { text: "x" }, token.secret, { headers: { "x-loadout-mode": "plan" } });
    expect(plan.isError).toBe(true);
    expect(plan.text).toMatch(/not allowed in plan mode/);
    // The header names the warm tool, the body another: refused unsent, as on the usual path.
    const res = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: mcpHeaders(token.secret, "tools/call", "hot_echo"),
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "hot_add", arguments: { a: 1, b: 2 }, _meta: META },
      }),
    });
    expect(res.status).toBe(400);
  });

  it("leaves to the usual path a client that declares roots without a project, or elicitation", async () => {
    await warmUp();
    const roots = await call("hot_echo", { text: "roots" }, token.secret, {
      meta: { "io.modelcontextprotocol/clientCapabilities": { roots: {} } },
    });
    // Its session is the one decided before (nothing names a project, so it is not asked): the
    // pipeline answers it; the roots question itself is decided for each call.
    expect(roots.text).toBe("roots");
    expect(roots.lane).toMatch(/^(fast|warm)$/);
    const elicits = await call("hot_echo", { text: "asks" }, token.secret, {
      meta: { "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } },
    });
    expect(elicits).toMatchObject({ lane: "sdk", text: "asks" });
  });
});

describe("a change reaches the next call, through the API or straight in Postgres", () => {
  it("a skill's new text, saved through the API", async () => {
    await call("skills", { action: "get", name: "warm-skill" });
    const current = await account.rest("/v1/workspaces/me/skills/warm-skill");
    const updated = await account.rest("/v1/workspaces/me/skills/warm-skill", {
      method: "PATCH",
      body: { revision: current.body.revision, instructions: "# Warm\n\nThe second text.\n" },
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect((await call("skills", { action: "get", name: "warm-skill" })).text).toContain("The second text.");
  });

  it("a skill switched off in SQL", async () => {
    expect((await call("skills", { action: "get", name: "warm-skill" })).isError).toBe(false);
    await exec(sql`update skills set enabled = false where name = 'warm-skill'`);
    await settle();
    const refused = await call("skills", { action: "get", name: "warm-skill" });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/not active for this session/);
    await exec(sql`update skills set enabled = true where name = 'warm-skill'`);
    await settle();
    expect((await call("skills", { action: "get", name: "warm-skill" })).isError).toBe(false);
  });

  it("an upstream tool disabled in SQL", async () => {
    expect((await call("hot_echo", { text: "on" })).text).toBe("on");
    await exec(sql`update mcp_server_tools set enabled = false where name = 'echo'`);
    await settle();
    const refused = await call("hot_echo", { text: "off" });
    expect(refused.isError || refused.error !== undefined).toBe(true);
    await exec(sql`update mcp_server_tools set enabled = true where name = 'echo'`);
    await settle();
    expect((await call("hot_echo", { text: "back" })).text).toBe("back");
  });

  it("a token revoked in SQL, and one whose scopes lost mcp", async () => {
    const revoked = await account.token(["mcp"], { name: "revoked-in-sql" });
    expect((await call("skills", { action: "list" }, revoked.secret)).status).toBe(200);
    await exec(sql`update api_tokens set revoked_at = now() where id = ${revoked.id}`);
    await settle();
    expect((await call("skills", { action: "list" }, revoked.secret)).status).toBe(401);

    const narrowed = await account.token(["mcp"], { name: "narrowed-in-sql" });
    expect((await call("skills", { action: "list" }, narrowed.secret)).status).toBe(200);
    await exec(sql`update api_tokens set scopes = '{skills:read}' where id = ${narrowed.id}`);
    await settle();
    expect((await call("skills", { action: "list" }, narrowed.secret)).status).toBe(403);
  });

  it("a token revoked through the API, at once", async () => {
    const revoked = await account.token(["mcp"], { name: "revoked-by-api" });
    expect((await call("skills", { action: "list" }, revoked.secret)).status).toBe(200);
    expect((await account.rest(`/v1/tokens/${revoked.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await call("skills", { action: "list" }, revoked.secret)).status).toBe(401);
  });

  it("a saved endpoint deleted through the API, at once", async () => {
    const created = await account.rest("/v1/endpoints", { method: "POST", body: { name: "pinned", mode: "plan" } });
    expect(created.status).toBe(201);
    const list = () =>
      fetch(`${server.url}${created.body.path}`, {
        method: "POST",
        headers: mcpHeaders(token.secret, "tools/list"),
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: META } }),
      });
    expect((await list()).status).toBe(200);
    expect((await list()).status).toBe(200);
    expect((await account.rest(`/v1/endpoints/${created.body.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await list()).status).toBe(404);
  });

  it("records last use to the minute for a token served from memory", async () => {
    const fresh = await account.token(["mcp"], { name: "last-used" });
    const lastUsed = async () => {
      const [row] = await server.database.db
        .select({ at: apiTokens.lastUsedAt })
        .from(apiTokens)
        .where(eq(apiTokens.id, fresh.id));
      return row?.at ? row.at.getTime() : null;
    };
    const started = Date.now();
    await call("skills", { action: "list" }, fresh.secret);
    await expect.poll(lastUsed).not.toBeNull();
    const first = (await lastUsed()) ?? 0;
    expect(first).toBeGreaterThanOrEqual(started - 1000);
    // Half a minute on, the token comes from memory and nothing is written.
    ahead = 30_000;
    expect(await queriesDuring(() => call("skills", { action: "list" }, fresh.secret))).toEqual([]);
    expect(await lastUsed()).toBe(first);
    // Past a minute, it is read again and that read records the use.
    ahead = 90_000;
    await call("skills", { action: "list" }, fresh.secret);
    await expect.poll(lastUsed).toBeGreaterThanOrEqual(started + 90_000);
    ahead = 0;
  });
});
