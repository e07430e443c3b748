/**
 * MCP Apps (`io.modelcontextprotocol/ui`, DESIGN.md "MCP Apps"), through the official SDK client on
 * both protocol eras: a client that negotiates the extension gets `skills` and `skill_edit` linked to
 * Loadout's `ui://loadout/…` views, which it can list and read, and an upstream's tool views passed
 * through (namespaced at /mcp, as the upstream gave them at /mcp/s); a client that does not gets
 * undecorated tools, no views, and a read of one fails closed. The results the views render carry
 * their data: token estimates, file digests, an edit's diff.
 */

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { RESOURCE_MIME_TYPE, registerAppResource, registerAppTool } from "@modelcontextprotocol/ext-apps/server";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type Account, addApprovedServer, signUpAccount } from "../helpers/account";
import { ERAS } from "../helpers/mcp-http";
import { startTestServer, type TestServer } from "../helpers/server";
import { serveMcpHandler } from "../helpers/upstreams";

const UI = { "io.modelcontextprotocol/ui": { mimeTypes: [RESOURCE_MIME_TYPE] } };
const BOARD_VIEW = "<!doctype html><title>Board</title><p>The board view</p>";
/** What the upstream's view holds now: changed by a test to see its content pinned. */
let boardHtml = BOARD_VIEW;

let server: TestServer;
let upstream: { url: string; stop(): Promise<void> };
let account: Account;
let secret: string;
/** What the upstream links its tool to: changed by a test to see the pin hold. */
let boardView = "ui://board/view.html";

