/**
 * The "Fuzz" suite (issue 21): every operation in the OpenAPI document, the OAuth endpoints and
 * every MCP method, sent hostile text — NUL, a lone surrogate, control characters, invalid
 * UTF-8, 10,000-character strings, deep nesting and oversized bodies — in each body field,
 * path parameter and query parameter. No answer may be a 5xx or carry SQL, a driver message or
 * a stack, and what must be refused stores nothing. Like the security suite it names no route:
 * a new operation is fuzzed by being declared.
 */

import { textProblem } from "@loadout/api/domain/text";
import { bearer, createTestApp, type TestApp, TestUser } from "@loadout/api/testing";
import * as tables from "@loadout/db";
import { count, getTableName } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENVELOPE, mcpHeaders } from "../helpers/mcp-http";
import { type Json, resolveRef as resolveSchemaRef } from "../helpers/openapi";
import { LEAK } from "./leak";

interface Operation {
  method: string;
  path: string;
  op: Json;
  params: string[];
}

/** Text that must be refused wherever a field holds text. */
const REFUSED = {
  nul: "fuzz\u0000nul",
  surrogate: "fuzz\ud800lone",
  control: "fuzz\u001b[31mred",
};
const LONG = "x".repeat(10_000);

let t: TestApp;
let user: TestUser;
let secret: string;
let doc: Json;
let ops: Operation[];
const values: Record<string, string> = {};
const answers: { label: string; status: number }[] = [];

const resolveRef = (schema: unknown) => resolveSchemaRef(doc, schema);

/**
 * A body from the schema, with every property present (required or not), and the places in it
 * that hold text, so each one can be replaced in turn.
 */
function sample(schema: unknown, at: (string | number)[], slots: (string | number)[][]): unknown {
  const s = resolveRef(schema);
  if (s.example !== undefined && typeof s.example !== "string") return s.example;
  if (Array.isArray(s.enum)) return s.enum[0];
  if (Array.isArray(s.anyOf)) {
    const first = (s.anyOf as Json[]).find((o) => resolveRef(o).type !== "null") ?? s.anyOf[0];
    return sample(first, at, slots);
  }
  switch (s.type) {
    case "object": {
      const out: Json = {};
      for (const [key, property] of Object.entries((s.properties as Json | undefined) ?? {}))
        out[key] = sample(property, [...at, key], slots);
      if (!s.properties && s.additionalProperties) {
        slots.push([...at, "\u0000key"]);
        out["sample-key"] = sample(s.additionalProperties, [...at, "sample-key"], slots);
      }
      return out;
    }
    case "array":
      return [sample(s.items, [...at, 0], slots)];
    case "integer":
    case "number":
      return typeof s.minimum === "number" ? s.minimum : 1;
    case "boolean":
      return false;
    default:
      slots.push(at);
      return typeof s.example === "string" ? s.example : "sample-value";
  }
}

/** `body` with the text at `slot` replaced (a slot ending in "\0key" replaces the key itself). */
function withText(body: unknown, slot: (string | number)[], text: string): unknown {
  const copy = structuredClone(body) as Json;
  let node: Json = copy;
  for (const key of slot.slice(0, -1)) node = node[key as string] as Json;
  const last = slot.at(-1);
  if (last === "\u0000key") {
    const [key] = Object.keys(node);
    if (key !== undefined) {
      node[text] = node[key];
      delete node[key];
    }
  } else if (last !== undefined) node[last as string] = text;
  return copy;
}

function everyText(body: unknown, slots: (string | number)[][], text: string): unknown {
  return slots.reduce((b, slot) => withText(b, slot, text), body);
}

function operations(document: Json): Operation[] {
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, Json>>))
    for (const [method, op] of Object.entries(methods))
      out.push({
        method: method.toUpperCase(),
        path,
        op,
        params: [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? ""),
      });
  return out;
}

