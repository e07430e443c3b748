/**
 * The Connect page's estimate (GET /v1/endpoints/tool-estimates): for the MCP URL and each saved
 * endpoint, the estimated tokens of its full tools/list against its lazy one equal the estimate of
 * what a real SDK client is listed there, normal and lazy, on both protocol eras, with an upstream
 * imported with its tools (and one whose tool only its MCP Apps view may call, which a client without
 * Apps is not listed), in each endpoint's mode, project and search and fetch setting.
 */

import { listingTokens } from "@loadout/api/domain/mcp/tool-search";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { registerAppTool } from "@modelcontextprotocol/ext-apps/server";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type Account, addApprovedServer, signUpAccount } from "../helpers/account";
import { ERAS } from "../helpers/mcp-http";
import { startTestServer, type TestServer } from "../helpers/server";
import { type StatelessUpstream, serveMcpHandler, startStatelessUpstream } from "../helpers/upstreams";

let server: TestServer;
let upstream: StatelessUpstream;
let board: { url: string; stop(): Promise<void> };
let account: Account;
let secret: string;

interface Estimate {
  full: number;
  lazy: number;
  tools: number;
}
interface Estimates {
  default: Estimate;
  endpoints: (Estimate & { id: string })[];
}

/** An upstream with a tool the model may call and one only its view may (`visibility: ["app"]`). */
function boardServer() {
  const board = new McpServer({ name: "board", version: "1.0.0" });
  for (const [name, visibility] of [
    ["show_board", ["model", "app"]],
    ["move_card", ["app"]],
  ] as const)
    registerAppTool(
      board,
      name,
      {
        description: `The board's ${name.replace("_", " ")}.`,
        inputSchema: z.object({}),
        _meta: { ui: { resourceUri: "ui://board/view.html", visibility: [...visibility] } },
      },
      async () => ({ content: [{ type: "text" as const, text: "done" }] }),
    );
  return board;
}

