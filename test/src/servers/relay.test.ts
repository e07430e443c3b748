/**
 * The faithful proxy at `/mcp/s/{ws}/{slug}`: server-everything (sessionful, 2025-11-25) behind
 * Loadout, reached by the official SDK client on both eras. What it serves besides tools
 * (resources, templates, prompts, completions, logging) passes through; its JSON-RPC errors stay
 * JSON-RPC errors. Each resource, template and prompt is pinned like a tool: withheld while new or
 * changed, and in plan mode unless marked safe there.
 */
import { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Account, addApprovedServer, signUpAccount } from "../helpers/account";
import { legacyInitialize } from "../helpers/mcp-http";
import { startTestServer, type TestServer } from "../helpers/server";
import { startEverything, type Upstream } from "../helpers/upstream";
import { startStatelessUpstream } from "../helpers/upstreams";

let server: TestServer;
let everything: Upstream;
let account: Account;
let secret: string;

beforeAll(async () => {
  [server, everything] = await Promise.all([
    startTestServer({ LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1" }),
    startEverything(),
  ]);
  account = await signUpAccount(server.url, "relay@example.com");
  await addApprovedServer(account, "everything", everything.url);
  secret = (await account.token(["mcp"])).secret;
}, 60_000);

afterAll(async () => {
  await Promise.all([server?.close(), everything?.stop()]);
});

const ERAS = [
  ["2025 handshake", {}],
  ["2026-07-28", { versionNegotiation: { mode: "auto" as const } }],
] as const;

async function connect(options: (typeof ERAS)[number][1], query = ""): Promise<Client> {
  const client = new Client({ name: "relay-test", version: "1.0.0" }, options);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/s/me/everything${query}`), {
      requestInit: { headers: { authorization: `Bearer ${secret}` } },
    }),
  );
  return client;
}

describe.each(ERAS)("/mcp/s in front of server-everything, %s", (_era, options) => {
  it("declares what the upstream serves and lists its resources, templates and prompts", async () => {
    const client = await connect(options);
    try {
      const capabilities = client.getServerCapabilities();
      expect(capabilities?.resources).toBeDefined();
      expect(capabilities?.prompts).toBeDefined();
      expect(capabilities?.completions).toBeDefined();
      const resources = await client.listResources();
      expect(resources.resources.length).toBeGreaterThan(0);
      const templates = await client.listResourceTemplates();
      expect(templates.resourceTemplates.length).toBeGreaterThan(0);
      const prompts = await client.listPrompts();
      expect(prompts.prompts.map((p) => p.name)).toEqual(expect.arrayContaining(["simple-prompt"]));
    } finally {
      await client.close();
    }
  });

  it("reads a resource and gets a prompt as the upstream answers them", async () => {
    const client = await connect(options);
    try {
      const { resources } = await client.listResources();
      const first = resources[0];
      if (!first) throw new Error("no resource listed");
      const read = await client.readResource({ uri: first.uri });
      expect(read.contents[0]?.uri).toBe(first.uri);
      const prompt = await client.getPrompt({ name: "simple-prompt" });
      expect(prompt.messages.length).toBeGreaterThan(0);
      const args = await client.getPrompt({ name: "args-prompt", arguments: { city: "Lisbon" } });
      expect(JSON.stringify(args.messages)).toContain("Lisbon");
    } finally {
      await client.close();
    }
  });

  it("completes a prompt argument", async () => {
    const client = await connect(options);
    try {
      const completed = await client.complete({
        ref: { type: "ref/prompt", name: "args-prompt" },
        argument: { name: "city", value: "" },
      });
      expect(Array.isArray(completed.completion.values)).toBe(true);
    } finally {
      await client.close();
    }
  });

  it("relays the upstream's JSON-RPC error as an error, not a result", async () => {
    const client = await connect(options);
    try {
      // An approved prompt, asked without its required argument: the upstream refuses it.
      const failure = await client.getPrompt({ name: "args-prompt", arguments: {} }).then(
        () => null,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(ProtocolError);
      expect((failure as ProtocolError).code).toBe(-32602);
    } finally {
      await client.close();
    }
  });

  it("refuses a resource it never listed before anything is sent", async () => {
    const client = await connect(options);
    try {
      const failure = await client.readResource({ uri: "demo://resource/static/document/nope.md" }).then(
        () => null,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(ProtocolError);
      expect((failure as ProtocolError).message).toMatch(/not among the resources or templates it listed/);
    } finally {
      await client.close();
    }
  });
});

describe("/mcp/s logging and plan mode", () => {
  it("passes the upstream's log messages during a call, at the level a 2025 session set, kept for that session alone", async () => {
    const chatty = await startStatelessUpstream({ logging: true });
    try {
      await addApprovedServer(account, "chatty", chatty.url);
      /** A 2025 client (declaring `capabilities`), which sets `level` (unless null) and calls chatty twice. */
      const seen = async (level: "debug" | "info" | "error" | null, capabilities?: object) => {
        const client = new Client({ name: "relay-test", version: "1.0.0" }, capabilities ? { capabilities } : {});
        await client.connect(
          new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/s/me/chatty`), {
            requestInit: { headers: { authorization: `Bearer ${secret}` } },
          }),
        );
        const messages: unknown[] = [];
        client.setNotificationHandler("notifications/message", (notification) => {
          messages.push(notification.params.data);
        });
        try {
          expect(client.getServerCapabilities()?.logging).toBeDefined();
          if (level) await client.setLoggingLevel(level);
          for (let i = 0; i < 2; i++) {
            const result = await client.callTool({ name: "chatty", arguments: {} });
            expect(JSON.stringify(result.content)).toContain("chatty: done");
          }
          return messages;
        } finally {
          await client.close();
        }
      };
      const both = ["chatty: starting", "chatty: details"];
      expect(await seen("debug")).toEqual([...both, ...both]);
      // info drops chatty's debug message; error drops both. Sessions that set none hear all.
      expect(await seen("info")).toEqual(["chatty: starting", "chatty: starting"]);
      expect(await seen("error")).toEqual([]);
      expect(await seen(null)).toEqual([...both, ...both]);
      // A client the upstream may ask (its calls take the stream that carries the upstream's
      // requests) is held to its level the same way.
      expect(await seen("info", { elicitation: {} })).toEqual(["chatty: starting", "chatty: starting"]);
      expect(await seen(null, { elicitation: {} })).toEqual([...both, ...both]);
    } finally {
      await chatty.stop();
    }
  });

  it("refuses a 2025 logging/setLevel that names no level MCP knows, saying which it knows", async () => {
    const initialize = await legacyInitialize(`${server.url}/mcp/s/me/everything`, secret);
    const id = initialize.headers.get("mcp-session-id") ?? "";
    await initialize.body?.cancel();
    const answer = await fetch(`${server.url}/mcp/s/me/everything`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${secret}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": id,
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "logging/setLevel", params: { level: "loud" } }),
    });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({
      jsonrpc: "2.0",
      id: 3,
      error: {
        code: -32602,
        message: "params.level must be one of debug, info, notice, warning, error, critical, alert, emergency.",
      },
    });
  });

  it("keeps resources and prompts closed in plan mode until marked safe there", async () => {
    const client = await connect({}, "?mode=plan");
    try {
      expect(client.getServerCapabilities()?.prompts).toBeDefined();
      expect((await client.listPrompts()).prompts).toEqual([]);
      const refused = await client.getPrompt({ name: "simple-prompt" }).then(
        () => null,
        (error: unknown) => error as ProtocolError,
      );
      expect(refused?.message).toMatch(/not offered in plan mode: mark it safe for plan mode/);
      const marked = await account.rest("/v1/workspaces/me/servers/everything/items", {
        method: "PATCH",
        body: { kind: "prompt", key: "simple-prompt", planSafe: true },
      });
      expect(marked.status).toBe(200);
      expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(["simple-prompt"]);
      expect((await client.getPrompt({ name: "simple-prompt" })).messages.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });
});