/**
 * Percent-encoded, with a lone surrogate sent as the bytes a careless encoder writes for it
 * (ED A0 80, not UTF-8): encodeURIComponent refuses it, and URLSearchParams would quietly send
 * U+FFFD. A URL cannot carry a lone surrogate, so what the server reads is replacement text it
 * may accept; the answer must still be no 5xx and store nothing.
 */
const encode = (text: string) =>
  encodeURIComponent(text.replace(/\p{Cs}/gu, "\u{10FFFF}")).replaceAll("%F4%8F%BF%BF", "%ED%A0%80");

const pathOf = (op: Operation, override: Record<string, string> = {}) =>
  op.path.replace(/\{(\w+)\}/g, (_, name: string) => encode(override[name] ?? values[name] ?? "x"));

function queryOf(op: Operation, override: Record<string, string> = {}): string {
  const query: string[] = [];
  for (const p of (op.op.parameters as Json[] | undefined) ?? []) {
    if (p.in !== "query") continue;
    const name = String(p.name);
    const value = override[name] ?? (p.required ? String(sample(p.schema, [], [])) : undefined);
    if (value !== undefined) query.push(`${encode(name)}=${encode(value)}`);
  }
  return query.length ? `?${query.join("&")}` : "";
}

/** Sends one request and checks the answer: no 5xx, nothing internal in it. */
async function send(label: string, path: string, init: RequestInit): Promise<number> {
  const res = await t.app.request(path, init);
  const text = await res.text();
  expect(res.status, `${label} → ${res.status} ${text.slice(0, 300)}`).toBeLessThan(500);
  expect(text, label).not.toMatch(LEAK);
  answers.push({ label, status: res.status });
  return res.status;
}

const json = (method: string, body: unknown, extra: Record<string, string> = {}): RequestInit => ({
  method,
  headers: { authorization: `Bearer ${secret}`, "content-type": "application/json", ...extra },
  body: JSON.stringify(body),
});
const raw = (method: string, body: Uint8Array | string, type = "application/json"): RequestInit => ({
  method,
  headers: { authorization: `Bearer ${secret}`, "content-type": type },
  body: body as BodyInit,
});

/** Row counts of everything a request could create, change the number of, or remove. */
const COUNTED: PgTable[] = [
  tables.apiTokens,
  tables.mcpEndpoints,
  tables.mcpServers,
  tables.memberships,
  tables.oauthClients,
  tables.projects,
  tables.skills,
  tables.skillVersions,
  tables.users,
  tables.workspaceInvites,
  tables.workspaces,
];
async function stored(): Promise<Record<string, number>> {
  const db = t.database.db;
  const out: Record<string, number> = {};
  for (const table of COUNTED) out[getTableName(table)] = (await db.select({ n: count() }).from(table))[0]?.n ?? 0;
  return out;
}

const body = (op: Operation) => {
  const schema = (
    ((op.op.requestBody as Json | undefined)?.content as Json | undefined)?.["application/json"] as Json | undefined
  )?.schema;
  if (!schema) return undefined;
  const slots: (string | number)[][] = [];
  return { value: sample(schema, [], slots), slots };
};

/** Nested arrays `depth` deep, as text (JSON.stringify would recurse as deep). */
const deep = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
/** A JSON string whose bytes are not UTF-8 (a lone 0xff, and a truncated sequence). */
const invalidUtf8 = () => {
  const head = new TextEncoder().encode('{"name":"fuzz-');
  const tail = new TextEncoder().encode('","description":"d","instructions":"b","text":"t"}');
  return Uint8Array.from([...head, 0xff, 0xe2, 0x82, ...tail]);
};

