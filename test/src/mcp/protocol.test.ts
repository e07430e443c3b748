/**
 * The MCP endpoint at the wire level: raw HTTP with fetch, no SDK client. Every status and error
 * code that PROTOCOLS.md (§1, §2, §6 and the appendix) names for the endpoint, in the stateless
 * 2026-07-28 era and in the legacy 2025-11-25 era served on the same path.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Account, signUpAccount } from "../helpers/account";
import { startTestServer, type TestServer } from "../helpers/server";

const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";
const SKILL_NAME = "protocol-probe";
const ACCEPT_BOTH = "application/json, text/event-stream";

let server: TestServer;
let account: Account;
let secret = "";
let nextId = 1;

interface RpcMessage {
  jsonrpc?: string;
  id?: string | number | null;
  method?: string;
  result?: Record<string, unknown> & { _meta?: Record<string, unknown> };
  error?: { code: number; message: string; data?: Record<string, unknown> };
}

interface Reply {
  status: number;
  headers: Headers;
  contentType: string;
  text: string;
  /** The JSON-RPC response: the JSON body, or the SSE message event carrying the request's id. */
  message: RpcMessage | null;
}

/** Parses a JSON or SSE body and picks the JSON-RPC response for `id` (or the only error without one). */
function readMessage(contentType: string, text: string, id: string | number | null): RpcMessage | null {
  if (text.trim() === "") return null;
  const candidates: RpcMessage[] = [];
  if (contentType.startsWith("text/event-stream")) {
    for (const block of text.split(/\r?\n\r?\n/)) {
      let event = "message";
      const data: string[] = [];
      for (const line of block.split(/\r?\n/)) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (event !== "message" || data.length === 0 || data.join("").trim() === "") continue;
      candidates.push(JSON.parse(data.join("\n")) as RpcMessage);
    }
  } else {
    try {
      candidates.push(JSON.parse(text) as RpcMessage);
    } catch {
      return null;
    }
  }
  const responses = candidates.filter((m) => "result" in m || "error" in m);
  return (
    responses.find((m) => m.id === id) ??
    responses.find((m) => m.id === null || m.id === undefined) ??
    responses[0] ??
    null
  );
}

async function reply(res: Response, id: string | number | null): Promise<Reply> {
  const contentType = res.headers.get("content-type") ?? "";
  const text = await res.text();
  return { status: res.status, headers: res.headers, contentType, text, message: readMessage(contentType, text, id) };
}

function envelope(version = MODERN, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    "io.modelcontextprotocol/protocolVersion": version,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "protocol-test", version: "1.0.0" },
    ...overrides,
  };
}

interface ModernCall {
  method: string;
  params?: Record<string, unknown>;
  /** `_meta` of the body; `null` sends no `_meta` at all. */
  meta?: Record<string, unknown> | null;
  /** Header overrides; a value of `null` removes the header. */
  headers?: Record<string, string | null>;
  query?: string;
  token?: string | null;
}

/** A 2026-07-28 request: the `_meta` envelope plus `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`. */
async function modern(call: ModernCall): Promise<Reply> {
  const id = nextId++;
  const params = call.params ?? {};
  const body = {
    jsonrpc: "2.0",
    id,
    method: call.method,
    params: call.meta === null ? params : { ...params, _meta: call.meta ?? envelope() },
  };
  const name =
    call.method === "tools/call" || call.method === "prompts/get"
      ? (params.name as string | undefined)
      : call.method === "resources/read"
        ? (params.uri as string | undefined)
        : undefined;
  const headers: Record<string, string | null> = {
    authorization: call.token === null ? null : `Bearer ${call.token ?? secret}`,
    "content-type": "application/json",
    accept: ACCEPT_BOTH,
    "mcp-protocol-version": MODERN,
    "mcp-method": call.method,
    "mcp-name": name ?? null,
    ...call.headers,
  };
  const res = await fetch(`${server.url}/mcp${call.query ?? ""}`, {
    method: "POST",
    headers: Object.fromEntries(Object.entries(headers).filter((e): e is [string, string] => e[1] !== null)),
    body: JSON.stringify(body),
  });
  return reply(res, id);
}

/** A 2025-era request: no `_meta` envelope, no `Mcp-Method`; `MCP-Protocol-Version` as given. */
async function legacy(
  method: string,
  params: Record<string, unknown> | undefined,
  options: { version?: string | null; notification?: boolean } = {},
): Promise<Reply> {
  const id = options.notification ? null : nextId++;
  const headers: Record<string, string> = {
    authorization: `Bearer ${secret}`,
    "content-type": "application/json",
    accept: ACCEPT_BOTH,
  };
  if (options.version !== null) headers["mcp-protocol-version"] = options.version ?? LEGACY;
  const res = await fetch(`${server.url}/mcp`, {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      ...(id === null ? {} : { id }),
      method,
      ...(params ? { params } : {}),
    }),
  });
  return reply(res, id);
}

