/**
 * The proxy's faults and ceilings in workerd, as the Node suite (test/src/servers/proxy.test.ts)
 * asserts them: the Workers topology as production runs it (test/src/worker/topology.ts), real
 * upstreams on loopback started here, and the official SDK client at /mcp. What worker.test.ts
 * already covers (session reuse, a fresh object on edit, a hung call's timeout answer held in the
 * object) is not repeated; here: drop, garbage, 20 MB, a changed definition, 16 servers listed at
 * once on first use, the 17th skipped and reported, and an object whose sessions its idle alarm
 * closed.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Account, addApprovedServer, signUpAccount } from "../helpers/account";
import { legacyInitialize } from "../helpers/mcp-http";
import {
  type MisbehavingUpstream,
  type StatelessUpstream,
  shiftyDescription,
  startMisbehavingUpstream,
  startStatelessUpstream,
} from "../helpers/upstreams";
import { startWorkersTopology, type WorkersTopology } from "./topology";

process.env.CLOUDFLARE_CF_FETCH_ENABLED = "false";
process.env.WRANGLER_SEND_METRICS = "false";

const SECRET_KEY = "proxy-faults-secret-key-0123456789abcdef";
const PASSWORD = "faults at the edge of the proxy";
const ORIGIN = "http://loadout.test";
/** How long an object keeps unused sessions before its alarm closes them, in these tests. */
const IDLE_MS = 1_500;

let topology: WorkersTopology;
let misbehaving: MisbehavingUpstream;
let stateless: StatelessUpstream;
let account: Account;
let token: string;

const textOf = (result: { content?: unknown }) =>
  ((result.content ?? []) as { type: string; text?: string }[])
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("\n");

