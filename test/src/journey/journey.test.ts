/**
 * One journey, the same on both hosts (issue "Workers, whole"): the Node entry as `npm start` runs
 * it, and the Workers topology in workerd as production runs it (api Worker with the call-log
 * Queue and local Hyperdrive to this machine's Postgres, proxy Worker with its Durable Objects;
 * test/src/worker/topology.ts). Sign-up, a token, a skill, the SDK v2 client on both eras and the
 * v1 client, a real server-everything imported, tested and approved, its tool listed and called
 * through /mcp and /mcp/s, lazy tools, MCP Apps views, plan mode, a saved endpoint's pins (project
 * and mode), a revoked token refused on its next call, and the call log.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Account, signUpAccount } from "../helpers/account";
import { ERAS } from "../helpers/mcp-http";
import { skillDoc, startSkillsUpstream } from "../helpers/skills-upstream";
import { startEverything, type Upstream } from "../helpers/upstream";
import { bothHosts, type Host } from "./hosts";

const SECRET_KEY = "journey-secret-key-0123456789abcdef-0123";
const PASSWORD = "a journey of a thousand calls";

const HOSTS = bothHosts(SECRET_KEY);

const textOf = (result: { content?: unknown }) =>
  ((result.content ?? []) as { type: string; text?: string }[]).map((c) => c.text ?? "").join("\n");

describe.each(HOSTS)("the journey on %s", (_name, start) => {
  let host: Host;
  let everything: Upstream;
  let account: Account;
  let secret: string;
  let tokenId: string;

  beforeAll(async () => {
    [host, everything] = await Promise.all([start(), startEverything("streamableHttp")]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([host?.stop(), everything?.stop()]);
  });

  const fetchFor = (url: string | URL, init?: RequestInit) => host.send(String(url), init ?? {});

  async function connect(path: string, options: object, token = secret) {
    const client = new Client({ name: "journey", version: "1.0.0" }, options);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${host.url}${path}`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
        fetch: fetchFor,
      }),
    );
    return client;
  }

  it("signs up, makes an MCP token and a skill", async () => {
    account = await signUpAccount(host.url, "journey@example.com", PASSWORD, host.send);
    const token = await account.token(["mcp"]);
    secret = token.secret;
    tokenId = token.id;
    const created = await account.rest("/v1/workspaces/me/skills", {
      method: "POST",
      body: { name: "journey-notes", description: "How the journey goes.", instructions: "# Journey\nStep by step." },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  });

  it.each(ERAS)("serves the skill to the SDK v2 client, %s", async (_era, options) => {
    const client = await connect("/mcp", options);
    try {
      expect(client.getInstructions()).toContain("journey-notes: How the journey goes.");
      const got = await client.callTool({ name: "skills", arguments: { action: "get", name: "journey-notes" } });
      expect(textOf(got)).toContain("Step by step.");
    } finally {
      await client.close();
    }
  });

  it("serves the skill to the SDK v1 client", async () => {
    const client = new ClientV1({ name: "journey-v1", version: "1.0.0" });
    await client.connect(
      new TransportV1(new URL(`${host.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${secret}` } },
        fetch: fetchFor,
      }),
    );
    try {
      const got = await client.callTool({ name: "skills", arguments: { action: "get", name: "journey-notes" } });
      expect(textOf(got as { content?: unknown })).toContain("Step by step.");
    } finally {
      await client.close();
    }
  });

  it("imports server-everything, tests it and approves its tools", async () => {
    const imported = await account.rest("/v1/workspaces/me/servers/import", {
      method: "POST",
      body: { text: JSON.stringify({ mcpServers: { everything: { url: everything.url } } }) },
    });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    const tested = await account.rest("/v1/workspaces/me/servers/everything/test", { method: "POST" });
    expect(tested.status).toBe(200);
    expect(tested.body.error).toBeNull();
    expect((tested.body.tools.tools as { name: string }[]).map((t) => t.name)).toContain("echo");
    const approved = await account.rest("/v1/workspaces/me/servers/everything/tools/approve", {
      method: "POST",
      body: {},
    });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
  });

  it.each(ERAS)("lists and calls its tool through /mcp and /mcp/s, %s", async (era, options) => {
    const client = await connect("/mcp", options);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("everything_echo");
      const echoed = await client.callTool({ name: "everything_echo", arguments: { message: `via /mcp ${era}` } });
      expect(echoed.isError).toBeFalsy();
      expect(textOf(echoed)).toContain(`via /mcp ${era}`);
    } finally {
      await client.close();
    }
    const single = await connect("/mcp/s/me/everything", options);
    try {
      const echoed = await single.callTool({ name: "echo", arguments: { message: `via /mcp/s ${era}` } });
      expect(textOf(echoed)).toContain(`via /mcp/s ${era}`);
    } finally {
      await single.close();
    }
  });

  it.each(ERAS)(
    "offers lazy tools: find_tools finds the upstream tool and call_tool calls it, %s",
    async (era, options) => {
      const client = await connect("/mcp?tools=lazy", options);
      try {
        const listed = (await client.listTools()).tools.map((t) => t.name);
        expect(listed).toEqual(["skills", "skill_edit", "find_tools", "call_tool"]);
        const found = await client.callTool({ name: "find_tools", arguments: { query: "echo", limit: 1 } });
        expect((found.structuredContent as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual([
          "everything_echo",
        ]);
        const echoed = await client.callTool({
          name: "call_tool",
          arguments: { name: "everything_echo", arguments: { message: `lazy ${era}` } },
        });
        expect(echoed.isError).toBeFalsy();
        expect(textOf(echoed)).toContain(`lazy ${era}`);
      } finally {
        await client.close();
      }
    },
  );

  it.each(ERAS)("serves MCP Apps views only to a client that negotiates them, %s", async (_era, options) => {
    const ui = { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } };
    const client = await connect("/mcp", { ...options, capabilities: ui });
    const plain = await connect("/mcp", options);
    try {
      const skills = (await client.listTools()).tools.find((t) => t.name === "skills");
      expect((skills?._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri).toBe("ui://loadout/skills.html");
      const read = await client.readResource({ uri: "ui://loadout/skills.html" });
      expect(read.contents[0]).toMatchObject({ mimeType: "text/html;profile=mcp-app" });
      expect((read.contents[0] as { text?: string }).text).toMatch(/^<!doctype html>/i);
      expect((await plain.listTools()).tools.find((t) => t.name === "skills")?._meta?.ui).toBeUndefined();
      await expect(plain.readResource({ uri: "ui://loadout/skills.html" })).rejects.toThrow(
        /io\.modelcontextprotocol\/ui/,
      );
    } finally {
      await Promise.all([client.close(), plain.close()]);
    }
  });

  it.each(ERAS)("serves an upstream server's skills beside the user's own, verified, %s", async (era, options) => {
    const slug = era.startsWith("2026") ? "manuals-modern" : "manuals-legacy";
    const manuals = await startSkillsUpstream({
      "pdf-forms": { "SKILL.md": skillDoc("pdf-forms", "Fill in PDF forms."), "references/fields.md": "# Fields\n" },
    });
    try {
      const imported = await account.rest("/v1/workspaces/me/servers/import", {
        method: "POST",
        body: { text: JSON.stringify({ mcpServers: { [slug]: { url: manuals.url } } }) },
      });
      expect(imported.status, JSON.stringify(imported.body)).toBe(200);
      expect((await account.rest(`/v1/workspaces/me/servers/${slug}/test`, { method: "POST" })).body.error).toBeNull();
      const approved = await account.rest(`/v1/workspaces/me/servers/${slug}/items/approve`, {
        method: "POST",
        body: {},
      });
      expect(approved.status, JSON.stringify(approved.body)).toBe(200);
      const client = await connect("/mcp", options);
      try {
        const skills = new SkillsClient(client);
        const uri = `skill://_servers/${slug}/pdf-forms/SKILL.md`;
        const listed = (await skills.list()).skills.find((s) => s.uri === uri);
        expect(listed?._meta?.["dev.loadout/origin"]).toBe(`server:${slug}`);
        const { skill } = await skills.get(uri);
        const doc = await skills.read(skill, "references/fields.md");
        expect(doc.verified).toBe(true);
        expect(new TextDecoder().decode(doc.bytes)).toBe("# Fields\n");
        const listedByTool = await client.callTool({ name: "skills", arguments: { action: "list" } });
        expect(textOf(listedByTool)).toContain(`server:${slug}/pdf-forms`);
      } finally {
        await client.close();
      }
    } finally {
      await account.rest(`/v1/workspaces/me/servers/${slug}`, { method: "DELETE" });
      await manuals.stop();
    }
  });

  it("offers in plan mode only what was marked plan-safe, and refuses the rest", async () => {
    const marked = await account.rest("/v1/workspaces/me/servers/everything/tools/echo", {
      method: "PATCH",
      body: { planSafeActions: ["*"] },
    });
    expect(marked.status, JSON.stringify(marked.body)).toBe(200);
    const client = await connect("/mcp?mode=plan", {});
    try {
      const listed = (await client.listTools()).tools.map((t) => t.name);
      expect(listed).toContain("everything_echo");
      expect(listed).not.toContain("skill_edit");
      expect(listed).not.toContain("everything_toggle-subscriber-updates");
      const refused = await client.callTool({ name: "everything_toggle-subscriber-updates", arguments: {} });
      expect(refused.isError).toBe(true);
      expect(textOf(await client.callTool({ name: "everything_echo", arguments: { message: "planned" } }))).toContain(
        "planned",
      );
    } finally {
      await client.close();
    }
  });

  it.each(ERAS)("serves a saved endpoint as it pins project and mode, %s", async (era, options) => {
    const name = `alpha-${era.startsWith("2026") ? "modern" : "legacy"}`;
    const created = await account.rest("/v1/workspaces/me/skills", {
      method: "POST",
      body: {
        name,
        description: "Only for the alpha project.",
        instructions: "# Alpha",
        scope: { mode: "projects", projects: [`/work/${name}`] },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const endpoint = await account.rest("/v1/endpoints", {
      method: "POST",
      body: { name: `${name} plan`, project: `/work/${name}`, mode: "plan" },
    });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    const pinned = await connect(endpoint.body.path, options);
    const plain = await connect("/mcp", options);
    try {
      const listed = (await pinned.listTools()).tools.map((t) => t.name);
      expect(listed).toContain("skills");
      expect(listed).not.toContain("skill_edit");
      const items = await pinned.callTool({ name: "skills", arguments: { action: "list" } });
      expect(textOf(items)).toContain(name);
      const elsewhere = await plain.callTool({ name: "skills", arguments: { action: "list" } });
      expect(textOf(elsewhere)).not.toContain(name);
      expect((await plain.listTools()).tools.map((t) => t.name)).toContain("skill_edit");
    } finally {
      await Promise.all([pinned.close(), plain.close()]);
    }
  });

  it("records every call in the activity log", async () => {
    await expect
      .poll(
        async () => {
          const activity = await account.rest("/v1/workspaces/me/activity?kind=call");
          return JSON.stringify(activity.body);
        },
        { timeout: 10_000 },
      )
      .toContain("everything_echo");
  });

  it("refuses a revoked token on its very next call", async () => {
    const client = await connect("/mcp", ERAS[0][1]);
    try {
      expect(textOf(await client.callTool({ name: "skills", arguments: { action: "list" } }))).toContain(
        "journey-notes",
      );
      const revoked = await account.rest(`/v1/tokens/${tokenId}`, { method: "DELETE" });
      expect(revoked.status).toBeLessThan(300);
      await expect(client.callTool({ name: "skills", arguments: { action: "list" } })).rejects.toThrow();
    } finally {
      await client.close().catch(() => {});
    }
  });
});
