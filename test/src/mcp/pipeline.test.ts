/**
 * The pipeline answers plain `tools/call` and `tools/list` requests itself, without the SDK's
 * per-request server, and must answer exactly as the SDK's path does (parity.test.ts holds every
 * host to the parity list). Here: what it answers itself and what it leaves to the SDK, calls on a
 * memoised session and tool, remembered listings, and refusals, against a server with the SDK's
 * path only (LOADOUT_MCP_FAST_LANE=0), which also takes MCP POSTs off the Node adapter.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Account, addApprovedServer, signUpAccount } from "../helpers/account";
import { mcpHeaders } from "../helpers/mcp-http";
import { asJsonHeaders, prepareParityAccount } from "../helpers/mcp-parity";
import { startTestServer, type TestServer } from "../helpers/server";
import { type StatelessUpstream, startStatelessUpstream } from "../helpers/upstreams";

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "parity-test", version: "1" },
};

interface Side {
  server: TestServer;
  account: Account;
  token: string;
}
let fast: Side;
let sdk: Side;
let upstream: StatelessUpstream;

async function prepare(env: Record<string, string>): Promise<Side> {
  const server = await startTestServer({ LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1", ...env });
  const account = await signUpAccount(server.url, "parity@example.com");
  const token = (await account.token(["mcp"])).secret;
  // The parity list's account: two skills, the server `up` with `issues` plan-safe and `image` off.
  await prepareParityAccount(account, (a, slug) => addApprovedServer(a, slug, upstream.url));
  return { server, account, token };
}

async function call(side: Side, body: Record<string, unknown>, headers: Record<string, string> = {}, query = "") {
  const params = body.params as { name?: string } | undefined;
  const res = await fetch(`${side.server.url}/mcp${query}`, {
    method: "POST",
    headers: { ...mcpHeaders(side.token, "tools/call", params?.name), ...headers },
    body: JSON.stringify(body),
  });
  return answerOf(res);
}

/** A tools/call of a 2025-era client after its handshake: no envelope, the negotiated revision in the header. */
async function legacyCall(side: Side, body: Record<string, unknown>, query = "") {
  const { _meta: _, ...params } = body.params as Record<string, unknown>;
  const res = await fetch(`${side.server.url}/mcp${query}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${side.token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
    },
    body: JSON.stringify({ ...body, params }),
  });
  return answerOf(res);
}

/** An answer's JSON-RPC message: the body, or the data of an event stream's one event. */
function parsed(body: string): unknown {
  const data = /^data: (.*)$/m.exec(body)?.[1];
  return JSON.parse(data ?? body);
}

/** Headers that differ between any two answers (framing, the clock, the request's own id and time). */
const VARYING = new Set(["date", "content-length", "transfer-encoding", "connection", "keep-alive", "x-request-id"]);

async function answerOf(res: Response, origin?: string) {
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (VARYING.has(name)) return;
    const same = origin ? value.replaceAll(origin, "<origin>") : value;
    headers[name] = name === "server-timing" ? same.replace(/dur=[\d.]+/, "dur=…") : same;
  });
  expect(res.headers.get("x-request-id")).toMatch(/^req_/);
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    lane: /lane;desc="(\w+)"/.exec(res.headers.get("server-timing") ?? "")?.[1] ?? "sdk",
    headers,
    body: (await res.text()).trim(),
  };
}

/**
 * The lanes of an answer the pipeline wrote itself: "warm" when its session and tool were
 * memoised, "fast" when something was decided for it; "sdk" is the SDK's per-request server.
 */
const ANSWERED_BY_PIPELINE = /^(fast|warm)$/;

/** The headers apart from Server-Timing, which names the lane. */
const withoutTiming = ({ "server-timing": _, ...rest }: Record<string, string>) => rest;

const request = (name: string, args?: Record<string, unknown>, id: string | number = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, ...(args ? { arguments: args } : {}), _meta: META },
});

beforeAll(async () => {
  upstream = await startStatelessUpstream();
  fast = await prepare({});
  sdk = await prepare({ LOADOUT_MCP_FAST_LANE: "0" });
}, 120_000);

afterAll(async () => {
  await fast?.server.close();
  await sdk?.server.close();
  await upstream?.stop();
});

describe("the pipeline answers as the SDK's path does", () => {
  const laneCases: [string, Record<string, unknown>, string?][] = [
    ["skills get", request("skills", { action: "get", name: "review" })],
    ["skills get of another file", request("skills", { action: "get", name: "review", path: "notes.md" })],
    ["skills get of a missing file", request("skills", { action: "get", name: "review", path: "nope.md" })],
    ["skills get of an unknown item", request("skills", { action: "get", name: "nobody" })],
    ["skills get without a name", request("skills", { action: "get" }, "string-id")],
    ["skills get, second chunk", request("skills", { action: "get", name: "long", start: 20_000 })],
    ["skills list", request("skills", { action: "list" })],
    ["skills list in plan mode", request("skills", { action: "list" }), "?mode=plan"],
    ["an upstream tool", request("up_echo", { text: "hello" })],
    ["an upstream tool with an action", request("up_issues", { action: "list" })],
    [
      "an upstream tool, an action plan mode forbids",
      request("up_issues", { action: "create", title: "x" }),
      "?mode=plan",
    ],
    ["a switched-off upstream tool", request("up_image", {})],
    ["an upstream tool with bad arguments (the upstream says so)", request("up_echo", { text: 42 })],
  ];
  /** Two answers alike but for the lane that gave them (and what differs between any two answers). */
  const expectSameAnswer = (a: Awaited<ReturnType<typeof call>>, b: Awaited<ReturnType<typeof call>>) => {
    // Where the SDK's 2025 transport streams one `message` event, the pipeline answers the same
    // message as one JSON body (see its encode.ts); any other stream must match frame for frame.
    const oneEvent =
      b.type === "text/event-stream" &&
      a.type === "application/json" &&
      b.body.trim().replace(/data: .*/, "") === "event: message\n";
    expect({ status: a.status, type: a.type, body: parsed(a.body) }).toEqual({
      status: b.status,
      type: oneEvent ? "application/json" : b.type,
      body: parsed(b.body),
    });
    if (b.type === "text/event-stream" && !oneEvent)
      expect(a.body.replace(/data: .*/, "")).toBe(b.body.replace(/data: .*/, ""));
    const headers = withoutTiming(b.headers);
    expect(withoutTiming(a.headers)).toEqual(oneEvent ? asJsonHeaders(headers) : headers);
  };

  // A call the pipeline answered leaves its session and tool memoised: the same call again takes them.
  const upstreamCases = laneCases.filter(([, body]) =>
    String((body.params as { name: string }).name).startsWith("up_"),
  );
  it.each(upstreamCases)("%s, again on its memoised session and tool, on both eras", async (_, body, query) => {
    const eras = [(side: Side) => call(side, body, {}, query), (side: Side) => legacyCall(side, body, query)];
    for (const send of eras) {
      // Kept only if nothing was heard of while the call was decided: a later call takes it.
      let a = await send(fast);
      for (let attempt = 0; a.lane !== "warm" && attempt < 20; attempt++) {
        await new Promise((r) => setTimeout(r, 25));
        a = await send(fast);
      }
      const b = await send(sdk);
      expect(a.lane).toBe("warm");
      expectSameAnswer(a, b);
    }
  });

  it("answers plain calls itself, and leaves the rest to the SDK", async () => {
    expect((await call(fast, request("skills", { action: "get", name: "review" }))).lane).toMatch(ANSWERED_BY_PIPELINE);
    expect((await call(fast, request("up_echo", { text: "x" }))).lane).toMatch(ANSWERED_BY_PIPELINE);
    // Arguments the schema refuses: the SDK writes that error.
    expect((await call(fast, request("skills", { action: "delete", name: "review" }))).lane).toBe("sdk");
    // A progress token needs the SDK's event stream.
    const progress = request("up_echo", { text: "x" });
    progress.params._meta = { ...META, progressToken: "p1" } as typeof META;
    expect((await call(fast, progress)).lane).toBe("sdk");
    // A header that disagrees with the body is the SDK's to refuse.
    const mismatch = await call(fast, request("skills", { action: "list" }), { "mcp-name": "other" });
    expect(mismatch.lane).toBe("sdk");
    expect(mismatch.status).toBe(400);
  });

  it("a listing is remembered per catalog, answered as the SDK did, and forgotten when the catalog changes", async () => {
    const list = (side: Side, query = "") =>
      call(
        side,
        { jsonrpc: "2.0", id: "l1", method: "tools/list", params: { _meta: META } },
        { "mcp-method": "tools/list" },
        query,
      );
    const first = await list(fast);
    const again = await list(fast);
    const reference = await list(sdk);
    expect(first.lane).toBe("sdk");
    expect(again.lane).toMatch(ANSWERED_BY_PIPELINE);
    expect(reference.lane).toBe("sdk");
    expect(JSON.parse(again.body)).toEqual(JSON.parse(reference.body));
    expect(JSON.parse(first.body)).toEqual(JSON.parse(reference.body));
    const names = (answer: { body: string }) =>
      (JSON.parse(answer.body).result.tools as { name: string }[]).map((t) => t.name).sort();
    expect(names(again)).toContain("up_echo");
    // Plan mode has its own listing (no skill_edit, only plan-safe tools), remembered apart.
    await list(fast, "?mode=plan");
    const plan = await list(fast, "?mode=plan");
    expect(plan.lane).toMatch(ANSWERED_BY_PIPELINE);
    expect(JSON.parse(plan.body)).toEqual(JSON.parse((await list(sdk, "?mode=plan")).body));
    expect(names(plan)).not.toContain("skill_edit");
    expect(names(plan)).toContain("up_issues");

    // A tool switched off changes the catalog: the remembered answer goes with it.
    for (const side of [fast, sdk]) {
      const off = await side.account.rest("/v1/workspaces/me/servers/up/tools/echo", {
        method: "PATCH",
        body: { enabled: false },
      });
      expect(off.status).toBe(200);
    }
    const changed = await list(fast);
    expect(names(changed)).not.toContain("up_echo");
    expect(JSON.parse(changed.body)).toEqual(JSON.parse((await list(sdk)).body));
    for (const side of [fast, sdk])
      await side.account.rest("/v1/workspaces/me/servers/up/tools/echo", { method: "PATCH", body: { enabled: true } });
    expect(names(await list(fast))).toContain("up_echo");
  });

  const sdkCases: [string, Record<string, unknown>, Record<string, string>?][] = [
    ["arguments the schema refuses", request("skills", { action: "delete", name: "review" })],
    ["an unknown tool", request("nobody_here", {})],
    ["a header that disagrees", request("skills", { action: "list" }), { "mcp-name": "other" }],
  ];
  it.each(sdkCases)("%s: the same answer from both servers", async (_, body, headers) => {
    const a = await call(fast, body, headers);
    const b = await call(sdk, body, headers);
    expect({ status: a.status, body: JSON.parse(a.body) }).toEqual({ status: b.status, body: JSON.parse(b.body) });
    expect(a.headers).toEqual(b.headers);
  });
});

describe("the Node adapter refuses as Hono does", () => {
  const body = JSON.stringify(request("skills", { action: "list" }));
  const base = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
    "mcp-name": "skills",
  };
  const cases: [string, string, (side: Side) => RequestInit][] = [
    ["no token", "/mcp", () => ({ method: "POST", headers: base, body })],
    [
      "an unknown token",
      "/mcp",
      () => ({ method: "POST", headers: { ...base, authorization: "Bearer lo_nobody" }, body }),
    ],
    [
      "another site's page",
      "/mcp",
      (side) => ({
        method: "POST",
        headers: { ...base, authorization: `Bearer ${side.token}`, origin: "https://evil.example" },
        body,
      }),
    ],
    [
      "a body that is not JSON",
      "/mcp",
      (side) => ({ method: "POST", headers: { ...base, authorization: `Bearer ${side.token}` }, body: "{nope" }),
    ],
    [
      "a body over the limit",
      "/mcp",
      (side) => ({
        method: "POST",
        headers: { ...base, authorization: `Bearer ${side.token}` },
        body: `{"pad":"${"x".repeat(5 * 1024 * 1024)}"}`,
      }),
    ],
    [
      "an unknown mode",
      "/mcp?mode=yolo",
      (side) => ({ method: "POST", headers: { ...base, authorization: `Bearer ${side.token}` }, body }),
    ],
    [
      "an endpoint that does not exist",
      "/mcp/e/nope",
      (side) => ({ method: "POST", headers: { ...base, authorization: `Bearer ${side.token}` }, body }),
    ],
    [
      "a single server of a workspace that does not exist",
      "/mcp/s/nobody/up",
      (side) => ({ method: "POST", headers: { ...base, authorization: `Bearer ${side.token}` }, body }),
    ],
  ];
  it.each(cases)("%s", async (_, path, init) => {
    const a = await answerOf(await fetch(`${fast.server.url}${path}`, init(fast)), fast.server.url);
    const b = await answerOf(await fetch(`${sdk.server.url}${path}`, init(sdk)), sdk.server.url);
    expect(a.status).toBeGreaterThanOrEqual(400);
    expect({ status: a.status, headers: a.headers, body: withoutRequestId(a.body) }).toEqual({
      status: b.status,
      headers: b.headers,
      body: withoutRequestId(b.body),
    });
  });
});

/** An error body's request id, which names the request it answered. */
const withoutRequestId = (body: string) => body.replace(/"requestId":"req_\w+"/, '"requestId":"…"');