const rest: Account["rest"] = (path, init) => account.rest(path, init);
const createToken = (name: string, scopes: string[]) => account.token(scopes, { name });

const CHALLENGE = () =>
  `Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp", scope="mcp"`;
const toolNames = (r: Reply) => ((r.message?.result?.tools ?? []) as { name: string }[]).map((t) => t.name);

beforeAll(async () => {
  server = await startTestServer();
  account = await signUpAccount(server.url, "protocol@example.com");
  expect(account.cookie).toContain("lo_session=");
  secret = (await createToken("mcp", ["mcp"])).secret;
  expect(secret).toMatch(/^lo_/);
  const skill = await rest("/v1/workspaces/me/skills", {
    method: "POST",
    body: {
      name: SKILL_NAME,
      description: "Probes the MCP wire protocol; use when testing.",
      instructions: "# Probe\n\nSay hello.\n",
    },
  });
  expect(skill.status).toBe(201);
});
afterAll(() => server?.close());

describe("stateless 2026-07-28: successful requests", () => {
  // supportedVersions lists the stateless revisions only: the SDK (2.4.0) negotiates 2025-era
  // versions through initialize, which this same endpoint serves (see the legacy cases below).
  it("server/discover answers 200 with versions, capabilities, instructions, serverInfo and cache hints", async () => {
    const r = await modern({ method: "server/discover" });
    expect(r.status).toBe(200);
    expect(r.message?.error).toBeUndefined();
    const result = r.message?.result ?? {};
    expect(result.resultType).toBe("complete");
    expect(result.supportedVersions).toEqual(expect.arrayContaining([MODERN]));
    expect(result.capabilities).toMatchObject({ tools: expect.any(Object) });
    expect(result.instructions).toEqual(expect.stringContaining(SKILL_NAME));
    expect(result._meta?.["io.modelcontextprotocol/serverInfo"]).toMatchObject({ name: "loadout" });
    expect(typeof result.ttlMs).toBe("number");
    expect(Number.isInteger(result.ttlMs)).toBe(true);
    expect(result.ttlMs as number).toBeGreaterThanOrEqual(0);
    expect(["public", "private"]).toContain(result.cacheScope);
  });

  it("tools/list gives skills and skill_edit with explicit annotations and cache hints, in a stable order", async () => {
    const first = await modern({ method: "tools/list" });
    expect(first.status).toBe(200);
    const result = first.message?.result ?? {};
    expect(result.resultType).toBe("complete");
    expect([...toolNames(first)].sort()).toEqual(["skill_edit", "skills"]);
    for (const tool of result.tools as { name: string; annotations?: Record<string, unknown> }[]) {
      expect(typeof tool.annotations?.readOnlyHint, tool.name).toBe("boolean");
      expect(typeof tool.annotations?.destructiveHint, tool.name).toBe("boolean");
      expect(typeof tool.annotations?.openWorldHint, tool.name).toBe("boolean");
    }
    const tools = result.tools as { name: string; annotations: Record<string, unknown> }[];
    expect(tools.find((t) => t.name === "skills")?.annotations).toMatchObject({ readOnlyHint: true });
    expect(tools.find((t) => t.name === "skill_edit")?.annotations).toMatchObject({ readOnlyHint: false });
    expect(typeof result.ttlMs).toBe("number");
    expect(result.ttlMs as number).toBeGreaterThanOrEqual(0);
    expect(["public", "private"]).toContain(result.cacheScope);
    const second = await modern({ method: "tools/list" });
    expect(second.status).toBe(200);
    expect(toolNames(second)).toEqual(toolNames(first));
    expect(second.message?.result?.tools).toEqual(result.tools);
  });

  it("tools/call skills list completes with resultType complete", async () => {
    const r = await modern({ method: "tools/call", params: { name: "skills", arguments: { action: "list" } } });
    expect(r.status).toBe(200);
    expect(r.message?.error).toBeUndefined();
    expect(r.message?.result?.resultType).toBe("complete");
    expect(r.message?.result?.isError).toBeFalsy();
    const structured = r.message?.result?.structuredContent as { items?: { name: string }[] } | undefined;
    expect((structured?.items ?? []).map((i) => i.name)).toContain(SKILL_NAME);
  });
});

