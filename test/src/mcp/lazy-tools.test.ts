/**
 * Lazy tools (`?tools=lazy`, DESIGN.md "Lazy tools"), on both protocol eras through the SDK client:
 * `tools/list` offers Loadout's own tools and `find_tools` and `call_tool` instead of the upstream
 * catalog; `find_tools` ranks the active upstream tools with their definitions and estimated token
 * cost; `call_tool` calls one with every check of a direct call (plan mode, unknown names).
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Account, addApprovedServer, signUpAccount } from "../helpers/account";
import { ERAS } from "../helpers/mcp-http";
import { startTestServer, type TestServer } from "../helpers/server";
import { type StatelessUpstream, startStatelessUpstream } from "../helpers/upstreams";

let server: TestServer;
let upstream: StatelessUpstream;
let account: Account;
let secret: string;

beforeAll(async () => {
  [server, upstream] = await Promise.all([
    startTestServer({ LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1" }),
    startStatelessUpstream({ extraTools: 20 }),
  ]);
  account = await signUpAccount(server.url, "lazy@example.com");
  await addApprovedServer(account, "tracker", upstream.url);
  // Plan mode may run the issues tool's "list" action only.
  const marked = await account.rest("/v1/workspaces/me/servers/tracker/tools/issues", {
    method: "PATCH",
    body: { planSafeActions: ["list"] },
  });
  expect(marked.status).toBe(200);
  secret = (await account.token(["mcp"])).secret;
}, 60_000);

afterAll(async () => {
  await Promise.all([server?.close(), upstream?.stop()]);
});

async function connect(query: string, options: object) {
  const client = new Client({ name: "lazy-test", version: "1.0.0" }, options);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp${query}`), {
      requestInit: { headers: { authorization: `Bearer ${secret}` } },
    }),
  );
  return client;
}

const textOf = (result: { content?: unknown }) =>
  ((result.content ?? []) as { type: string; text?: string }[]).map((c) => c.text ?? "").join("\n");

describe.each(ERAS)("lazy tools, %s", (_era, options) => {
  it("lists find_tools and call_tool instead of the upstream catalog, and says how to use them", async () => {
    const full = await connect("", options);
    const lazy = await connect("?tools=lazy", options);
    try {
      const all = (await full.listTools()).tools.map((t) => t.name);
      expect(all).toContain("tracker_extra_20");
      expect(all).not.toContain("find_tools");
      const listed = (await lazy.listTools()).tools.map((t) => t.name);
      expect(listed).toEqual(["skills", "skill_edit", "find_tools", "call_tool"]);
      expect(lazy.getInstructions()).toMatch(/find_tools\(query=/);
      expect(full.getInstructions() ?? "").not.toMatch(/find_tools/);
    } finally {
      await Promise.all([full.close(), lazy.close()]);
    }
  });

  it("finds the active tools for a query, best first, with their schemas and token estimates", async () => {
    const client = await connect("?tools=lazy", options);
    try {
      const found = await client.callTool({ name: "find_tools", arguments: { query: "echo text", limit: 3 } });
      expect(found.isError).toBeFalsy();
      const structured = found.structuredContent as {
        tools: { name: string; inputSchema: { properties?: Record<string, unknown> }; estimatedTokens: number }[];
        total: number;
        catalogTokens: number;
      };
      expect(structured.tools[0]?.name).toBe("tracker_echo");
      expect(structured.tools[0]?.inputSchema.properties).toHaveProperty("text");
      expect(structured.tools[0]?.estimatedTokens).toBeGreaterThan(10);
      expect(structured.tools.length).toBeLessThanOrEqual(3);
      // The whole catalog costs far more than what one search answers.
      expect(structured.total).toBeGreaterThan(20);
      expect(structured.catalogTokens).toBeGreaterThan(5 * (structured.tools[0]?.estimatedTokens ?? 0));
      const none = await client.callTool({ name: "find_tools", arguments: { query: "zebra crossing" } });
      expect(textOf(none)).toMatch(/No tool matches "zebra crossing"/);
    } finally {
      await client.close();
    }
  });

  it("calls a found tool by name, sent once, and refuses a name that is not active here", async () => {
    const client = await connect("?tools=lazy", options);
    try {
      const before = upstream.calls("echo");
      const echoed = await client.callTool({
        name: "call_tool",
        arguments: { name: "tracker_echo", arguments: { text: "lazy hello" } },
      });
      expect(echoed.isError).toBeFalsy();
      expect(textOf(echoed)).toContain("lazy hello");
      expect(upstream.calls("echo")).toBe(before + 1);
      const unknown = await client.callTool({ name: "call_tool", arguments: { name: "tracker_nothing" } });
      expect(unknown.isError).toBe(true);
      expect(textOf(unknown)).toMatch(/No tool "tracker_nothing" is active here/);
    } finally {
      await client.close();
    }
  });

  it("keeps plan mode's layers: a call_tool the plan does not allow is refused before it is sent", async () => {
    const client = await connect("?tools=lazy&mode=plan", options);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["skills", "find_tools", "call_tool"]);
      const before = upstream.calls("issues");
      const refused = await client.callTool({
        name: "call_tool",
        arguments: { name: "tracker_issues", arguments: { action: "create", title: "not in plan mode" } },
      });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/plan mode/);
      const listed = await client.callTool({
        name: "call_tool",
        arguments: { name: "tracker_issues", arguments: { action: "list" } },
      });
      expect(listed.isError).toBeFalsy();
      expect(upstream.calls("issues")).toBe(before + 1);
    } finally {
      await client.close();
    }
  });
});

describe("a saved endpoint in lazy mode", () => {
  it("offers find_tools and call_tool on its URL, and says so in its listing", async () => {
    const saved = await account.rest("/v1/endpoints", {
      method: "POST",
      body: { name: "Lazy laptop", lazyTools: true },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(201);
    expect(saved.body).toMatchObject({ lazyTools: true });
    const listed = await account.rest("/v1/endpoints");
    expect(listed.body.endpoints.find((e: { id: string }) => e.id === saved.body.id)).toMatchObject({
      lazyTools: true,
    });
    const client = await connect(saved.body.path.slice("/mcp".length), {});
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("find_tools");
    } finally {
      await client.close();
    }
  });
});
