/**
 * The faithful proxy at `/mcp/s/{ws}/{slug}`: server-everything (sessionful, 2025-11-25) behind
 * Loadout, reached by the official SDK client on both eras. What it serves besides tools
 * (resources, templates, prompts, completions, logging) passes through; its JSON-RPC errors stay
 * JSON-RPC errors; plan mode keeps them closed.
 */
import { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Account, addApprovedServer, signUpAccount } from "../helpers/account";
import { ENVELOPE, mcpHeaders } from "../helpers/mcp-http";
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

  it("relays the upstream's JSON-RPC error for an unknown resource as an error, not a result", async () => {
    const client = await connect(options);
    try {
      const failure = await client.readResource({ uri: "demo://resource/static/document/nope.md" }).then(
        () => null,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(ProtocolError);
      expect((failure as ProtocolError).message).toMatch(/not found/i);
    } finally {
      await client.close();
    }
  });
});

describe("/mcp/s logging and plan mode", () => {
  it("passes the upstream's log messages during a call, at the level the client's revision allows", async () => {
    const chatty = await startStatelessUpstream({ logging: true });
    try {
      await addApprovedServer(account, "chatty", chatty.url);
      const seen = async (options: (typeof ERAS)[number][1]) => {
        const client = new Client({ name: "relay-test", version: "1.0.0" }, options);
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
          await client.setLoggingLevel("debug");
          const result = await client.callTool({ name: "chatty", arguments: {} });
          expect(JSON.stringify(result.content)).toContain("chatty: done");
          return messages;
        } finally {
          await client.close();
        }
      };
      // A 2025 client's level cannot be kept by a stateless endpoint: it hears every message.
      expect(await seen({})).toEqual(["chatty: starting", "chatty: details"]);
    } finally {
      await chatty.stop();
    }
  });

  it("keeps resources and prompts closed in plan mode", async () => {
    const client = await connect({}, "?mode=plan");
    try {
      expect(client.getServerCapabilities()?.resources).toBeUndefined();
      expect(client.getServerCapabilities()?.prompts).toBeUndefined();
    } finally {
      await client.close();
    }
    const refused = await fetch(`${server.url}/mcp/s/me/everything?mode=plan`, {
      method: "POST",
      headers: mcpHeaders(secret, "resources/list"),
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "resources/list", params: { _meta: ENVELOPE } }),
    });
    const answer = (await refused.json()) as { error?: { code: number } };
    expect(answer.error?.code).toBe(-32601);
  });
});