beforeAll(async () => {
  t = await createTestApp();
  doc = (await (await t.app.request("/v1/openapi.json")).json()) as Json;
  ops = operations(doc);
  user = await TestUser.signUp(t.app, "fuzz@example.com");
  const full = await user.createToken({
    name: "fuzz",
    scopes: ["mcp", "skills:read", "skills:write", "servers:read", "servers:write", "admin"],
  });
  secret = full.secret;
  const me = (await (await user.request("/v1/me")).json()) as { user: { id: string } };
  expect(
    (await user.request("/v1/workspaces", { method: "POST", body: { slug: "fuzz-team", name: "F" } })).status,
  ).toBe(201);
  expect(
    (
      await user.request("/v1/workspaces/me/skills", {
        method: "POST",
        body: { name: "fuzz-skill", description: "A skill to aim at.", instructions: "Body." },
      })
    ).status,
  ).toBe(201);
  const imported = await user.request("/v1/workspaces/me/servers/import", {
    method: "POST",
    body: { text: JSON.stringify({ mcpServers: { "fuzz-server": { url: "https://mcp.example.com/mcp" } } }) },
  });
  expect(imported.status).toBe(200);
  Object.assign(values, {
    ws: "me",
    name: "fuzz-skill",
    slug: "fuzz-server",
    id: full.token.id,
    version: "1",
    tool: "sample-tool",
    user: me.user.id,
  });
}, 60_000);
afterAll(() => t.close());

describe("every operation in the OpenAPI document", () => {
  it("refuses NUL, lone surrogates and control characters in every text field and parameter, storing nothing", async () => {
    expect(ops.length).toBeGreaterThan(30);
    const before = await stored();
    let sent = 0;
    for (const op of ops) {
      // Sign-out would end the fuzzing session's own cookie-less token use; nothing to fuzz there.
      if (op.path === "/v1/auth/logout") continue;
      const label = `${op.method} ${op.path}`;
      const b = body(op);
      for (const [kind, text] of Object.entries(REFUSED)) {
        for (const slot of b?.slots ?? []) {
          const status = await send(
            `${label} body ${slot.join(".")} ${kind}`,
            pathOf(op) + queryOf(op),
            json(op.method, withText(b?.value, slot, text)),
          );
          expect(status, `${label} body ${slot.join(".")} ${kind}`).toBeGreaterThanOrEqual(400);
          sent++;
        }
        for (const param of op.params) {
          const status = await send(
            `${label} {${param}} ${kind}`,
            pathOf(op, { [param]: text }) + queryOf(op),
            b ? json(op.method, b.value) : bearer(secret, { method: op.method }),
          );
          if (kind !== "surrogate") expect(status, `${label} {${param}} ${kind}`).toBeGreaterThanOrEqual(400);
          sent++;
        }
        for (const p of (op.op.parameters as Json[] | undefined) ?? []) {
          if (p.in !== "query" || resolveRef(p.schema).type !== "string" || resolveRef(p.schema).enum) continue;
          const status = await send(
            `${label} ?${String(p.name)} ${kind}`,
            pathOf(op) + queryOf(op, { [String(p.name)]: text }),
            b ? json(op.method, b.value) : bearer(secret, { method: op.method }),
          );
          if (kind !== "surrogate") expect(status, `${label} ?${String(p.name)} ${kind}`).toBeGreaterThanOrEqual(400);
          sent++;
        }
      }
    }
    expect(sent).toBeGreaterThan(200);
    expect(await stored()).toEqual(before);
  }, 120_000);

  it("answers invalid UTF-8, deep nesting, oversized and malformed bodies with a 4xx, storing nothing", async () => {
    const before = await stored();
    const withBody = ops.filter((op) => body(op) !== undefined);
    expect(withBody.length).toBeGreaterThan(10);
    for (const op of withBody) {
      const label = `${op.method} ${op.path}`;
      const path = pathOf(op) + queryOf(op);
      for (const [kind, init] of [
        ["invalid UTF-8", raw(op.method, invalidUtf8())],
        ["nested 10,000 deep", raw(op.method, deep(10_000))],
        ["nested objects", raw(op.method, `${'{"a":'.repeat(5_000)}1${"}".repeat(5_000)}`)],
        ["5 MiB", raw(op.method, `{"text":"${"x".repeat(5 * 1024 * 1024)}"}`)],
        ["not JSON", raw(op.method, "{ nope")],
        ["a JSON string", raw(op.method, '"\\u0000"')],
        ["form data", raw(op.method, "a=1", "application/x-www-form-urlencoded")],
      ] as const) {
        const status = await send(`${label} ${kind}`, path, init);
        expect(status, `${label} ${kind}`).toBeGreaterThanOrEqual(400);
      }
    }
    expect(await stored()).toEqual(before);
  }, 120_000);

  it("answers 10,000-character text in every field and parameter without a 5xx", async () => {
    for (const op of ops) {
      if (op.path === "/v1/auth/logout") continue;
      const b = body(op);
      const label = `${op.method} ${op.path}`;
      if (b)
        await send(`${label} long body`, pathOf(op) + queryOf(op), json(op.method, everyText(b.value, b.slots, LONG)));
      const long = Object.fromEntries(op.params.map((p) => [p, LONG]));
      if (op.params.length > 0)
        await send(`${label} long params`, pathOf(op, long) + queryOf(op), bearer(secret, { method: op.method }));
    }
  }, 120_000);
});

