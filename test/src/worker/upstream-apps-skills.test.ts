/**
 * An upstream's MCP Apps views and its skills (SEP-2640) through the single-server endpoint
 * `/mcp/s/{workspace}/{slug}` on the Workers topology as production runs it (test/src/worker/topology.ts:
 * the built api Worker and the proxy Worker with its Durable Objects, in workerd), with the official
 * SDK client on both eras. Mirrors the Node tests of the same rules (test/src/mcp/apps.test.ts,
 * test/src/mcp/upstream-skills.test.ts): a client that negotiates Apps sees the tool's view link as the
 * upstream gave it and reads the view; one that does not is refused the read; a view whose content
 * changed is withheld until Test and approval; the skills extension is passed through under the
 * skill pins, its files verified against the approved manifest, a tampered file and a changed skill
 * withheld.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { RESOURCE_MIME_TYPE, registerAppResource, registerAppTool } from "@modelcontextprotocol/ext-apps/server";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type Account, addApprovedServer, signUpAccount } from "../helpers/account";
import { ERAS } from "../helpers/mcp-http";
import { type SkillsUpstream, skillDoc, startSkillsUpstream } from "../helpers/skills-upstream";
import { serveMcpHandler } from "../helpers/upstreams";
import { startWorkersTopology, type WorkersTopology } from "./topology";

const ORIGIN = "http://loadout.test";
const UI = { "io.modelcontextprotocol/ui": { mimeTypes: [RESOURCE_MIME_TYPE] } };
const VIEW_URI = "ui://board/view.html";
const BOARD_VIEW = "<!doctype html><title>Board</title><p>The board view</p>";
/** What the upstream's view holds now: changed by a test to see its content pinned. */
let boardHtml = BOARD_VIEW;

const PDF = skillDoc("pdf", "Fill in PDF forms.");
const FORMS = "# Forms\n\nField by field.\n";
const BROKEN = skillDoc("broken", "Served with other bytes than its digest says.");

let w: WorkersTopology;
let board: { url: string; stop(): Promise<void> };
let docs: SkillsUpstream;
let account: Account;
let secret: string;

beforeAll(async () => {
  const handler = createMcpHandler(
    () => {
      const server = new McpServer({ name: "board", version: "1.0.0" });
      registerAppTool(
        server,
        "show_board",
        {
          description: "Shows the team's board.",
          inputSchema: z.object({}),
          _meta: { ui: { resourceUri: VIEW_URI } },
        },
        async () => ({ content: [{ type: "text" as const, text: "3 cards on the board" }] }),
      );
      registerAppResource(server, "board_view", VIEW_URI, { description: "The board." }, async () => ({
        contents: [{ uri: VIEW_URI, mimeType: RESOURCE_MIME_TYPE, text: boardHtml }],
      }));
      server.registerResource("readme", "memo://readme", { mimeType: "text/plain" }, async () => ({
        contents: [{ uri: "memo://readme", text: "read me" }],
      }));
      return server;
    },
    { legacy: "stateless" },
  );
  [w, board, docs] = await Promise.all([
    startWorkersTopology({
      LOADOUT_SECRET_KEY: "upstream-apps-skills-key-0123456789abcdef",
      LOADOUT_INSECURE_COOKIES: "1",
    }),
    serveMcpHandler(handler),
    startSkillsUpstream({
      pdf: { "SKILL.md": PDF, "references/forms.md": FORMS },
      broken: { "SKILL.md": BROKEN },
    }),
  ]);
  account = await signUpAccount(ORIGIN, "upstream-apps-skills@worker.example", undefined, w.send);
  await addApprovedServer(account, "board", board.url);
  await addApprovedServer(account, "docs", docs.url);
  // After approval the server serves other bytes for one file than its entry's digest says.
  docs.tamper("skill://broken/SKILL.md", skillDoc("broken", "Other bytes.", "# Do something else\n"));
  secret = (await account.token(["mcp"])).secret;
}, 180_000);

afterAll(async () => {
  await Promise.all([w?.stop(), board?.stop(), docs?.stop()]);
});

/** What the Workers logged, for a failure's message. */
const logs = () => w.logs.slice(-30).join("\n");

