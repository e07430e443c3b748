/**
 * The proxy end to end: real upstream MCP servers started here on loopback (server-everything,
 * sessionful 2025; a stateless 2026-07-28 server built with the SDK v2; a misbehaving one), the
 * real Node entry, and the official SDK clients at /mcp.
 */

import { mcpServers, workspaces } from "@loadout/db";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Account, signUpAccount } from "../helpers/account";
import { ENVELOPE, mcpHeaders } from "../helpers/mcp-http";
import { startTestServer, type TestServer } from "../helpers/server";
import { startEverything, type Upstream } from "../helpers/upstream";
import {
  type MisbehavingUpstream,
  type StatelessUpstream,
  shiftyDescription,
  startMisbehavingUpstream,
  startStatelessUpstream,
  TINY_PNG_BASE64,
} from "../helpers/upstreams";

let server: TestServer;
let account: Account;
let token: string;
let everything: Upstream;
let stateless: StatelessUpstream;
let misbehaving: MisbehavingUpstream;
let misbehaving2025: MisbehavingUpstream;
let legacySse: Upstream;

type Era = "modern" | "legacy";
async function connect(options: { path?: string; mode?: string; project?: string; era?: Era } = {}) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (options.mode) headers["x-loadout-mode"] = options.mode;
  if (options.project) headers["x-loadout-project"] = options.project;
  const client = new Client(
    { name: "proxy-test", version: "1.0.0" },
    options.era === "legacy" ? {} : { versionNegotiation: { mode: "auto" } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}${options.path ?? "/mcp"}`), { requestInit: { headers } }),
  );
  return client;
}

const names = async (client: Client) =>
  (await client.listTools({}, { cacheMode: "refresh" } as never)).tools.map((t) => t.name).sort();

const textOf = (result: { content?: unknown }) =>
  ((result.content ?? []) as { type: string; text?: string }[])
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("\n");

async function importServer(name: string, url: string, extra: Record<string, unknown> = {}) {
  const imported = await account.rest("/v1/workspaces/me/servers/import", {
    method: "POST",
    body: { text: JSON.stringify({ mcpServers: { [name]: { url, ...extra } } }) },
  });
  expect(imported.status, JSON.stringify(imported.body)).toBe(200);
  expect(imported.body.imported).toHaveLength(1);
}

const approveAll = async (slug: string) => {
  const approved = await account.rest(`/v1/workspaces/me/servers/${slug}/tools/approve`, { method: "POST", body: {} });
  expect(approved.status, JSON.stringify(approved.body)).toBe(200);
  return approved.body;
};

async function patchServer(slug: string, change: Record<string, unknown>) {
  const current = await account.rest(`/v1/workspaces/me/servers/${slug}`);
  const patched = await account.rest(`/v1/workspaces/me/servers/${slug}`, {
    method: "PATCH",
    body: { revision: current.body.revision, ...change },
  });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  return patched.body;
}

beforeAll(async () => {
  [everything, stateless, misbehaving, legacySse, misbehaving2025] = await Promise.all([
    startEverything(),
    startStatelessUpstream(),
    startMisbehavingUpstream(),
    startEverything("sse"),
    startMisbehavingUpstream({ era: "2025" }),
  ]);
  server = await startTestServer({ LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1" });
  account = await signUpAccount(server.url, "proxy@example.com");
  token = (await account.token(["mcp"])).secret;
  await importServer("tracker", stateless.url, { headers: { Authorization: "Bearer upstream-secret-value-123" } });
  await importServer("everything", everything.url);
  await importServer("odd", misbehaving.url);
  await patchServer("odd", { callTimeoutMs: 1500 });
});

afterAll(async () => {
  await server?.close();
  await Promise.all([
    everything?.stop(),
    stateless?.stop(),
    misbehaving?.stop(),
    legacySse?.stop(),
    misbehaving2025?.stop(),
  ]);
});

describe("connect on first use, the cache in Postgres and the pins", () => {
  it("fetches a never-listed server's tools on first use, and withholds them until approved", async () => {
    const before = stateless.requests();
    const client = await connect();
    const listed = await names(client);
    expect(stateless.requests()).toBeGreaterThan(before);
    expect(listed.filter((n) => n.startsWith("tracker_"))).toEqual([]);
    expect((await account.rest("/v1/workspaces/me/servers/tracker")).body.tools).toEqual({ total: 5, pending: 5 });
    const tools = await account.rest("/v1/workspaces/me/servers/tracker/tools");
    expect(tools.body.tools.map((t: { exposedName: string; pin: string }) => [t.exposedName, t.pin])).toEqual([
      ["tracker_issues", "new"],
      ["tracker_echo", "new"],
      ["tracker_progress", "new"],
      ["tracker_confirm", "new"],
      ["tracker_image", "new"],
    ]);
    expect(tools.body.tools[0].actions).toEqual(["list", "get", "create", "close"]);
    const refused = await client.callTool({ name: "tracker_echo", arguments: { text: "hi" } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/not approved yet/);
    expect(stateless.calls("echo")).toBe(0);
    await client.close();
  });

  it("serves approved tools with the upstream's annotations, and a second session costs nothing upstream", async () => {
    const approved = await approveAll("tracker");
    expect(approved.tools.every((t: { pin: string }) => t.pin === "approved")).toBe(true);
    const listed = await account.rest("/v1/workspaces/me/servers");
    expect(listed.body.servers.find((s: { slug: string }) => s.slug === "tracker").tools).toEqual({
      total: 5,
      pending: 0,
    });
    const before = stateless.requests();
    const client = await connect();
    const { tools } = await client.listTools({}, { cacheMode: "refresh" } as never);
    expect(stateless.requests()).toBe(before);
    const issues = tools.find((t) => t.name === "tracker_issues");
    expect(issues?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(issues?.title).toEqual(expect.any(String));
    expect(issues?.inputSchema.properties?.action).toMatchObject({
      enum: ["list", "get", "create", "close"],
    });
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["skills", "tracker_echo", "tracker_image"]));
    await client.close();
  });

  it("lists the built-in tools exactly as the SDK does, next to the upstream ones", async () => {
    const plain = await signUpAccount(server.url, "no-servers@example.com");
    const plainToken = (await plain.token(["mcp"])).secret;
    const sdkPath = new Client({ name: "plain", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
    await sdkPath.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${plainToken}` } },
      }),
    );
    const withUpstreams = await connect();
    const builtIns = (tools: { name: string }[]) =>
      tools.filter((t) => ["skills", "skill_edit"].includes(t.name)).sort((a, b) => (a.name < b.name ? -1 : 1));
    const fast = builtIns((await withUpstreams.listTools({}, { cacheMode: "refresh" } as never)).tools);
    const sdk = builtIns((await sdkPath.listTools({}, { cacheMode: "refresh" } as never)).tools);
    expect(fast).toHaveLength(2);
    expect(fast).toEqual(sdk);
    await sdkPath.close();
    await withUpstreams.close();
  });

  it("forwards a call once, on a warm connection costing one upstream request", async () => {
    const client = await connect();
    const created = await client.callTool({ name: "tracker_issues", arguments: { action: "create", title: "First" } });
    expect(created.isError).toBeFalsy();
    expect(stateless.calls("issues")).toBe(1);
    expect(stateless.issues.map((i) => i.title)).toEqual(["First"]);
    const before = stateless.requests();
    const listed = await client.callTool({ name: "tracker_issues", arguments: { action: "list" } });
    expect(textOf(listed)).toMatch(/First/);
    // The upstream's own identity stays on its hop.
    expect(JSON.stringify(listed)).not.toContain("upstream-stateless");
    expect(stateless.requests() - before).toBe(1);
    await client.close();
  });

  it("looks a call's tool up by its Mcp-Name header only when the body agrees, and refuses a disagreement unsent", async () => {
    // The endpoint starts the lookup from the header while the body arrives.
    const post = (header: string, name: string, args: Record<string, unknown>) =>
      fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: mcpHeaders(token, "tools/call", header),
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 7,
          method: "tools/call",
          params: { name, arguments: args, _meta: ENVELOPE },
        }),
      });
    const before = stateless.requests();
    const issues = stateless.calls("issues");
    const refused = await post("tracker_echo", "tracker_issues", { action: "create", title: "Never" });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error?: { code?: number } }).error?.code).toBe(-32020);
    expect(stateless.requests()).toBe(before);
    expect(stateless.calls("issues")).toBe(issues);
    expect(stateless.issues.map((i) => i.title)).not.toContain("Never");

    const agreed = await post("tracker_echo", "tracker_echo", { text: "agreed" });
    expect(agreed.status).toBe(200);
    const answer = (await agreed.json()) as { result?: { content?: { text?: string }[] } };
    expect(answer.result?.content?.[0]?.text).toContain("agreed");
    expect(stateless.requests() - before).toBe(1);
  });

  it("passes images through and forwards progress to a client that asked for it", async () => {
    const client = await connect();
    const image = await client.callTool({ name: "tracker_image", arguments: {} });
    expect(image.content).toEqual([expect.objectContaining({ type: "image", data: TINY_PNG_BASE64 })]);
    const progress: number[] = [];
    const result = await client.callTool(
      { name: "tracker_progress", arguments: {} },
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(result.isError).toBeFalsy();
    expect(progress).toEqual([1, 2, 3]);
    await client.close();
  });

  it("passes an upstream's input request (an elicitation) through to a 2026-07-28 client, and the answer back", async () => {
    const client = new Client(
      { name: "eliciting", version: "1.0.0" },
      { versionNegotiation: { mode: "auto" }, capabilities: { elicitation: { form: {} } } },
    );
    const asked: string[] = [];
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push(String(request.params.message));
      return { action: "accept", content: { confirm: true } };
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    const result = await client.callTool({ name: "tracker_confirm", arguments: { what: "the release" } });
    expect(textOf(result)).toBe("confirmed the release");
    expect(asked).toEqual(["Confirm the release?"]);
    expect(stateless.calls("confirm")).toBe(1);
    // Loadout could carry the request back, so it told the upstream it may ask.
    expect(stateless.callCapabilities().at(-1)).toMatchObject({ elicitation: {} });
    await client.close();
  });

  it("tells a 2025-era client that the tool needs input its revision cannot carry", async () => {
    const client = await connect({ era: "legacy" });
    const result = await client.callTool({ name: "tracker_confirm", arguments: { what: "x" } });
    // Loadout could not carry a request back to this client, so it told the upstream none may come.
    expect(stateless.callCapabilities().at(-1)).toEqual({});
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/needs input from you to run confirm/);
    await client.close();
  });

  it.each([
    ["/mcp", "tracker_confirm"],
    ["/mcp/s/me/tracker", "confirm"],
  ])(
    "carries an upstream's input request to a 2025-era client that declared elicitation (%s), and its answer back",
    async (path, tool) => {
      const client = new Client(
        { name: "eliciting-2025", version: "1.0.0" },
        { capabilities: { elicitation: { form: {} } } },
      );
      const asked: string[] = [];
      client.setRequestHandler("elicitation/create", async (request) => {
        asked.push(String(request.params.message));
        return { action: "accept", content: { confirm: asked.length === 1 } };
      });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${server.url}${path}`), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      expect(client.getNegotiatedProtocolVersion?.() ?? "2025").not.toBe("2026-07-28");
      const before = stateless.calls("confirm");
      // Two calls at once: each answer reaches its own call.
      const [first, second] = await Promise.all([
        client.callTool({ name: tool, arguments: { what: "the release" } }),
        client.callTool({ name: tool, arguments: { what: "the rollback" } }),
      ]);
      expect([textOf(first), textOf(second)].sort()).toEqual(
        asked[0] === "Confirm the release?"
          ? ["confirmed the release", "declined the rollback"]
          : ["confirmed the rollback", "declined the release"],
      );
      expect(asked.sort()).toEqual(["Confirm the release?", "Confirm the rollback?"]);
      expect(stateless.calls("confirm") - before).toBe(2);
      // The upstream was told what this client can be asked for: its session id carried it.
      expect(stateless.callCapabilities().at(-1)).toMatchObject({ elicitation: {} });
      await client.close();
    },
  );

  it("takes a 2025 client's answer only from the session and credentials that were asked", async () => {
    const forged = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
        "mcp-session-id": "lo1.not-ours.0000",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: "lo-ask-00000000-0000-0000-0000-000000000000", result: {} }),
    });
    // Acknowledged as any answer is, and taken by nobody: no call waits for it here.
    expect(forged.status).toBe(202);
    expect(await forged.text()).toBe("");
  });

  it("lists an upstream tool's output schema and passes its structured content through", async () => {
    const client = await connect();
    const { tools } = await client.listTools({}, { cacheMode: "refresh" } as never);
    expect(tools.find((t) => t.name === "tracker_echo")?.outputSchema).toMatchObject({
      type: "object",
      properties: { text: { type: "string" } },
    });
    const echoed = await client.callTool({ name: "tracker_echo", arguments: { text: "structured" } });
    expect(echoed.structuredContent).toEqual({ text: "structured" });
    await client.close();
  });

  it("serves a 2025-era client too", async () => {
    const client = await connect({ era: "legacy" });
    const echoed = await client.callTool({ name: "tracker_echo", arguments: { text: "from 2025" } });
    expect(textOf(echoed)).toBe("from 2025");
    await client.close();
  });

  it("serves one server's tools unprefixed at /mcp/s/{ws}/{slug}, and nothing else", async () => {
    const client = await connect({ path: "/mcp/s/me/tracker" });
    expect(await names(client)).toEqual(["confirm", "echo", "image", "issues", "progress"]);
    const echoed = await client.callTool({ name: "echo", arguments: { text: "single" } });
    expect(textOf(echoed)).toBe("single");
    await client.close();
    const missing = await fetch(`${server.url}/mcp/s/someone-else/tracker`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(missing.status).toBe(404);
  });

  it("reaches sessionful server-everything after Test and approval", async () => {
    const tested = await account.rest("/v1/workspaces/me/servers/everything/test", { method: "POST" });
    expect(tested.body.error).toBeNull();
    await approveAll("everything");
    const client = await connect();
    const echoed = await client.callTool({ name: "everything_echo", arguments: { message: "through loadout" } });
    expect(textOf(echoed)).toMatch(/through loadout/);
    await client.close();
  });

  it("answers server-everything's mid-call elicitation as the SDK client does, and the session goes on", async () => {
    // Loadout's upstream client declares elicitation, so server-everything offers this tool; on a
    // 2025 session the request comes on the call's own stream and is answered "Method not found".
    const client = await connect();
    const asked = await client.callTool({ name: "everything_trigger-elicitation-request", arguments: {} });
    expect(asked.isError).toBe(true);
    expect(textOf(asked)).toMatch(/-32601: Method not found/);
    const slow = await client.callTool({
      name: "everything_trigger-long-running-operation",
      arguments: { duration: 1, steps: 2 },
    });
    expect(textOf(slow)).toMatch(/Long running operation completed/);
    const echoed = await client.callTool({ name: "everything_echo", arguments: { message: "still there" } });
    expect(textOf(echoed)).toMatch(/still there/);
    await client.close();
  });
});

describe("legacy HTTP+SSE servers", () => {
  it("reaches a server recorded as SSE", async () => {
    await importServer("old-sse", legacySse.url, { type: "sse" });
    const tested = await account.rest("/v1/workspaces/me/servers/old-sse/test", { method: "POST" });
    expect(tested.body.error).toBeNull();
    expect(tested.body.server.transport).toBe("sse");
    await approveAll("old-sse");
    const client = await connect();
    expect(textOf(await client.callTool({ name: "old-sse_echo", arguments: { message: "over sse" } }))).toMatch(
      /over sse/,
    );
    await client.close();
  });

  it("falls back to HTTP+SSE when a URL given as streamable HTTP refuses the POST", async () => {
    await importServer("guess-sse", legacySse.url);
    const tested = await account.rest("/v1/workspaces/me/servers/guess-sse/test", { method: "POST" });
    expect(tested.body.error).toBeNull();
    expect(tested.body.tools.tools.map((t: { name: string }) => t.name)).toContain("echo");
  });
});

describe("what the server is", () => {
  it("drops the cached tools when the URL changes and keeps the user's pins and settings by name", async () => {
    await importServer("moving", stateless.url);
    await account.rest("/v1/workspaces/me/servers/moving/test", { method: "POST" });
    await approveAll("moving");
    await account.rest("/v1/workspaces/me/servers/moving/tools/echo", { method: "PATCH", body: { enabled: false } });
    const unchanged = await patchServer("moving", { label: "Moving tracker" });
    expect(unchanged.status).toBe("ok");
    const moved = await patchServer("moving", { url: stateless.url.replace("127.0.0.1", "localhost") });
    expect(moved.status).toBe("unknown");
    const before = stateless.requests();
    const client = await connect();
    const listed = await names(client);
    // Fetched again on first use after the change, with the settings kept.
    expect(stateless.requests()).toBeGreaterThan(before);
    expect(listed).toContain("moving_issues");
    expect(listed).not.toContain("moving_echo");
    await client.close();
    await patchServer("moving", { enabled: false });
  });
});

describe("tools/list_changed", () => {
  it("refreshes the cached list when the upstream announces a change, and withholds the new tool", async () => {
    const client = await connect();
    await client.callTool({ name: "tracker_echo", arguments: { text: "warm" } });
    stateless.addTool("late_arrival");
    await expect
      .poll(
        async () =>
          (await account.rest("/v1/workspaces/me/servers/tracker/tools")).body.tools.map(
            (t: { name: string }) => t.name,
          ),
        { timeout: 5000 },
      )
      .toContain("late_arrival");
    const tools = await account.rest("/v1/workspaces/me/servers/tracker/tools");
    expect(tools.body.tools.find((t: { name: string }) => t.name === "late_arrival").pin).toBe("new");
    expect(await names(client)).not.toContain("tracker_late_arrival");
    await client.close();
  });
});

describe("stale lists", () => {
  it("refreshes a list older than an hour in the background after a listing", async () => {
    const db = server.database.db;
    const [row] = await db.select().from(mcpServers).where(eq(mcpServers.slug, "tracker"));
    const old = new Date(Date.now() - 2 * 60 * 60_000);
    await db
      .update(mcpServers)
      .set({ toolsFetchedAt: old })
      .where(eq(mcpServers.id, row?.id ?? ""));
    await db
      .update(workspaces)
      .set({ catalogVersion: sql`${workspaces.catalogVersion} + 1` })
      .where(eq(workspaces.id, row?.workspaceId ?? ""));
    // Written straight in SQL: the listing must come after the server heard of it.
    await server.caughtUp();
    const before = stateless.requests();
    const client = await connect();
    expect(await names(client)).toContain("tracker_echo");
    await expect
      .poll(async () => (await account.rest("/v1/workspaces/me/servers/tracker")).body.toolsFetchedAt, {
        timeout: 5000,
      })
      .not.toBe(old.toISOString());
    expect(stateless.requests()).toBeGreaterThan(before);
    await client.close();
  });
});

describe("checks at dispatch", () => {
  it("refuses a listed tool once its server is narrowed to another project, in the same session", async () => {
    const client = await connect();
    expect(await names(client)).toContain("tracker_echo");
    await patchServer("tracker", { scope: { mode: "projects", projects: ["/work/other"] } });
    const refused = await client.callTool({ name: "tracker_echo", arguments: { text: "x" } });
    expect(textOf(refused)).toMatch(/not active for this session/);
    const inProject = await connect({ project: "/work/other/sub" });
    expect(textOf(await inProject.callTool({ name: "tracker_echo", arguments: { text: "y" } }))).toBe("y");
    await patchServer("tracker", { scope: { mode: "global", projects: [] } });
    await inProject.close();
    await client.close();
  });

  it("refuses a tool switched off", async () => {
    const off = await account.rest("/v1/workspaces/me/servers/tracker/tools/echo", {
      method: "PATCH",
      body: { enabled: false },
    });
    expect(off.body.enabled).toBe(false);
    const client = await connect();
    expect(await names(client)).not.toContain("tracker_echo");
    expect(textOf(await client.callTool({ name: "tracker_echo", arguments: { text: "x" } }))).toMatch(
      /not active for this session/,
    );
    await account.rest("/v1/workspaces/me/servers/tracker/tools/echo", { method: "PATCH", body: { enabled: true } });
    await client.close();
  });

  it("withholds a tool whose definition changed until the user approves the change", async () => {
    misbehaving.setShiftyVersion(1);
    const first = await account.rest("/v1/workspaces/me/servers/odd/test", { method: "POST" });
    expect(first.body.error).toBeNull();
    await approveAll("odd");
    const client = await connect();
    expect(await names(client)).toContain("odd_shifty");
    misbehaving.setShiftyVersion(2);
    await account.rest("/v1/workspaces/me/servers/odd/test", { method: "POST" });
    expect(await names(client)).not.toContain("odd_shifty");
    expect(textOf(await client.callTool({ name: "odd_shifty", arguments: {} }))).toMatch(/definition changed/);
    const tools = await account.rest("/v1/workspaces/me/servers/odd/tools");
    const shifty = tools.body.tools.find((t: { name: string }) => t.name === "shifty");
    expect(shifty).toMatchObject({
      pin: "changed",
      description: shiftyDescription(2),
      approved: { description: shiftyDescription(1) },
    });
    await account.rest("/v1/workspaces/me/servers/odd/tools/approve", { method: "POST", body: { tools: ["shifty"] } });
    expect(await names(client)).toContain("odd_shifty");
    await client.close();
  });
});

describe("plan mode", () => {
  it("refuses plan-safe actions the tool does not have", async () => {
    const bad = await account.rest("/v1/workspaces/me/servers/tracker/tools/issues", {
      method: "PATCH",
      body: { planSafeActions: ["list", "delete"] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/"delete" is not an action of this tool/);
  });

  it("lists only plan-safe tools, annotated, and refuses any other tool or action at dispatch", async () => {
    for (const [tool, planSafeActions] of [
      ["issues", ["list", "get"]],
      ["echo", ["*"]],
    ] as const) {
      const set = await account.rest(`/v1/workspaces/me/servers/tracker/tools/${tool}`, {
        method: "PATCH",
        body: { planSafeActions },
      });
      expect(set.status, JSON.stringify(set.body)).toBe(200);
    }
    const client = await connect({ mode: "plan" });
    const { tools } = await client.listTools({}, { cacheMode: "refresh" } as never);
    const tracker = tools.filter((t) => t.name.startsWith("tracker_")).map((t) => t.name);
    expect(tracker.sort()).toEqual(["tracker_echo", "tracker_issues"]);
    expect(tools.find((t) => t.name === "tracker_issues")?.description).toMatch(
      /Plan mode: only action "list", "get" are allowed/,
    );
    expect(tools.map((t) => t.name)).not.toContain("skill_edit");
    const creates = stateless.calls("issues");
    const refused = await client.callTool({ name: "tracker_issues", arguments: { action: "create", title: "No" } });
    expect(textOf(refused)).toMatch(/may only run action "list", action "get" in plan mode/);
    // The catalog hid tracker_image; a client calling it by name anyway is refused at dispatch.
    expect(textOf(await client.callTool({ name: "tracker_image", arguments: {} }))).toMatch(/not allowed in plan mode/);
    const listed = await client.callTool({ name: "tracker_issues", arguments: { action: "list" } });
    expect(listed.isError).toBeFalsy();
    expect(stateless.calls("issues")).toBe(creates + 1);
    expect(stateless.issues.map((i) => i.title)).not.toContain("No");
    await client.close();
  });
});

describe("a misbehaving upstream", () => {
  it("turns a hung call into an error after the server's timeout, telling the agent to verify", async () => {
    const client = await connect();
    const started = Date.now();
    const result = await client.callTool({ name: "odd_hang", arguments: {} });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/did not answer hang within 2 s\. It was sent once and not retried; it may have/);
    await client.close();
  });

  it("reports a dropped connection and garbage as errors, never retrying", async () => {
    const client = await connect();
    const dropped = await client.callTool({ name: "odd_drop", arguments: {} });
    expect(textOf(dropped)).toMatch(/broke during drop.*sent once and not retried/s);
    const garbage = await client.callTool({ name: "odd_garbage", arguments: {} });
    expect(garbage.isError).toBe(true);
    expect(textOf(garbage)).toMatch(/sent once and not retried/);
    await client.close();
  });

  it("cuts a 20 MB result to 1 MiB with a note", async () => {
    // Making and sending 20 MB can take longer than the 1.5 s the hang test needs, on a busy machine.
    await patchServer("odd", { callTimeoutMs: 30_000 });
    const client = await connect();
    const result = await client.callTool({ name: "odd_huge", arguments: {} });
    const text = textOf(result);
    expect(text.length).toBeLessThan(1024 * 1024 + 1000);
    expect(text.length).toBeGreaterThan(1024 * 1024);
    expect(text).toMatch(/Loadout cut this result: the server returned more than 1024 KiB of text/);
    await client.close();
  });

  it("forwards the client's cancellation upstream", async () => {
    await patchServer("odd", { callTimeoutMs: 30_000 });
    const client = await connect();
    const controller = new AbortController();
    const before = misbehaving.cancelled() + misbehaving.aborted();
    const call = client.callTool({ name: "odd_hang", arguments: {} }, { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 300));
    controller.abort();
    await expect(call).rejects.toThrow();
    await expect.poll(() => misbehaving.cancelled() + misbehaving.aborted(), { timeout: 5000 }).toBeGreaterThan(before);
    await client.close();
  });
});

describe("a misbehaving upstream on a 2025 revision, called inside its session without the SDK client", () => {
  beforeAll(async () => {
    await importServer("old", misbehaving2025.url);
    await patchServer("old", { callTimeoutMs: 1500 });
    const tested = await account.rest("/v1/workspaces/me/servers/old/test", { method: "POST" });
    expect(tested.body.error).toBeNull();
    await approveAll("old");
  });

  it("times out a hung call with the same error, and cancels it with notifications/cancelled", async () => {
    const client = await connect();
    const direct = misbehaving2025.directCalls();
    const cancelled = misbehaving2025.cancelled();
    const result = await client.callTool({ name: "old_hang", arguments: {} });
    expect(textOf(result)).toMatch(/did not answer hang within 2 s\. It was sent once and not retried/);
    expect(misbehaving2025.directCalls()).toBe(direct + 1);
    await expect.poll(() => misbehaving2025.cancelled(), { timeout: 5000 }).toBe(cancelled + 1);
    await client.close();
  });

  it("reports a dropped connection and garbage as errors, and cuts 20 MB to 1 MiB", async () => {
    const client = await connect();
    const direct = misbehaving2025.directCalls();
    expect(textOf(await client.callTool({ name: "old_drop", arguments: {} }))).toMatch(
      /broke during drop.*sent once and not retried/s,
    );
    for (const kind of ["bytes", "rpc"]) {
      const garbage = await client.callTool({ name: "old_garbage", arguments: { kind } });
      expect(garbage.isError).toBe(true);
      expect(textOf(garbage)).toMatch(/sent once and not retried/);
    }
    // Making and sending 20 MB can take longer than the 1.5 s the hang test needs, on a busy machine.
    await patchServer("old", { callTimeoutMs: 30_000 });
    const huge = textOf(await client.callTool({ name: "old_huge", arguments: {} }));
    expect(huge).toMatch(/Loadout cut this result: the server returned more than 1024 KiB of text/);
    // Each failure dropped the session; the next call opened a new one and went direct again.
    expect(misbehaving2025.directCalls()).toBe(direct + 4);
    await client.close();
  });

  it("passes the client's cancellation on as notifications/cancelled", async () => {
    await patchServer("old", { callTimeoutMs: 30_000 });
    const client = await connect();
    const cancelled = misbehaving2025.cancelled();
    const controller = new AbortController();
    const call = client.callTool({ name: "old_hang", arguments: {} }, { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 300));
    controller.abort();
    await expect(call).rejects.toThrow();
    await expect.poll(() => misbehaving2025.cancelled(), { timeout: 5000 }).toBe(cancelled + 1);
    await client.close();
  });
});

describe("ceilings", () => {
  it("serves at most 16 active servers to a session, skipping the newest and logging it", async () => {
    const other = await signUpAccount(server.url, "many-servers@example.com");
    const otherToken = (await other.token(["mcp"])).secret;
    const mcpServers = Object.fromEntries(
      Array.from({ length: 17 }, (_, i) => [`many-${String(i).padStart(2, "0")}`, { url: stateless.url }]),
    );
    const imported = await other.rest("/v1/workspaces/me/servers/import", {
      method: "POST",
      body: { text: JSON.stringify({ mcpServers }) },
    });
    expect(imported.body.imported).toHaveLength(17);
    const client = new Client({ name: "cap-test", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${otherToken}` } },
      }),
    );
    await names(client);
    for (const slug of Object.keys(mcpServers))
      await other.rest(`/v1/workspaces/me/servers/${slug}/tools/approve`, { method: "POST", body: {} });
    const listed = await names(client);
    const servers = new Set(listed.filter((n) => n.startsWith("many-")).map((n) => n.split("_")[0]));
    expect(servers.size).toBe(16);
    expect(servers.has("many-16")).toBe(false);
    expect((await other.rest("/v1/workspaces/me/servers/many-16")).body.toolsFetchedAt).toBeNull();
    expect(server.logs.some((l) => String(l.msg).includes("over the per-session cap"))).toBe(true);
    await client.close();
  });
});