describe("the OAuth endpoints (not in the document: described by the authorization-server metadata)", () => {
  it("refuse hostile text in every field with a 4xx, storing nothing", async () => {
    const before = await stored();
    const form = (fields: Record<string, string>) => ({
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    });
    for (const text of [...Object.values(REFUSED), LONG]) {
      for (const field of ["client_name", "client_uri", "logo_uri", "scope", "token_endpoint_auth_method"]) {
        const status = await send(`/oauth/register ${field}`, "/oauth/register", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ redirect_uris: ["https://app.example.com/cb"], client_name: "App", [field]: text }),
        });
        expect(status).toBeGreaterThanOrEqual(400);
      }
      await send("/oauth/register redirect_uris", "/oauth/register", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ redirect_uris: [`https://app.example.com/${text}`] }),
      });
      for (const field of ["grant_type", "code", "refresh_token", "client_id", "redirect_uri", "code_verifier"])
        await send(`/oauth/token ${field}`, "/oauth/token", form({ grant_type: "authorization_code", [field]: text }));
      await send("/oauth/revoke", "/oauth/revoke", form({ token: text, client_id: text }));
      for (const field of ["client_id", "redirect_uri", "state", "code_challenge", "resource", "scope"]) {
        const query = new URLSearchParams({ response_type: "code", client_id: "x", [field]: text });
        await send(`/oauth/authorize ${field}`, `/oauth/authorize?${query}`, { method: "GET" });
      }
    }
    for (const path of ["/oauth/register", "/oauth/token"])
      await send(`${path} invalid UTF-8`, path, {
        method: "POST",
        body: invalidUtf8(),
        headers: { "content-type": "application/json" },
      });
    expect(await stored()).toEqual(before);
  });
});