beforeAll(async () => {
  const handler = createMcpHandler(
    () => {
      const board = new McpServer({ name: "board", version: "1.0.0" });
      registerAppTool(
        board,
        "show_board",
        {
          description: "Shows the team's board.",
          inputSchema: z.object({}),
          _meta: { ui: { resourceUri: boardView } },
        },
        async () => ({ content: [{ type: "text" as const, text: "3 cards on the board" }] }),
      );
      registerAppResource(board, "board_view", "ui://board/view.html", { description: "The board." }, async () => ({
        contents: [{ uri: "ui://board/view.html", mimeType: RESOURCE_MIME_TYPE, text: boardHtml }],
      }));
      board.registerResource("readme", "memo://readme", { mimeType: "text/plain" }, async () => ({
        contents: [{ uri: "memo://readme", text: "read me" }],
      }));
      return board;
    },
    { legacy: "stateless" },
  );
  [server, upstream] = await Promise.all([
    startTestServer({ LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1" }),
    serveMcpHandler(handler),
  ]);
  account = await signUpAccount(server.url, "apps@example.com");
  const created = await account.rest("/v1/workspaces/me/skills", {
    method: "POST",
    body: {
      name: "review",
      description: "How we review code.",
      instructions: "# Review\n\nRead the diff first.\n",
      files: [{ path: "references/checklist.md", content: "- tests\n- docs\n" }],
    },
  });
  expect(created.status).toBe(201);
  await addApprovedServer(account, "board", upstream.url);
  secret = (await account.token(["mcp"])).secret;
}, 60_000);

afterAll(async () => {
  await Promise.all([server?.close(), upstream?.stop()]);
});

async function connect(path: string, options: object, apps: boolean) {
  const client = new Client(
    { name: "apps-test", version: "1.0.0" },
    { ...options, capabilities: apps ? { extensions: UI } : {} },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}${path}`), {
      requestInit: { headers: { authorization: `Bearer ${secret}` } },
    }),
  );
  return client;
}

const metaOf = (tools: { name: string; _meta?: Record<string, unknown> }[], name: string) =>
  tools.find((t) => t.name === name)?._meta as { ui?: { resourceUri?: string }; "ui/resourceUri"?: string } | undefined;

describe.each(ERAS)("MCP Apps, %s", (_era, options) => {
  it("links skills and skill_edit to Loadout's views, which a negotiating client lists and reads", async () => {
    const client = await connect("/mcp", options, true);
    try {
      const { tools } = await client.listTools();
      expect(metaOf(tools, "skills")?.ui?.resourceUri).toBe("ui://loadout/skills.html");
      expect(metaOf(tools, "skills")?.["ui/resourceUri"]).toBe("ui://loadout/skills.html");
      expect(metaOf(tools, "skill_edit")?.ui?.resourceUri).toBe("ui://loadout/skill-edit.html");
      const uris = (await client.listResources()).resources.map((r) => r.uri);
      expect(uris).toEqual(expect.arrayContaining(["ui://loadout/skills.html", "ui://loadout/skill-edit.html"]));
      for (const uri of ["ui://loadout/skills.html", "ui://loadout/skill-edit.html"]) {
        const read = await client.readResource({ uri });
        const [content] = read.contents as { uri: string; mimeType?: string; text?: string }[];
        expect(content?.mimeType).toBe(RESOURCE_MIME_TYPE);
        expect(content?.text).toMatch(/^<!doctype html>/i);
        expect(new TextEncoder().encode(content?.text ?? "").length).toBeLessThanOrEqual(64 * 1024);
      }
    } finally {
      await client.close();
    }
  });

  it("gives a client that does not negotiate undecorated tools, no views, and refuses a view's read", async () => {
    const client = await connect("/mcp", options, false);
    try {
      const { tools } = await client.listTools();
      expect(tools.every((t) => t._meta === undefined || !("ui" in t._meta))).toBe(true);
      const uris = (await client.listResources()).resources.map((r) => r.uri);
      expect(uris.some((u) => u.startsWith("ui://"))).toBe(false);
      // The upstream's other resources still pass through.
      expect(uris).toContain("loadout://servers/board/memo://readme");
      for (const uri of ["ui://loadout/skills.html", "ui://_servers/board/board/view.html"])
        await expect(client.readResource({ uri })).rejects.toThrow(/io\.modelcontextprotocol\/ui/);
    } finally {
      await client.close();
    }
  });

  it("passes an upstream's view through: namespaced at /mcp, as given at /mcp/s, read under the same rules", async () => {
    const client = await connect("/mcp", options, true);
    const single = await connect("/mcp/s/me/board", options, true);
    const plain = await connect("/mcp/s/me/board", options, false);
    try {
      const exposed = "ui://_servers/board/board/view.html";
      expect(metaOf((await client.listTools()).tools, "board_show_board")?.ui?.resourceUri).toBe(exposed);
      const read = await client.readResource({ uri: exposed });
      expect(read.contents[0]).toMatchObject({ uri: exposed, mimeType: RESOURCE_MIME_TYPE, text: BOARD_VIEW });
      expect(metaOf((await single.listTools()).tools, "show_board")?.ui?.resourceUri).toBe("ui://board/view.html");
      expect((await single.readResource({ uri: "ui://board/view.html" })).contents[0]).toMatchObject({
        text: BOARD_VIEW,
      });
      expect(metaOf((await plain.listTools()).tools, "show_board")).toBeUndefined();
      expect((await plain.listResources()).resources.map((r) => r.uri)).toEqual(["memo://readme"]);
      await expect(plain.readResource({ uri: "ui://board/view.html" })).rejects.toThrow(/io\.modelcontextprotocol\/ui/);
    } finally {
      await Promise.all([client.close(), single.close(), plain.close()]);
    }
  });

  it("carries what the views render: token estimates, file digests, and an edit's diff", async () => {
    const client = await connect("/mcp", options, true);
    try {
      const list = await client.callTool({ name: "skills", arguments: { action: "list" } });
      const items = (list.structuredContent as { items: { name: string; tokens: number }[] }).items;
      expect(items.find((i) => i.name === "review")?.tokens).toBeGreaterThan(5);
      const got = await client.callTool({ name: "skills", arguments: { action: "get", name: "review" } });
      const files = (got.structuredContent as { files: { path: string; size: number; digest: string }[] }).files;
      expect(files.map((f) => f.path)).toEqual(["SKILL.md", "references/checklist.md"]);
      for (const file of files) expect(file.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
      const edited = await client.callTool({
        name: "skill_edit",
        arguments: { action: "edit", name: "review", files: { "references/checklist.md": `- tests\n- ${_era}\n` } },
      });
      expect(edited.isError).toBeFalsy();
      const changes = (edited.structuredContent as { changes: { path: string; status: string; patch?: string }[] })
        .changes;
      expect(changes).toEqual([
        expect.objectContaining({ path: "references/checklist.md", status: "changed", patch: expect.any(String) }),
      ]);
      expect(changes[0]?.patch).toContain(`+- ${_era}`);
      expect((edited.content as { text: string }[])[0]?.text).toMatch(/Files: references\/checklist\.md \(changed\)/);
    } finally {
      await client.close();
    }
  });
});

describe("an upstream's view in plan mode", () => {
  it("is withheld, like any resource, until the user marks it safe there", async () => {
    const exposed = "ui://_servers/board/board/view.html";
    const plan = await connect("/mcp?mode=plan", {}, true);
    try {
      expect((await plan.listResources()).resources.map((r) => r.uri)).not.toContain(exposed);
      await expect(plan.readResource({ uri: exposed })).rejects.toThrow();
      // Loadout's own views are reading only: offered in plan mode too.
      expect((await plan.listResources()).resources.map((r) => r.uri)).toContain("ui://loadout/skills.html");
    } finally {
      await plan.close();
    }
    const marked = await account.rest("/v1/workspaces/me/servers/board/items", {
      method: "PATCH",
      body: { kind: "resource", key: "ui://board/view.html", planSafe: true },
    });
    expect(marked.status, JSON.stringify(marked.body)).toBe(200);
    const again = await connect("/mcp?mode=plan", {}, true);
    try {
      expect((await again.readResource({ uri: exposed })).contents[0]).toMatchObject({ text: BOARD_VIEW });
    } finally {
      await again.close();
      await account.rest("/v1/workspaces/me/servers/board/items", {
        method: "PATCH",
        body: { kind: "resource", key: "ui://board/view.html", planSafe: false },
      });
    }
  });
});

describe("an upstream's view link is pinned", () => {
  it("withholds a tool whose view link changed until it is approved again", async () => {
    boardView = "ui://board/other.html";
    try {
      expect((await account.rest("/v1/workspaces/me/servers/board/test", { method: "POST" })).status).toBe(200);
      const client = await connect("/mcp", {}, true);
      try {
        expect((await client.listTools()).tools.map((t) => t.name)).not.toContain("board_show_board");
        const approved = await account.rest("/v1/workspaces/me/servers/board/tools/approve", {
          method: "POST",
          body: {},
        });
        expect(approved.status).toBe(200);
        expect(metaOf((await client.listTools()).tools, "board_show_board")?.ui?.resourceUri).toBe(
          "ui://_servers/board/board/other.html",
        );
      } finally {
        await client.close();
      }
    } finally {
      boardView = "ui://board/view.html";
    }
  });
});

describe("an upstream's view content is pinned", () => {
  it("withholds a view whose content changed, until the server is tested and the change approved", async () => {
    const changed = "<!doctype html><title>Board</title><p>Another board</p>";
    const exposed = "ui://_servers/board/board/view.html";
    boardHtml = changed;
    try {
      const client = await connect("/mcp", {}, true);
      const single = await connect("/mcp/s/me/board", {}, true);
      try {
        await expect(client.readResource({ uri: exposed })).rejects.toThrow(/changed since it was approved/);
        await expect(single.readResource({ uri: "ui://board/view.html" })).rejects.toThrow(
          /changed since it was approved/,
        );
        expect((await account.rest("/v1/workspaces/me/servers/board/test", { method: "POST" })).status).toBe(200);
        // Listed again, its pin differs from the approved one: withheld, not listed, until approved.
        expect((await single.listResources()).resources.map((r) => r.uri)).not.toContain("ui://board/view.html");
        await expect(single.readResource({ uri: "ui://board/view.html" })).rejects.toThrow();
        const approved = await account.rest("/v1/workspaces/me/servers/board/items/approve", {
          method: "POST",
          body: {},
        });
        expect(approved.status).toBe(200);
        expect((await client.readResource({ uri: exposed })).contents[0]).toMatchObject({ text: changed });
        expect((await single.readResource({ uri: "ui://board/view.html" })).contents[0]).toMatchObject({
          text: changed,
        });
      } finally {
        await Promise.all([client.close(), single.close()]);
      }
    } finally {
      boardHtml = BOARD_VIEW;
    }
  });
});