async function connect(bearer = token) {
  const client = new Client({ name: "proxy-faults", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${ORIGIN}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${bearer}` } },
      fetch: (url, init) => topology.send(String(url), init ?? {}),
    }),
  );
  return client;
}

const names = async (client: Client) =>
  (await client.listTools({}, { cacheMode: "refresh" } as never)).tools.map((t) => t.name).sort();

/** A fresh account of its own, with an `mcp` token. */
async function newAccount(email: string) {
  const owner = await signUpAccount(ORIGIN, email, PASSWORD, topology.send);
  return { owner, bearer: (await owner.token(["mcp"])).secret };
}

/** Open upstream sessions in the object of this server (by slug, within this account's workspace). */
async function openSessions(owner: Account, slug: string) {
  const db = postgres(topology.databaseUrl, { max: 1, onnotice: () => {} });
  let row: { id: string; generation: number } | undefined;
  try {
    const server = (await owner.rest(`/v1/workspaces/me/servers/${slug}`)).body;
    [row] = await db<{ id: string; generation: number }[]>`
      select id, generation from mcp_servers where id = ${server.id}`;
  } finally {
    await db.end({ timeout: 5 });
  }
  if (!row) throw new Error(`no server ${slug}`);
  // Miniflare's types describe a fetch-only namespace; its stubs also carry the object's RPC methods.
  const namespace = (await topology.mf.getDurableObjectNamespace("SESSIONS", "loadout-proxy")) as unknown as {
    idFromName(name: string): unknown;
    get(id: unknown): { openSessions(): Promise<number> };
  };
  return namespace.get(namespace.idFromName(`${row.id}#${row.generation}#shared`)).openSessions();
}

beforeAll(async () => {
  [topology, misbehaving, stateless] = await Promise.all([
    startWorkersTopology({ LOADOUT_SECRET_KEY: SECRET_KEY, LOADOUT_INSECURE_COOKIES: "1" }, { proxyIdleMs: IDLE_MS }),
    startMisbehavingUpstream(),
    startStatelessUpstream(),
  ]);
  ({ owner: account, bearer: token } = await newAccount("faults@worker.example"));
  misbehaving.setShiftyVersion(1);
  await addApprovedServer(account, "odd", misbehaving.url);
}, 120_000);

afterAll(async () => {
  await Promise.all([topology?.stop(), misbehaving?.stop(), stateless?.stop()]);
});

describe("a misbehaving upstream, through the proxy Worker's object", () => {
  it("reports a dropped connection as an error telling the agent to verify, and the next call still works", async () => {
    const client = await connect();
    try {
      const dropped = await client.callTool({ name: "odd_drop", arguments: {} });
      expect(dropped.isError).toBe(true);
      expect(textOf(dropped)).toMatch(/broke during drop.*sent once and not retried/s);
      const after = await client.callTool({ name: "odd_shifty", arguments: {} });
      expect(after.isError).toBeFalsy();
      expect(textOf(after)).toBe("shifty 1");
    } finally {
      await client.close();
    }
  });

  it("reports garbage bytes and JSON that is not JSON-RPC as errors, never retrying", async () => {
    const client = await connect();
    try {
      for (const kind of ["bytes", "rpc"]) {
        const garbage = await client.callTool({ name: "odd_garbage", arguments: { kind } });
        expect(garbage.isError, kind).toBe(true);
        expect(textOf(garbage), kind).toMatch(/sent once and not retried/);
      }
      expect((await client.callTool({ name: "odd_shifty", arguments: {} })).isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });

  it("cuts a 20 MB result to 1 MiB with a note, and the Worker keeps serving", async () => {
    const client = await connect();
    try {
      const result = await client.callTool({ name: "odd_huge", arguments: {} });
      const text = textOf(result);
      expect(text.length).toBeLessThan(1024 * 1024 + 1000);
      expect(text.length).toBeGreaterThan(1024 * 1024);
      expect(text).toMatch(/Loadout cut this result: the server returned more than 1024 KiB of text/);
      const after = await client.callTool({ name: "odd_shifty", arguments: {} });
      expect(textOf(after)).toBe("shifty 1");
      expect((await client.callTool({ name: "skills", arguments: { action: "list" } })).isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });

  it("withholds a tool whose definition changed until the user approves the change", async () => {
    const client = await connect();
    try {
      expect(await names(client)).toContain("odd_shifty");
      misbehaving.setShiftyVersion(2);
      const tested = await account.rest("/v1/workspaces/me/servers/odd/test", { method: "POST" });
      expect(tested.body.error, JSON.stringify(tested.body)).toBeNull();
      expect(await names(client)).not.toContain("odd_shifty");
      const refused = await client.callTool({ name: "odd_shifty", arguments: {} });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/definition changed/);
      const tools = await account.rest("/v1/workspaces/me/servers/odd/tools");
      expect(tools.body.tools.find((t: { name: string }) => t.name === "shifty")).toMatchObject({
        pin: "changed",
        description: shiftyDescription(2),
        approved: { description: shiftyDescription(1) },
      });
      const approved = await account.rest("/v1/workspaces/me/servers/odd/tools/approve", {
        method: "POST",
        body: { tools: ["shifty"] },
      });
      expect(approved.status, JSON.stringify(approved.body)).toBe(200);
      expect(await names(client)).toContain("odd_shifty");
      expect(textOf(await client.callTool({ name: "odd_shifty", arguments: {} }))).toBe("shifty 2");
    } finally {
      await client.close();
    }
  });
});

describe("many servers in one session", () => {
  async function importMany(owner: Account, count: number) {
    const mcpServers = Object.fromEntries(
      Array.from({ length: count }, (_, i) => [`many-${String(i).padStart(2, "0")}`, { url: stateless.url }]),
    );
    const imported = await owner.rest("/v1/workspaces/me/servers/import", {
      method: "POST",
      body: { text: JSON.stringify({ mcpServers }) },
    });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    expect(imported.body.imported).toHaveLength(count);
    return Object.keys(mcpServers);
  }

  const fetchedAt = async (owner: Account, slug: string) =>
    (await owner.rest(`/v1/workspaces/me/servers/${slug}`)).body.toolsFetchedAt as string | null;

  it("lists 16 never-listed servers at once on first use (each its own object), and serves them all once approved", async () => {
    const { owner, bearer } = await newAccount("sixteen@worker.example");
    const slugs = await importMany(owner, 16);
    const client = await connect(bearer);
    try {
      // The first listing fetches all 16 in parallel, from one api invocation, past its 6 connections.
      const first = await names(client);
      expect(first.filter((n) => n.startsWith("many-"))).toEqual([]);
      for (const slug of slugs) expect(await fetchedAt(owner, slug), slug).not.toBeNull();
      for (const slug of slugs) {
        const approved = await owner.rest(`/v1/workspaces/me/servers/${slug}/tools/approve`, {
          method: "POST",
          body: {},
        });
        expect(approved.status, JSON.stringify(approved.body)).toBe(200);
      }
      const listed = await names(client);
      const servers = new Set(listed.filter((n) => n.startsWith("many-")).map((n) => n.split("_")[0]));
      expect(servers.size).toBe(16);
      const echoed = await client.callTool({ name: "many-15_echo", arguments: { text: "the last one" } });
      expect(textOf(echoed)).toContain("the last one");
    } finally {
      await client.close();
    }
  });

  it("serves at most 16 active servers to a session, skipping the newest and logging it", async () => {
    const { owner, bearer } = await newAccount("seventeen@worker.example");
    const slugs = await importMany(owner, 17);
    const client = await connect(bearer);
    try {
      await names(client);
      for (const slug of slugs)
        await owner.rest(`/v1/workspaces/me/servers/${slug}/tools/approve`, { method: "POST", body: {} });
      const listed = await names(client);
      const servers = new Set(listed.filter((n) => n.startsWith("many-")).map((n) => n.split("_")[0]));
      expect(servers.size).toBe(16);
      expect(servers.has("many-16")).toBe(false);
      expect(await fetchedAt(owner, "many-16")).toBeNull();
      const skipped = (await owner.rest("/v1/workspaces/me/servers/many-16")).body.id as string;
      expect(
        topology.logs.some((l) => l.includes("servers over the per-session cap were skipped") && l.includes(skipped)),
        topology.logs.join("\n"),
      ).toBe(true);
    } finally {
      await client.close();
    }
  });
});

describe("an object whose sessions were closed", () => {
  it("re-initialises once: after its idle alarm closed the session, the next calls cost one new handshake", async () => {
    const { owner, bearer } = await newAccount("evicted@worker.example");
    await addApprovedServer(owner, "idle", stateless.url);
    const handshakes = () => stateless.received("initialize") + stateless.received("server/discover");
    const client = await connect(bearer);
    try {
      expect(textOf(await client.callTool({ name: "idle_echo", arguments: { text: "warm" } }))).toContain("warm");
      expect(await openSessions(owner, "idle")).toBe(1);
      await expect.poll(() => openSessions(owner, "idle"), { timeout: IDLE_MS * 6, interval: 250 }).toBe(0);
      const before = handshakes();
      const calls = stateless.calls("echo");
      const [one, two] = await Promise.all([
        client.callTool({ name: "idle_echo", arguments: { text: "after one" } }),
        client.callTool({ name: "idle_echo", arguments: { text: "after two" } }),
      ]);
      expect(textOf(one)).toContain("after one");
      expect(textOf(two)).toContain("after two");
      expect(textOf(await client.callTool({ name: "idle_echo", arguments: { text: "after three" } }))).toContain(
        "after three",
      );
      expect(handshakes() - before).toBe(1);
      expect(stateless.calls("echo") - calls).toBe(3);
      expect(await openSessions(owner, "idle")).toBe(1);
    } finally {
      await client.close();
    }
  });
});

describe("resource subscriptions through the proxy Worker's object", () => {
  it("holds an upstream subscription while a listen stream names it, past the idle alarm, and tells its updates", async () => {
    const memo = await startStatelessUpstream({ items: true });
    const { owner, bearer } = await newAccount("subscribe@worker.example");
    await addApprovedServer(owner, "memo", memo.url);
    const client = new Client({ name: "proxy-watch", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
    const updated: string[] = [];
    client.setNotificationHandler("notifications/resources/updated", (notification) => {
      updated.push(notification.params.uri);
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${ORIGIN}/mcp/s/me/memo`), {
        requestInit: { headers: { authorization: `Bearer ${bearer}` } },
        fetch: (url, init) => topology.send(String(url), init ?? {}),
      }),
    );
    try {
      expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true);
      // The object's session is open, with the listen stream of its own the SDK client keeps for
      // the upstream's list changes.
      expect((await client.listResources()).resources.map((r) => r.uri)).toContain("memo://notes");
      await new Promise((r) => setTimeout(r, 500));
      const before = memo.listeners();
      // memo://elsewhere is neither listed nor a template's: not the session's to read, so not held.
      const subscription = await client.listen({ resourceSubscriptions: ["memo://notes", "memo://elsewhere"] });
      expect(subscription.honoredFilter).toEqual({ resourceSubscriptions: ["memo://notes"] });
      await expect.poll(() => memo.listeners(), { timeout: 5_000 }).toBe(before + 1);
      // The object's idle alarm comes and goes: a held watch keeps its session open.
      await new Promise((r) => setTimeout(r, IDLE_MS * 2.5));
      memo.updateResource("memo://notes");
      memo.updateResource("memo://elsewhere");
      await expect.poll(() => updated, { timeout: 5_000 }).toEqual(["memo://notes"]);
      // Held once however many updates: still one upstream stream for it.
      expect(memo.listeners()).toBe(before + 1);
      // Letting go when the listen stream closes (its request's signal, then the stream read from
      // the object is cancelled, which unsubscribes there) is not asserted here: Miniflare's
      // dispatchFetch does not pass a client's disconnect on to the Worker (on Node it is asserted
      // in test/src/mcp/list-changed.test.ts; the cancel-to-unsubscribe step in watch-stream.test.ts).
      await subscription.close();
    } finally {
      await client.close();
      await memo.stop();
    }
  });

  it("keeps a 2025-era client's resources/subscribe for its session and tells the updates and list changes on its GET stream", async () => {
    const memo = await startStatelessUpstream({ items: true });
    const { owner, bearer } = await newAccount("legacy-subscribe@worker.example");
    await addApprovedServer(owner, "memo", memo.url);
    // The SDK's default 2025 handshake: it opens its GET stream right after.
    const client = new Client({ name: "proxy-legacy-watch", version: "1.0.0" });
    const updated: string[] = [];
    const heard: string[] = [];
    client.setNotificationHandler("notifications/resources/updated", (notification) => {
      updated.push(notification.params.uri);
    });
    client.setNotificationHandler("notifications/prompts/list_changed", () => {
      heard.push("prompts");
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${ORIGIN}/mcp/s/me/memo`), {
        requestInit: { headers: { authorization: `Bearer ${bearer}` } },
        fetch: (url, init) => topology.send(String(url), init ?? {}),
      }),
    );
    try {
      expect(client.getProtocolEra()).toBe("legacy");
      const capabilities = client.getServerCapabilities();
      expect(capabilities?.resources?.subscribe).toBe(true);
      expect(capabilities?.prompts?.listChanged).toBe(true);
      expect((await client.listResources()).resources.map((r) => r.uri)).toContain("memo://notes");
      await new Promise((r) => setTimeout(r, 500));
      const before = memo.listeners();
      expect(await client.subscribeResource({ uri: "memo://notes" })).toEqual({});
      await expect(client.subscribeResource({ uri: "memo://elsewhere" })).rejects.toThrow(/cannot be subscribed to/);
      // The stream hears of the new subscription through the ChangeFeed object (its counter moved).
      await expect.poll(() => memo.listeners(), { timeout: 10_000 }).toBe(before + 1);
      memo.updateResource("memo://notes");
      memo.updateResource("memo://elsewhere");
      await expect.poll(() => updated, { timeout: 5_000 }).toEqual(["memo://notes"]);
      const switched = await owner.rest("/v1/workspaces/me/servers/memo/items", {
        method: "PATCH",
        body: { kind: "prompt", key: "greet", enabled: false },
      });
      expect(switched.status).toBe(200);
      await expect.poll(() => heard, { timeout: 10_000 }).toContain("prompts");
      // Unsubscribing reaches the stream the same way, which lets the upstream's subscription go
      // (and with no watch left, the object's idle alarm may close its session's own stream too).
      expect(await client.unsubscribeResource({ uri: "memo://notes" })).toEqual({});
      await expect.poll(() => memo.listeners(), { timeout: 10_000 }).toBeLessThanOrEqual(before);
    } finally {
      await client.close();
      await memo.stop();
    }
  });

  it("gives a 2025-era client's GET stream a priming id, and tells a client that resumes from before a change that its lists changed", async () => {
    const { owner, bearer } = await newAccount("legacy-resume@worker.example");
    const initialize = await legacyInitialize(`${ORIGIN}/mcp`, bearer, "raw", topology.send);
    const session = initialize.headers.get("mcp-session-id") ?? "";
    await initialize.body?.cancel();
    /** The events of the stream opened from `from`, up to its first with an id. */
    const opened = async (from: string | null) => {
      const response = await topology.send(`${ORIGIN}/mcp`, {
        headers: {
          accept: "text/event-stream",
          authorization: `Bearer ${bearer}`,
          "mcp-session-id": session,
          ...(from ? { "last-event-id": from } : {}),
        },
      });
      expect(response.status).toBe(200);
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      let text = "";
      while (!/^id: /m.test(text)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value);
      }
      await reader.cancel();
      return text
        .split("\n\n")
        .filter((block) => /^(id|data):/m.test(block))
        .map((block) => ({
          id: /^id: (.*)$/m.exec(block)?.[1] ?? null,
          method: /"method":"([^"]+)"/.exec(block)?.[1] ?? null,
        }));
    };
    const first = await opened(null);
    expect(first).toEqual([{ id: expect.stringMatching(/^c1\./), method: null }]);
    const cursor = first[0]?.id ?? null;
    expect(await opened(cursor)).toEqual([{ id: cursor, method: null }]);
    const saved = await owner.rest("/v1/workspaces/me/skills", {
      method: "POST",
      body: { name: "saved-while-away", description: "Saved while no stream was open.", instructions: "# Away\n" },
    });
    expect(saved.status).toBe(201);
    const behind = await opened(cursor);
    expect(behind.map((e) => e.method)).toEqual([
      "notifications/tools/list_changed",
      "notifications/prompts/list_changed",
      "notifications/resources/list_changed",
    ]);
    expect(behind.at(-1)?.id).toMatch(/^c1\./);
    expect(behind.at(-1)?.id).not.toBe(cursor);
  });

  it("keeps a 2025-era session's logging/setLevel and passes on only the upstream's log messages at or above it", async () => {
    const chatty = await startStatelessUpstream({ logging: true });
    const { owner, bearer } = await newAccount("legacy-level@worker.example");
    await addApprovedServer(owner, "chatty", chatty.url);
    const seen = async (level: "info" | null) => {
      const client = new Client({ name: "proxy-legacy-level", version: "1.0.0" });
      const messages: unknown[] = [];
      client.setNotificationHandler("notifications/message", (notification) => {
        messages.push(notification.params.data);
      });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${ORIGIN}/mcp/s/me/chatty`), {
          requestInit: { headers: { authorization: `Bearer ${bearer}` } },
          fetch: (url, init) => topology.send(String(url), init ?? {}),
        }),
      );
      try {
        if (level) await client.setLoggingLevel(level);
        const result = await client.callTool({ name: "chatty", arguments: {} });
        expect(JSON.stringify(result.content)).toContain("chatty: done");
        return messages;
      } finally {
        await client.close();
      }
    };
    try {
      expect(await seen("info")).toEqual(["chatty: starting"]);
      // Another session of the same client on the same token set none: it hears every message.
      expect(await seen(null)).toEqual(["chatty: starting", "chatty: details"]);
    } finally {
      await chatty.stop();
    }
  });
});