describe("every MCP method", () => {
  /** Each method with its text-bearing parameters; `text` goes in each in turn. */
  const METHODS: Record<string, (text: string) => Json[]> = {
    initialize: (text) => [
      { protocolVersion: text, capabilities: {}, clientInfo: { name: "fuzz", version: "1" } },
      { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: text, version: text } },
    ],
    "server/discover": () => [{}],
    ping: () => [{}],
    "tools/list": (text) => [{ cursor: text }],
    "tools/call": (text) => [
      { name: text, arguments: {} },
      { name: "skills", arguments: { action: "get", name: text } },
      { name: "skills", arguments: { action: "get", name: "fuzz-skill", path: text } },
      { name: "skills", arguments: { action: text } },
      { name: "skill_edit", arguments: { action: "create", name: text, description: "d", instructions: "b" } },
      { name: "skill_edit", arguments: { action: "create", name: "fuzz-new", description: text, instructions: "b" } },
      { name: "skill_edit", arguments: { action: "create", name: "fuzz-new", description: "d", instructions: text } },
      { name: "skill_edit", arguments: { action: "edit", name: "fuzz-skill", files: { [text]: "x" } } },
      // A file's text may hold control characters other than NUL (domain/text.ts, "file").
      ...(text.includes("\u001b")
        ? []
        : [{ name: "skill_edit", arguments: { action: "edit", name: "fuzz-skill", files: { "a.md": text } } }]),
      { name: "search", arguments: { query: text } },
      { name: "fetch", arguments: { id: text } },
      { name: "fuzz-server_tool", arguments: { q: text } },
    ],
    "resources/list": (text) => [{ cursor: text }],
    "resources/templates/list": (text) => [{ cursor: text }],
    "resources/read": (text) => [{ uri: text }, { uri: `skill://fuzz-skill/${text}` }],
    "resources/directory/read": (text) => [{ uri: text }, { uri: `skill://${text}/` }],
    "prompts/list": (text) => [{ cursor: text }],
    "prompts/get": (text) => [{ name: text, arguments: { a: text } }],
    "completion/complete": (text) => [
      { ref: { type: "ref/prompt", name: text }, argument: { name: text, value: text } },
    ],
    "logging/setLevel": (text) => [{ level: text }],
    "skills/list": (text) => [{ cursor: text }],
    "skills/get": (text) => [{ name: text }],
    [`fuzz/${"unknown"}`]: (text) => [{ a: text }],
  };

  async function mcp(label: string, method: string, params: Json, query = "") {
    const name = typeof params.name === "string" && textProblem(params.name) === null ? params.name : undefined;
    const headers = mcpHeaders(secret, method, name && name.length < 200 ? name : undefined);
    const res = await t.app.request(`/mcp${query}`, {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: ENVELOPE } }),
    });
    const text = await res.text();
    expect(res.status, `${label} → ${res.status} ${text.slice(0, 300)}`).toBeLessThan(500);
    expect(text, label).not.toMatch(LEAK);
    return text;
  }

  it("answers hostile text in every parameter without a 5xx or anything internal, storing nothing refused", async () => {
    const before = await stored();
    for (const [method, variants] of Object.entries(METHODS))
      for (const [kind, text] of Object.entries(REFUSED))
        for (const [i, params] of variants(text).entries()) await mcp(`${method} #${i} ${kind}`, method, params);
    // A URL cannot carry a lone surrogate (see encode): that project is replacement text, and valid.
    for (const [kind, text] of Object.entries(REFUSED).filter(([kind]) => kind !== "surrogate"))
      for (const name of ["project", "mode"]) {
        const answer = await mcp(`?${name} ${kind}`, "tools/list", {}, `?${name}=${encode(text)}`);
        expect(answer, `?${name} ${kind}`).toMatch(/"error"/);
      }
    expect(await stored()).toEqual(before);
  }, 120_000);

  it("answers 10,000-character text, invalid UTF-8, deep nesting and oversized bodies without a 5xx", async () => {
    for (const [method, variants] of Object.entries(METHODS))
      for (const [i, params] of variants(LONG).entries()) await mcp(`${method} #${i} long`, method, params);
    await mcp("?project long", "tools/list", {}, `?project=${LONG}`);
    for (const [kind, bytes] of [
      ["invalid UTF-8", invalidUtf8()],
      ["nested 10,000 deep", deep(10_000)],
      ["5 MiB", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":"${"x".repeat(5 * 1024 * 1024)}"}}`],
      ["not JSON", "{ nope"],
    ] as const) {
      const res = await t.app.request("/mcp", {
        method: "POST",
        headers: mcpHeaders(secret, "ping"),
        body: bytes as BodyInit,
      });
      const text = await res.text();
      expect(res.status, `${kind} → ${res.status} ${text.slice(0, 200)}`).toBeLessThan(500);
      expect(text).not.toMatch(LEAK);
    }
  }, 120_000);
});
