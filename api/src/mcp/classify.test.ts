import { describe, expect, it } from "vitest";
import { plainCall, plainLegacyNotification } from "./classify";
import { answerWithResult, modernResultJson } from "./encode";

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "test", version: "1" },
};
const HEADERS: Record<string, string> = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": "tools/call",
  "mcp-name": "skills",
};
const BODY = {
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "skills", arguments: { action: "get", name: "x" }, _meta: META },
};

function qualify(change: { headers?: Record<string, string | undefined>; body?: unknown; method?: string } = {}) {
  const headers = { ...HEADERS, ...change.headers };
  return plainCall(change.method ?? "POST", (name) => headers[name], change.body ?? BODY);
}

const withParams = (params: Record<string, unknown>) => ({ ...BODY, params: { ...BODY.params, ...params } });
const withMeta = (meta: Record<string, unknown>) => withParams({ _meta: { ...META, ...meta } });

describe("plainCall", () => {
  it("takes the plainest 2026-07-28 tools/call", () => {
    expect(qualify()).toEqual({
      id: 1,
      name: "skills",
      args: { action: "get", name: "x" },
      clientCapabilities: {},
      era: "modern",
    });
    expect(qualify({ body: { ...BODY, id: "abc" } })?.id).toBe("abc");
    expect(qualify({ body: withParams({ arguments: undefined }) })?.args).toBeUndefined();
    expect(qualify({ headers: { "mcp-name": " skills " } })).not.toBeNull();
    expect(qualify({ headers: { "content-type": "application/json; charset=utf-8" } })).not.toBeNull();
  });

  // Each of these is the SDK's to answer: an error it writes, or an answer the lane cannot give.
  const sdkCases: [string, Parameters<typeof qualify>[0]][] = [
    ["a GET", { method: "GET" }],
    ["another content type", { headers: { "content-type": "text/plain" } }],
    ["an Accept without SSE", { headers: { accept: "application/json" } }],
    ["an Accept without JSON", { headers: { accept: "text/event-stream" } }],
    ["no protocol version header", { headers: { "mcp-protocol-version": undefined } }],
    ["a 2025 protocol version header", { headers: { "mcp-protocol-version": "2025-11-25" } }],
    ["no Mcp-Method", { headers: { "mcp-method": undefined } }],
    ["an Mcp-Method that disagrees", { headers: { "mcp-method": "tools/list" } }],
    ["an Mcp-Name that disagrees", { headers: { "mcp-name": "other" } }],
    ["a Base64 Mcp-Name", { headers: { "mcp-name": "=?base64?c2tpbGxz?=" } }],
    ["no Mcp-Name", { headers: { "mcp-name": undefined } }],
    ["a batch", { body: [BODY] }],
    ["a notification (no id)", { body: { jsonrpc: "2.0", method: "tools/call", params: BODY.params } }],
    ["a null id", { body: { ...BODY, id: null } }],
    ["a fractional id", { body: { ...BODY, id: 1.5 } }],
    ["another jsonrpc", { body: { ...BODY, jsonrpc: "1.0" } }],
    ["another method", { body: { ...BODY, method: "tools/list" } }],
    ["an extra top-level key", { body: { ...BODY, extra: true } }],
    ["a task", { body: withParams({ task: { ttl: 1000 } }) }],
    ["input responses (a retry)", { body: withParams({ inputResponses: {} }) }],
    ["arguments that are not an object", { body: withParams({ arguments: [1] }) }],
    ["no name", { body: withParams({ name: "" }) }],
    ["no envelope", { body: withParams({ _meta: undefined }) }],
    ["a 2025 envelope", { body: withMeta({ "io.modelcontextprotocol/protocolVersion": "2025-11-25" }) }],
    ["a progress token", { body: withMeta({ progressToken: "p1" }) }],
    ["a log level", { body: withMeta({ "io.modelcontextprotocol/logLevel": "debug" }) }],
    ["capabilities that are not objects", { body: withMeta({ "io.modelcontextprotocol/clientCapabilities": [] }) }],
    [
      "a capability that is not an object",
      { body: withMeta({ "io.modelcontextprotocol/clientCapabilities": { roots: true } }) },
    ],
    ["client info without a version", { body: withMeta({ "io.modelcontextprotocol/clientInfo": { name: "x" } }) }],
  ];
  it.each(sdkCases)("leaves %s to the SDK", (_, change) => {
    expect(qualify(change)).toBeNull();
  });
});

describe("plainCall from a 2025-era client", () => {
  const LEGACY_HEADERS = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2025-11-25",
  };
  const LEGACY_BODY = { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "skills", arguments: {} } };
  const legacy = (headers: Record<string, string | undefined> = {}, body: unknown = LEGACY_BODY) =>
    plainCall("POST", (name) => ({ ...LEGACY_HEADERS, ...headers })[name as keyof typeof LEGACY_HEADERS], body);

  it("takes a plain call after the handshake, with or without Loadout's session id", () => {
    expect(legacy()).toEqual({ id: 4, name: "skills", args: {}, clientCapabilities: {}, era: "legacy" });
    expect(legacy({ "mcp-session-id": "lo1.x.y" })?.era).toBe("legacy");
    expect(legacy({ "mcp-protocol-version": "2025-03-26" })?.era).toBe("legacy");
  });

  it.each([
    ["no protocol version header (2025-03-26 assumed: the SDK's to judge)", { "mcp-protocol-version": undefined }],
    ["an unknown revision", { "mcp-protocol-version": "2024-11-05" }],
    ["an Mcp-Method header", { "mcp-method": "tools/call" }],
    ["an Mcp-Name header", { "mcp-name": "skills" }],
  ])("leaves %s to the SDK", (_, headers) => {
    expect(legacy(headers)).toBeNull();
  });

  it.each([
    ["a progress token", { ...LEGACY_BODY, params: { ...LEGACY_BODY.params, _meta: { progressToken: 1 } } }],
    ["a task", { ...LEGACY_BODY, params: { ...LEGACY_BODY.params, task: {} } }],
    ["another method", { ...LEGACY_BODY, method: "tools/list" }],
    ["a batch", [LEGACY_BODY]],
  ])("leaves a body with %s to the SDK", (_, body) => {
    expect(legacy({}, body)).toBeNull();
  });
});