describe("secrets and failures", () => {
  it("sends the upstream its own configured header, never the caller's Loadout token", async () => {
    const seen = stateless.authorizations();
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.some((value) => value.includes(token))).toBe(false);
    expect(seen.some((value) => value.includes("lo_"))).toBe(false);
    expect(seen).toContain("Bearer upstream-secret-value-123");
  });

  it("never returns or logs a header value", async () => {
    const view = await account.rest("/v1/workspaces/me/servers/tracker");
    expect(JSON.stringify(view.body)).not.toContain("upstream-secret-value-123");
    expect(JSON.stringify(server.logs)).not.toContain("upstream-secret-value-123");
  });

  it("keeps a secret in the URL sealed: shown masked, used whole, kept when the shown URL comes back", async () => {
    const secretUrl = `${stateless.url}?api_key=sekret-value-999`;
    await importServer("keyed", secretUrl);
    const view = await account.rest("/v1/workspaces/me/servers/keyed");
    expect(view.body).toMatchObject({ url: `${stateless.url}?api_key=••••`, urlMasked: true });
    const tested = await account.rest("/v1/workspaces/me/servers/keyed/test", { method: "POST" });
    expect(tested.body.error).toBeNull();
    const kept = await patchServer("keyed", { url: view.body.url, label: "Keyed" });
    expect(kept).toMatchObject({ status: "ok", urlMasked: true });
    const replaced = await patchServer("keyed", { url: stateless.url });
    expect(replaced).toMatchObject({ status: "unknown", urlMasked: false, url: stateless.url });
    expect(JSON.stringify(server.logs)).not.toContain("sekret-value-999");
    expect(JSON.stringify([view.body, tested.body, kept])).not.toContain("sekret-value-999");
  });

  it("marks an unreachable server failed on first use and does not connect again until it is edited", async () => {
    await importServer("gone", "http://127.0.0.1:9/mcp");
    const client = await connect();
    const listed = await names(client);
    expect(listed.some((n) => n.startsWith("gone_"))).toBe(false);
    const view = await account.rest("/v1/workspaces/me/servers/gone");
    expect(view.body).toMatchObject({ status: "failed", lastError: expect.any(String) });
    const checkedAt = view.body.checkedAt;
    await names(client);
    expect((await account.rest("/v1/workspaces/me/servers/gone")).body.checkedAt).toBe(checkedAt);
    const edited = await patchServer("gone", { label: "Gone" });
    expect(edited.status).toBe("unknown");
    await client.close();
  });
});