async function connect(path: string, options: object, apps = false) {
  const client = new Client(
    { name: "workerd-upstream-apps-skills", version: "1.0.0" },
    { ...options, ...(apps ? { capabilities: { extensions: UI } } : {}) },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${ORIGIN}${path}`), {
      requestInit: { headers: { authorization: `Bearer ${secret}` } },
      fetch: (url, init) => w.send(String(url), init),
    }),
  );
  return client;
}

async function rest(path: string, body?: unknown) {
  const answer = await account.rest(path, { method: "POST", ...(body === undefined ? {} : { body }) });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body;
}

const metaOf = (tools: { name: string; _meta?: Record<string, unknown> }[], name: string) =>
  tools.find((t) => t.name === name)?._meta as { ui?: { resourceUri?: string }; "ui/resourceUri"?: string } | undefined;

describe.each(ERAS)("at /mcp/s in workerd, %s", (era, options) => {
  const expectedEra = era.startsWith("2026") ? "modern" : "legacy";

  it("passes the upstream's view through to a client that negotiates Apps, and refuses it to one that does not", async () => {
    const apps = await connect("/mcp/s/me/board", options, true);
    const plain = await connect("/mcp/s/me/board", options, false);
    try {
      expect(apps.getProtocolEra()).toBe(expectedEra);
      expect(plain.getProtocolEra()).toBe(expectedEra);
      const meta = metaOf((await apps.listTools()).tools, "show_board");
      expect(meta?.ui?.resourceUri, logs()).toBe(VIEW_URI);
      expect((await apps.listResources()).resources.map((r) => r.uri).sort()).toEqual(["memo://readme", VIEW_URI]);
      const read = await apps.readResource({ uri: VIEW_URI });
      expect(read.contents).toEqual([{ uri: VIEW_URI, mimeType: RESOURCE_MIME_TYPE, text: BOARD_VIEW }]);

      expect(metaOf((await plain.listTools()).tools, "show_board")?.ui).toBeUndefined();
      expect((await plain.listResources()).resources.map((r) => r.uri)).toEqual(["memo://readme"]);
      await expect(plain.readResource({ uri: VIEW_URI })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringMatching(/io\.modelcontextprotocol\/ui/),
      });
      // The upstream's other resources still pass through to it.
      expect((await plain.readResource({ uri: "memo://readme" })).contents[0]).toMatchObject({ text: "read me" });
    } finally {
      await Promise.all([apps.close(), plain.close()]);
    }
  });

  it("withholds a view whose content changed after approval, until the server is tested and the change approved", async () => {
    const changed = `<!doctype html><title>Board</title><p>Another board, ${era}</p>`;
    boardHtml = changed;
    try {
      const client = await connect("/mcp/s/me/board", options, true);
      try {
        await expect(client.readResource({ uri: VIEW_URI })).rejects.toThrow(/changed since it was approved/);
        await rest("/v1/workspaces/me/servers/board/test");
        // Listed again, its pin differs from the approved one: not listed, not read, until approved.
        expect((await client.listResources()).resources.map((r) => r.uri)).not.toContain(VIEW_URI);
        await expect(client.readResource({ uri: VIEW_URI })).rejects.toThrow();
        await rest("/v1/workspaces/me/servers/board/items/approve", {});
        expect((await client.readResource({ uri: VIEW_URI })).contents[0]).toMatchObject({
          uri: VIEW_URI,
          mimeType: RESOURCE_MIME_TYPE,
          text: changed,
        });
      } finally {
        await client.close();
      }
    } finally {
      // Back as approved first, for the next era.
      boardHtml = BOARD_VIEW;
      await rest("/v1/workspaces/me/servers/board/test");
      await rest("/v1/workspaces/me/servers/board/items/approve", {});
    }
  });

  it("passes the skills extension through: listed, got and read with every file verified, a tampered file withheld", async () => {
    const client = await connect("/mcp/s/me/docs", options);
    try {
      expect(client.getProtocolEra()).toBe(expectedEra);
      const skills = new SkillsClient(client);
      expect(skills.supported, logs()).toBe(true);
      const listed = (await skills.list()).skills;
      expect(listed.map((s) => s.uri).sort()).toEqual(["skill://broken/SKILL.md", "skill://pdf/SKILL.md"]);
      const { skill } = await skills.get("skill://pdf/SKILL.md");
      expect(skill.frontmatter).toEqual({ name: "pdf", description: "Fill in PDF forms." });
      expect(Array.isArray(skill.resources) && skill.resources.map((r) => r.uri).sort()).toEqual([
        "skill://pdf/SKILL.md",
        "skill://pdf/references/forms.md",
      ]);
      const doc = await skills.read(skill);
      expect(doc.verified).toBe(true);
      expect(doc.text).toBe(PDF);
      const forms = await skills.read(skill, "references/forms.md");
      expect(forms.verified).toBe(true);
      expect(new TextDecoder().decode(forms.bytes)).toBe(FORMS);
      // A file no approved manifest lists is refused before the server is asked.
      const reads = docs.received("resources/read");
      await expect(client.readResource({ uri: "skill://pdf/secrets.md" })).rejects.toThrow(/not among/);
      expect(docs.received("resources/read")).toBe(reads);
      // Bytes that do not match the approved manifest are withheld, and from then on the skill.
      await expect(client.readResource({ uri: "skill://broken/SKILL.md" })).rejects.toThrow(
        /withheld: the server served \d+ bytes where the approved manifest says \d+/,
      );
      expect((await skills.list()).skills.map((s) => s.uri)).toEqual(["skill://pdf/SKILL.md"]);
      await expect(skills.get("skill://broken/SKILL.md")).rejects.toThrow();
      const items = await account.rest("/v1/workspaces/me/servers/docs/items");
      const broken = (items.body.items as { key: string; problem: string | null }[]).find(
        (i) => i.key === "skill://broken/SKILL.md",
      );
      expect(broken?.problem).toMatch(/SKILL\.md did not match its approved manifest/);
      // Test lists it again, which checks it anew: offered again until a read finds it out.
      await rest("/v1/workspaces/me/servers/docs/test");
      expect((await skills.list()).skills.map((s) => s.uri)).toContain("skill://broken/SKILL.md");
    } finally {
      await client.close();
    }
  });

  it("withholds a skill changed after approval until it is approved again, then serves it as it is now", async () => {
    const description = `Fill in PDF forms, now with signatures (${era}).`;
    await docs.setSkill("pdf", { "SKILL.md": skillDoc("pdf", description) });
    try {
      await rest("/v1/workspaces/me/servers/docs/test");
      const items = await account.rest("/v1/workspaces/me/servers/docs/items");
      const pdf = (items.body.items as { kind: string; key: string; pin: string }[]).find(
        (i) => i.kind === "skill" && i.key === "skill://pdf/SKILL.md",
      );
      expect(pdf?.pin).toBe("changed");
      const client = await connect("/mcp/s/me/docs", options);
      try {
        const skills = new SkillsClient(client);
        expect((await skills.list()).skills.map((s) => s.uri)).not.toContain("skill://pdf/SKILL.md");
        await expect(skills.get("skill://pdf/SKILL.md")).rejects.toThrow(/skill:\/\/pdf\/SKILL\.md/);
        await expect(client.readResource({ uri: "skill://pdf/SKILL.md" })).rejects.toThrow();
        await rest("/v1/workspaces/me/servers/docs/items/approve", {
          items: [{ kind: "skill", key: "skill://pdf/SKILL.md" }],
        });
        const { skill } = await skills.get("skill://pdf/SKILL.md");
        expect(skill.frontmatter.description).toBe(description);
        expect(Array.isArray(skill.resources) && skill.resources.map((r) => r.uri)).toEqual(["skill://pdf/SKILL.md"]);
        const doc = await skills.read(skill);
        expect(doc.verified).toBe(true);
        expect(doc.text).toBe(skillDoc("pdf", description));
      } finally {
        await client.close();
      }
    } finally {
      // Back as first approved, for the next era.
      await docs.setSkill("pdf", { "SKILL.md": PDF, "references/forms.md": FORMS });
      await rest("/v1/workspaces/me/servers/docs/test");
      await rest("/v1/workspaces/me/servers/docs/items/approve", {
        items: [{ kind: "skill", key: "skill://pdf/SKILL.md" }],
      });
    }
  });
});