describe("/mcp/s pins for resources, templates and prompts", () => {
  it("withholds new and changed items until approved, and refuses them without reaching the upstream", async () => {
    const upstream = await startStatelessUpstream({ items: true });
    try {
      const rest = account.rest;
      const base = "/v1/workspaces/me/servers/memo";
      expect(
        (
          await rest("/v1/workspaces/me/servers/import", {
            method: "POST",
            body: { text: JSON.stringify({ mcpServers: { memo: { url: upstream.url } } }) },
          })
        ).status,
      ).toBe(200);
      expect((await rest(`${base}/test`, { method: "POST" })).status).toBe(200);
      const listed = await rest(`${base}/items`);
      const items = (listed.body as { items: { kind: string; key: string; pin: string; exposedKey: string }[] }).items;
      expect(items.map((i) => [i.kind, i.key, i.pin])).toEqual([
        ["prompt", "greet", "new"],
        ["resource", "memo://notes", "new"],
        ["template", "memo://notes/{id}", "new"],
      ]);
      expect(items.find((i) => i.kind === "resource")?.exposedKey).toBe("loadout://servers/memo/memo://notes");

      for (const [, options] of ERAS) {
        const client = new Client({ name: "pins-test", version: "1.0.0" }, options);
        await client.connect(
          new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/s/me/memo`), {
            requestInit: { headers: { authorization: `Bearer ${secret}` } },
          }),
        );
        try {
          expect((await client.listResources()).resources).toEqual([]);
          expect((await client.listPrompts()).prompts).toEqual([]);
          const reads = upstream.received("resources/read");
          const refused = await client.readResource({ uri: "memo://notes/7" }).then(
            () => null,
            (error: unknown) => error as ProtocolError,
          );
          expect(refused?.message).toMatch(/not approved yet: review it in the Loadout console/);
          expect(upstream.received("resources/read")).toBe(reads);
        } finally {
          await client.close();
        }
      }

      const approved = await rest(`${base}/items/approve`, { method: "POST", body: {} });
      expect((approved.body as { items: { pin: string }[] }).items.map((i) => i.pin)).toEqual([
        "approved",
        "approved",
        "approved",
      ]);
      const client = new Client({ name: "pins-test", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/s/me/memo`), {
          requestInit: { headers: { authorization: `Bearer ${secret}` } },
        }),
      );
      try {
        expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(["memo://notes"]);
        // Read through the approved template: a URI it never listed, but one the template matches.
        expect((await client.readResource({ uri: "memo://notes/7" })).contents[0]).toMatchObject({ text: "note 7" });
        expect((await client.getPrompt({ name: "greet", arguments: { who: "Ada" } })).messages[0]).toMatchObject({
          content: { text: "Hello, Ada!" },
        });

        // The upstream changes the prompt's description: the next listing withholds it and the
        // console shows the change for review.
        upstream.setPromptVersion(2);
        expect((await client.listPrompts()).prompts).toEqual([]);
        const changed = await client.getPrompt({ name: "greet", arguments: { who: "Ada" } }).then(
          () => null,
          (error: unknown) => error as ProtocolError,
        );
        expect(changed?.message).toMatch(/its definition changed since it was approved/);
        const review = await rest(`${base}/items`);
        const greet = (
          review.body as { items: { key: string; pin: string; approved: { description: string } | null }[] }
        ).items.find((i) => i.key === "greet");
        expect(greet?.pin).toBe("changed");
        expect(greet?.approved?.description).toContain("version 1");
        await rest(`${base}/items/approve`, { method: "POST", body: { items: [{ kind: "prompt", key: "greet" }] } });
        expect((await client.listPrompts()).prompts[0]?.description).toContain("version 2");

        // Switched off: withheld again.
        await rest(`${base}/items`, {
          method: "PATCH",
          body: { kind: "resource", key: "memo://notes", enabled: false },
        });
        expect((await client.listResources()).resources).toEqual([]);
      } finally {
        await client.close();
      }

      const unknown = await rest(`${base}/items/approve`, {
        method: "POST",
        body: { items: [{ kind: "prompt", key: "nope" }] },
      });
      expect(unknown.status).toBe(400);
      expect(JSON.stringify(unknown.body)).toContain('no prompt \\"nope\\"');
    } finally {
      await upstream.stop();
    }
  });
});