describe("plainLegacyNotification", () => {
  const HEADERS_2025: Record<string, string | undefined> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2025-11-25",
  };
  const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" };
  const notification = (
    headers: Record<string, string | undefined> = {},
    body: unknown = INITIALIZED,
    method = "POST",
  ) => plainLegacyNotification(method, (name) => ({ ...HEADERS_2025, ...headers })[name], body);

  it("takes a 2025-era client's notification after its handshake, with params or without", () => {
    expect(notification()).toBe(true);
    expect(notification({ "mcp-session-id": "lo1.x.y", "mcp-protocol-version": "2025-06-18" })).toBe(true);
    expect(notification({}, { jsonrpc: "2.0", method: "notifications/roots/list_changed", params: {} })).toBe(true);
  });

  it.each([
    ["no protocol version header", { "mcp-protocol-version": undefined }],
    ["an unknown revision", { "mcp-protocol-version": "1999-01-01" }],
    ["the 2026-07-28 revision", { "mcp-protocol-version": "2026-07-28" }],
    ["an Mcp-Method header", { "mcp-method": "notifications/initialized" }],
    ["an Accept without event streams", { accept: "application/json" }],
    ["another content type", { "content-type": "text/plain" }],
  ])("leaves one with %s to the SDK", (_, headers) => {
    expect(notification(headers)).toBe(false);
  });

  it.each([
    ["an id (a request)", { ...INITIALIZED, id: 1 }],
    ["a method that is not a notification", { jsonrpc: "2.0", method: "ping" }],
    ["params with _meta", { ...INITIALIZED, params: { _meta: {} } }],
    ["params that are not an object", { ...INITIALIZED, params: [] }],
    ["another key", { ...INITIALIZED, extra: true }],
    ["another JSON-RPC version", { ...INITIALIZED, jsonrpc: "1.0" }],
    ["a batch", [INITIALIZED]],
  ])("leaves a body with %s to the SDK", (_, body) => {
    expect(notification({}, body)).toBe(false);
  });

  it("leaves anything but a POST to the SDK", () => {
    expect(notification({}, INITIALIZED, "GET")).toBe(false);
  });
});

describe("a fast-lane answer (answerWithResult around modernResultJson, as the endpoint writes it)", () => {
  const SERVER = { name: "loadout", title: "Loadout", version: "0.1.0" };
  const fastLaneAnswer = (id: string | number, result: Parameters<typeof modernResultJson>[0], server = SERVER) =>
    answerWithResult(id, modernResultJson(result, server));

  it("adds resultType and the server's identity, as the SDK encodes a 2026-07-28 result", () => {
    const answer = JSON.parse(fastLaneAnswer(7, { content: [{ type: "text", text: "hi" }] }, SERVER));
    expect(answer).toEqual({
      jsonrpc: "2.0",
      id: 7,
      result: {
        content: [{ type: "text", text: "hi" }],
        resultType: "complete",
        _meta: { "io.modelcontextprotocol/serverInfo": SERVER },
      },
    });
  });

  it.each([
    ["an empty result", {}],
    ["text content", { content: [{ type: "text", text: "hi" }] }],
    ["an error result with structured content", { content: [], isError: true, structuredContent: { a: [1] } }],
    ["integer-like keys, which encode first", { content: [], "7": "seven", x: 1 }],
  ])("encodes %s byte for byte as a copy with resultType and _meta added would", (_, result) => {
    const copy = { ...result, resultType: "complete", _meta: { "io.modelcontextprotocol/serverInfo": SERVER } };
    expect(modernResultJson(result, SERVER)).toBe(JSON.stringify(copy));
  });

  it("keeps the result's own _meta entries, and a serverInfo already there", () => {
    const kept = JSON.parse(fastLaneAnswer("a", { content: [], _meta: { "example.com/trace": "t1" } }, SERVER));
    expect(kept.result._meta).toEqual({ "example.com/trace": "t1", "io.modelcontextprotocol/serverInfo": SERVER });
    const theirs = { "io.modelcontextprotocol/serverInfo": { name: "other", version: "2" } };
    expect(JSON.parse(fastLaneAnswer(1, { content: [], _meta: theirs }, SERVER)).result._meta).toEqual(theirs);
  });

  it("appends a text fallback for structured content that is not an object, when there is no text", () => {
    const answer = JSON.parse(fastLaneAnswer(1, { content: [], structuredContent: [1, 2] }, SERVER));
    expect(answer.result.content).toEqual([{ type: "text", text: "[1,2]" }]);
    const withText = JSON.parse(
      fastLaneAnswer(1, { content: [{ type: "text", text: "t" }], structuredContent: [1] }, SERVER),
    );
    expect(withText.result.content).toEqual([{ type: "text", text: "t" }]);
    const object = JSON.parse(fastLaneAnswer(1, { content: [], structuredContent: { a: 1 } }, SERVER));
    expect(object.result.content).toEqual([]);
  });
});