describe("stateless 2026-07-28: refusals", () => {
  it("a header version that differs from the _meta version is 400 with -32020", async () => {
    const r = await modern({ method: "tools/list", headers: { "mcp-protocol-version": LEGACY } });
    expect(r.status).toBe(400);
    expect(r.message?.error?.code).toBe(-32020);
  });

  it("a missing MCP-Protocol-Version header with a 2026 _meta is 400 with -32020", async () => {
    const r = await modern({ method: "tools/list", headers: { "mcp-protocol-version": null } });
    expect(r.status).toBe(400);
    expect(r.message?.error?.code).toBe(-32020);
  });

  it("an unsupported version is 400 with -32022, naming the supported and the requested versions", async () => {
    const r = await modern({
      method: "tools/list",
      meta: envelope("2099-01-01"),
      headers: { "mcp-protocol-version": "2099-01-01" },
    });
    expect(r.status).toBe(400);
    expect(r.message?.error?.code).toBe(-32022);
    const data = r.message?.error?.data ?? {};
    expect(Array.isArray(data.supported)).toBe(true);
    expect(data.supported).toContain(MODERN);
    expect(data.requested).toBe("2099-01-01");
  });

  it("a missing Mcp-Method header is 400 with -32020", async () => {
    const r = await modern({ method: "tools/list", headers: { "mcp-method": null } });
    expect(r.status).toBe(400);
    expect(r.message?.error?.code).toBe(-32020);
  });

  it("an Mcp-Method header that differs from the body's method is 400 with -32020", async () => {
    const r = await modern({ method: "tools/list", headers: { "mcp-method": "server/discover" } });
    expect(r.status).toBe(400);
    expect(r.message?.error?.code).toBe(-32020);
  });

  it("a tools/call without Mcp-Name is 400 with -32020", async () => {
    const r = await modern({
      method: "tools/call",
      params: { name: "skills", arguments: { action: "list" } },
      headers: { "mcp-name": null },
    });
    expect(r.status).toBe(400);
    expect(r.message?.error?.code).toBe(-32020);
  });

  it("an Mcp-Name that differs from params.name is 400 with -32020", async () => {
    const r = await modern({
      method: "tools/call",
      params: { name: "skills", arguments: { action: "list" } },
      headers: { "mcp-name": "skill_edit" },
    });
    expect(r.status).toBe(400);
    expect(r.message?.error?.code).toBe(-32020);
  });

  it("a _meta without clientCapabilities is 400 with -32602", async () => {
    const meta = envelope();
    delete meta["io.modelcontextprotocol/clientCapabilities"];
    const r = await modern({ method: "tools/list", meta });
    expect(r.status).toBe(400);
    expect(r.message?.error?.code).toBe(-32602);
  });

  it("an unknown method is 404 with -32601", async () => {
    const r = await modern({ method: "foo/bar" });
    expect(r.status).toBe(404);
    expect(r.message?.error?.code).toBe(-32601);
  });

  it("GET and DELETE are 405: the stateless server offers no GET stream and no sessions", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(`${server.url}/mcp`, {
        method,
        headers: { authorization: `Bearer ${secret}`, accept: "text/event-stream" },
      });
      await res.body?.cancel();
      expect(res.status, method).toBe(405);
      expect(res.headers.get("allow"), method).toContain("POST");
    }
  });

  it("a malformed JSON body is 400 with -32700", async () => {
    const res = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${secret}`,
        "content-type": "application/json",
        accept: ACCEPT_BOTH,
        "mcp-protocol-version": MODERN,
        "mcp-method": "tools/list",
      },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list",',
    });
    const r = await reply(res, null);
    expect(r.status).toBe(400);
    expect(r.message?.error?.code).toBe(-32700);
  });

  it("a body over the 4 MiB limit is 413 (with Content-Length)", async () => {
    const padding = "x".repeat(5 * 1024 * 1024);
    const r = await modern({
      method: "tools/call",
      params: { name: "skills", arguments: { action: "get", name: SKILL_NAME, path: padding } },
    });
    expect(r.status).toBe(413);
  });

  // The limit holds however the body arrives: a declared length, or a stream.
  it("a body over the 4 MiB limit is 413 also when streamed without Content-Length", async () => {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: nextId++,
      method: "tools/call",
      params: {
        name: "skills",
        arguments: { action: "get", name: SKILL_NAME, path: "x".repeat(5 * 1024 * 1024) },
        _meta: envelope(),
      },
    });
    const bytes = new TextEncoder().encode(body);
    const chunk = 64 * 1024;
    let offset = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (offset >= bytes.byteLength) return controller.close();
        controller.enqueue(bytes.subarray(offset, offset + chunk));
        offset += chunk;
      },
    });
    const res = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${secret}`,
        "content-type": "application/json",
        accept: ACCEPT_BOTH,
        "mcp-protocol-version": MODERN,
        "mcp-method": "tools/call",
        "mcp-name": "skills",
      },
      body: stream,
      duplex: "half",
    } as RequestInit & { duplex: "half" });
    await res.body?.cancel();
    expect(res.status).toBe(413);
  });
});