describe("/mcp serves every upstream's resources, templates and prompts under its own names", () => {
  it.each(ERAS)("lists, reads and gets them by their exposed names, %s", async (_era, options) => {
    const upstream = await startStatelessUpstream({ items: true });
    const slug = `notes${_era.startsWith("2025") ? "a" : "b"}`;
    try {
      await addApprovedServer(account, slug, upstream.url);
      const client = new Client({ name: "aggregate-test", version: "1.0.0" }, options);
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${secret}` } },
        }),
      );
      try {
        expect(client.getServerCapabilities()?.prompts).toBeDefined();
        const resources = (await client.listResources()).resources.map((r) => r.uri);
        expect(resources).toContain(`loadout://servers/${slug}/memo://notes`);
        const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
        expect(templates).toContain(`loadout://servers/${slug}/memo://notes/{id}`);
        const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
        expect(prompts).toContain(`${slug}_greet`);

        const read = await client.readResource({ uri: `loadout://servers/${slug}/memo://notes` });
        expect(read.contents[0]).toMatchObject({
          uri: `loadout://servers/${slug}/memo://notes`,
          text: "note 1, note 2",
        });
        const viaTemplate = await client.readResource({ uri: `loadout://servers/${slug}/memo://notes/5` });
        expect(viaTemplate.contents[0]).toMatchObject({
          uri: `loadout://servers/${slug}/memo://notes/5`,
          text: "note 5",
        });
        const prompt = await client.getPrompt({ name: `${slug}_greet`, arguments: { who: "Grace" } });
        expect(prompt.messages[0]).toMatchObject({ content: { text: "Hello, Grace!" } });

        // A link an upstream tool returns is under the same prefix, and reads back through Loadout.
        const linked = await client.callTool({ name: `${slug}_link_note`, arguments: {} });
        const link = (linked.content as { type: string; uri?: string }[])[0];
        expect(link).toMatchObject({ type: "resource_link", uri: `loadout://servers/${slug}/memo://notes/3` });
        expect((await client.readResource({ uri: link?.uri ?? "" })).contents[0]).toMatchObject({ text: "note 3" });

        // An upstream URI as it is (not under the server's prefix) names nothing at /mcp.
        const unknown = await client.readResource({ uri: "memo://notes" }).then(
          () => null,
          (error: unknown) => error,
        );
        expect(unknown).toBeInstanceOf(ProtocolError);
      } finally {
        await client.close();
      }
    } finally {
      await upstream.stop();
    }
  });
});

describe("/mcp passes an upstream's log messages to a 2026-07-28 client that names a level", () => {
  it("sends the messages at or above the level the call names, and none to a call that names none", async () => {
    const chatty = await startStatelessUpstream({ logging: true });
    try {
      await addApprovedServer(account, "talker", chatty.url);
      const client = new Client({ name: "aggregate-log-test", version: "1.0.0" }, ERAS[1][1]);
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${secret}` } },
        }),
      );
      const messages: unknown[] = [];
      client.setNotificationHandler("notifications/message", (notification) => {
        messages.push(notification.params.data);
      });
      try {
        expect(client.getServerCapabilities()?.logging).toBeDefined();
        const call = (meta: Record<string, unknown>) =>
          client.callTool({ name: "talker_chatty", arguments: {}, _meta: meta });
        expect(JSON.stringify((await call({ "io.modelcontextprotocol/logLevel": "info" })).content)).toContain(
          "chatty: done",
        );
        expect(messages).toEqual(["chatty: starting"]);
        messages.length = 0;
        await call({});
        expect(messages).toEqual([]);
      } finally {
        await client.close();
      }
    } finally {
      await chatty.stop();
    }
  });
});