beforeAll(async () => {
  [server, upstream, board] = await Promise.all([
    startTestServer({ LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1" }),
    startStatelessUpstream({ extraTools: 12 }),
    serveMcpHandler(createMcpHandler(boardServer, { legacy: "stateless" })),
  ]);
  account = await signUpAccount(server.url, "estimates@example.com");
  await addApprovedServer(account, "tracker", upstream.url);
  await addApprovedServer(account, "board", board.url);
  // Plan mode lists this tool (for its "list" action) and no other of the server's.
  const marked = await account.rest("/v1/workspaces/me/servers/tracker/tools/issues", {
    method: "PATCH",
    body: { planSafeActions: ["list"] },
  });
  expect(marked.status).toBe(200);
  secret = (await account.token(["mcp"])).secret;
}, 60_000);

afterAll(async () => {
  await Promise.all([server?.close(), upstream?.stop(), board?.stop()]);
});

/** The estimate of what a real client is listed at this path (all pages). */
async function listedTokens(path: string, options: object): Promise<{ tokens: number; names: string[] }> {
  const client = new Client({ name: "estimate-test", version: "1.0.0" }, options);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}${path}`), {
      requestInit: { headers: { authorization: `Bearer ${secret}` } },
    }),
  );
  try {
    const tools: unknown[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {});
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return { tokens: listingTokens(tools), names: tools.map((t) => (t as { name: string }).name) };
  } finally {
    await client.close();
  }
}

async function estimates(): Promise<Estimates> {
  const answer = await account.rest("/v1/endpoints/tool-estimates");
  expect(answer.status).toBe(200);
  return answer.body as Estimates;
}

describe("tool estimates", () => {
  let normal: string;
  let lazy: string;
  let plan: string;

  beforeAll(async () => {
    const save = async (body: object) => {
      const created = await account.rest("/v1/endpoints", { method: "POST", body });
      expect(created.status).toBe(201);
      return created.body as { id: string; path: string };
    };
    normal = (await save({ name: "everything", searchFetch: true })).id;
    lazy = (await save({ name: "lazy", lazyTools: true })).id;
    plan = (await save({ name: "plan", mode: "plan", project: "/work/shop" })).id;
  });

  it.each(ERAS)("equal the estimate of the real listings, normal and lazy (%s)", async (_era, options) => {
    const { default: main, endpoints } = await estimates();
    const of = (id: string) => endpoints.find((e) => e.id === id);

    // The MCP URL as is, and with ?tools=lazy.
    const full = await listedTokens("/mcp", options);
    expect(full.names).toEqual(expect.arrayContaining(["tracker_extra_12", "board_show_board"]));
    expect(full.names).not.toContain("board_move_card");
    expect(main.full).toBe(full.tokens);
    expect(main.tools).toBe(full.names.length);
    const lazyListing = await listedTokens("/mcp?tools=lazy", options);
    expect(lazyListing.names).toEqual(["skills", "skill_edit", "find_tools", "call_tool"]);
    expect(main.lazy).toBe(lazyListing.tokens);
    // The point of lazy mode, and of showing it: 13 upstream tools cost more than the two that find them.
    expect(main.lazy).toBeLessThan(main.full);

    // A saved endpoint with search and fetch: both listings carry them.
    const withSearch = await listedTokens(`/mcp/e/${normal}`, options);
    expect(withSearch.names).toContain("search");
    expect(of(normal)).toEqual({
      id: normal,
      full: withSearch.tokens,
      lazy: expect.any(Number),
      tools: withSearch.names.length,
    });
    expect(of(normal)?.full).toBeGreaterThan(main.full);

    // A lazy endpoint: its own listing is the lazy one, its full figure that of the same session unlazied.
    const lazyEndpoint = await listedTokens(`/mcp/e/${lazy}`, options);
    expect(lazyEndpoint.names).toEqual(["skills", "skill_edit", "find_tools", "call_tool"]);
    expect(of(lazy)).toEqual({ id: lazy, full: main.full, lazy: lazyEndpoint.tokens, tools: main.tools });

    // Plan mode: no skill_edit, and of the server only the tool marked plan-safe.
    const planned = await listedTokens(`/mcp/e/${plan}`, options);
    expect(planned.names).toEqual(["skills", "tracker_issues"]);
    expect(of(plan)?.full).toBe(planned.tokens);
    const plannedLazy = await listedTokens("/mcp?tools=lazy&mode=plan&project=/work/shop", options);
    expect(plannedLazy.names).toEqual(["skills", "find_tools", "call_tool"]);
    expect(of(plan)?.lazy).toBe(plannedLazy.tokens);
  });

  it("follow the catalog: a tool switched off leaves the full listing and its estimate", async () => {
    const before = await estimates();
    const tool = "/v1/workspaces/me/servers/tracker/tools/extra_01";
    const off = await account.rest(tool, { method: "PATCH", body: { enabled: false } });
    expect(off.status).toBe(200);
    try {
      const after = await estimates();
      const listed = await listedTokens("/mcp", {});
      expect(listed.names).not.toContain("tracker_extra_01");
      expect(after.default.full).toBe(listed.tokens);
      expect(after.default.tools).toBe(before.default.tools - 1);
      expect(after.default.full).toBeLessThan(before.default.full);
      // The lazy listing does not depend on the catalog.
      expect(after.default.lazy).toBe(before.default.lazy);
    } finally {
      await account.rest(tool, { method: "PATCH", body: { enabled: true } });
    }
  });

  it("are the caller's own: another account sees only its endpoints and its empty catalog", async () => {
    const other = await signUpAccount(server.url, "estimates-other@example.com");
    const answer = await other.rest("/v1/endpoints/tool-estimates");
    expect(answer.status).toBe(200);
    const theirs = answer.body as Estimates;
    expect(theirs.endpoints).toEqual([]);
    expect(theirs.default.tools).toBe(2);
  });
});