describe("authorization and Origin", () => {
  it("no Authorization is 401 with the protected-resource challenge", async () => {
    const r = await modern({ method: "tools/list", token: null });
    expect(r.status).toBe(401);
    expect(r.headers.get("www-authenticate")).toBe(CHALLENGE());
  });

  it("a revoked token is 401 with error=invalid_token", async () => {
    const revoked = await createToken("to-revoke", ["mcp"]);
    expect((await modern({ method: "tools/list", token: revoked.secret })).status).toBe(200);
    expect((await rest(`/v1/tokens/${revoked.id}`, { method: "DELETE" })).status).toBe(204);
    const r = await modern({ method: "tools/list", token: revoked.secret });
    expect(r.status).toBe(401);
    const challenge = r.headers.get("www-authenticate") ?? "";
    expect(challenge.startsWith(CHALLENGE())).toBe(true);
    expect(challenge).toContain('error="invalid_token"');
  });

  it("a token without the mcp scope is 403 with error=insufficient_scope", async () => {
    const narrow = await createToken("read-only", ["skills:read"]);
    const r = await modern({ method: "tools/list", token: narrow.secret });
    expect(r.status).toBe(403);
    const challenge = r.headers.get("www-authenticate") ?? "";
    expect(challenge.startsWith("Bearer ")).toBe(true);
    expect(challenge).toContain('error="insufficient_scope"');
  });

  it("a foreign Origin is 403; the server's own Origin and no Origin are served", async () => {
    const foreign = await modern({ method: "tools/list", headers: { origin: "https://evil.example" } });
    expect(foreign.status).toBe(403);
    const own = await modern({ method: "tools/list", headers: { origin: new URL(server.url).origin } });
    expect(own.status).toBe(200);
    expect(toolNames(own)).toContain("skills");
    const none = await modern({ method: "tools/list" });
    expect(none.status).toBe(200);
    expect(toolNames(none)).toContain("skills");
  });
});

describe("legacy 2025-11-25 on the same endpoint", () => {
  it("initialize answers 200 with 2025-11-25 and the instructions; tools/list needs no session", async () => {
    const init = await legacy(
      "initialize",
      { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: "legacy-raw", version: "1.0.0" } },
      { version: null },
    );
    expect(init.status).toBe(200);
    expect(init.message?.result?.protocolVersion).toBe(LEGACY);
    expect(init.message?.result?.instructions).toEqual(expect.stringContaining(SKILL_NAME));
    expect(init.message?.result?.serverInfo).toMatchObject({ name: "loadout" });
    const list = await legacy("tools/list", {});
    expect(list.status).toBe(200);
    expect([...toolNames(list)].sort()).toEqual(["skill_edit", "skills"]);
  });

  it("initialize echoes 2025-03-26 when a client asks for it", async () => {
    const init = await legacy(
      "initialize",
      { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "older", version: "1.0.0" } },
      { version: null },
    );
    expect(init.status).toBe(200);
    expect(init.message?.result?.protocolVersion).toBe("2025-03-26");
  });

  it("a notification is 202 with an empty body", async () => {
    const r = await legacy("notifications/initialized", undefined, { notification: true });
    expect(r.status).toBe(202);
    expect(r.text).toBe("");
  });

  it("an unsupported MCP-Protocol-Version header is 400", async () => {
    const r = await legacy("tools/list", {}, { version: "1999-01-01" });
    expect(r.status).toBe(400);
    expect(r.message?.error).toBeDefined();
  });
});

describe("session modes", () => {
  it("plan mode lists only skills and refuses skill_edit with -32602, creating nothing", async () => {
    const list = await modern({ method: "tools/list", query: "?mode=plan" });
    expect(list.status).toBe(200);
    expect(toolNames(list)).toEqual(["skills"]);
    const call = await modern({
      method: "tools/call",
      query: "?mode=plan",
      params: {
        name: "skill_edit",
        arguments: { action: "create", name: "plan-probe", description: "Made in plan mode.", instructions: "x" },
      },
    });
    // §6: an unknown tool is a -32602 protocol error, not an isError result. The spec names no HTTP
    // status for it; the SDK answers 200.
    expect([200, 400]).toContain(call.status);
    expect(call.message?.result).toBeUndefined();
    expect(call.message?.error?.code).toBe(-32602);
    expect((await rest("/v1/workspaces/me/skills/plan-probe")).status).toBe(404);
    const all = await rest("/v1/workspaces/me/skills");
    expect(all.status).toBe(200);
    expect((all.body.items as { name: string }[]).map((i) => i.name)).not.toContain("plan-probe");
  });

  it("an unknown mode is 400", async () => {
    const r = await modern({ method: "tools/list", query: "?mode=bogus" });
    expect(r.status).toBe(400);
    expect(r.message?.error).toBeDefined();
  });
});
