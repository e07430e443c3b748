/**
 * The ChangeFeed Durable Object (api/src/entry/change-feed.ts) in the Workers topology: it listens
 * on Postgres for the isolates, so a warm MCP call, proxied or built-in, takes its counters from it
 * and makes no database statement. Hyperdrive reaches the database through a counting TCP hop here,
 * so "no statement" is "no connection opened through Hyperdrive" (a request's connection is opened
 * by its first statement). A write answered by one isolate is seen by the next call on another
 * (the answer waits for the feed to hear it); a change by hand-written SQL is heard within moments;
 * with the feed's database unreachable, calls read their counters from Postgres and still work.
 */
import { createServer, type Server, Socket } from "node:net";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Account, type Send, signUpAccount } from "../helpers/account";
import { ERAS } from "../helpers/mcp-http";
import { startEverything, type Upstream } from "../helpers/upstream";
import { startWorkersTopology, type WorkersTopology } from "./topology";

const SECRET_KEY = "change-feed-secret-key-0123456789abcdef";

/**
 * A TCP hop to a Postgres URL's host that counts the connections it carries; with `delayMs`, what
 * the database sends reaches the client that much later (a feed that hears late).
 */
async function countingHop(
  target: URL,
  delayMs = 0,
): Promise<{ url: (databaseUrl: string) => string; opened(): number; close(): Promise<void> }> {
  let opened = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    opened++;
    const upstream = new Socket();
    upstream.connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    if (delayMs === 0) upstream.pipe(client);
    else upstream.on("data", (chunk) => setTimeout(() => client.writable && client.write(chunk), delayMs));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: (databaseUrl) => {
      const via = new URL(databaseUrl);
      via.hostname = "127.0.0.1";
      via.port = String(port);
      return via.toString();
    },
    opened: () => opened,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const textOf = (result: { content?: unknown }) =>
  ((result.content ?? []) as { type: string; text?: string }[]).map((c) => c.text ?? "").join("\n");

async function connect(send: Send, secret: string, options: object) {
  const client = new Client({ name: "change-feed", version: "1.0.0" }, options);
  await client.connect(
    new StreamableHTTPClientTransport(new URL("http://loadout.test/mcp"), {
      requestInit: { headers: { authorization: `Bearer ${secret}` } },
      fetch: (url, init) => send(String(url), init ?? {}),
    }),
  );
  return client;
}

/** Signs up, makes a skill and a token, imports the upstream and approves its tools. */
async function setUp(
  send: Send,
  email: string,
  upstream: Upstream,
): Promise<{ account: Account; secret: string; tokenId: string }> {
  const account = await signUpAccount("http://loadout.test", email, "a feed of every change made", send);
  const skill = await account.rest("/v1/workspaces/me/skills", {
    method: "POST",
    body: { name: "feed-notes", description: "Heard by the feed.", instructions: "# Feed\nHeard once." },
  });
  expect(skill.status, JSON.stringify(skill.body)).toBe(201);
  const imported = await account.rest("/v1/workspaces/me/servers/import", {
    method: "POST",
    body: { text: JSON.stringify({ mcpServers: { everything: { url: upstream.url } } }) },
  });
  expect(imported.status, JSON.stringify(imported.body)).toBe(200);
  expect((await account.rest("/v1/workspaces/me/servers/everything/test", { method: "POST" })).status).toBe(200);
  const approved = await account.rest("/v1/workspaces/me/servers/everything/tools/approve", {
    method: "POST",
    body: {},
  });
  expect(approved.status).toBe(200);
  const token = await account.token(["mcp"]);
  return { account, secret: token.secret, tokenId: token.id };
}

describe("the ChangeFeed object, with the feed live", () => {
  let topology: WorkersTopology;
  let upstream: Upstream;
  let hop: Awaited<ReturnType<typeof countingHop>>;
  let slow: Awaited<ReturnType<typeof countingHop>>;
  let admin: ReturnType<typeof postgres>;
  let account: Account;
  let secret: string;
  let tokenId: string;

  beforeAll(async () => {
    const database = new URL(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres");
    hop = await countingHop(database);
    // The feed hears every change 300 ms late: a write's answer must wait until it has.
    slow = await countingHop(database, 300);
    [topology, upstream] = await Promise.all([
      startWorkersTopology(
        { LOADOUT_SECRET_KEY: SECRET_KEY, LOADOUT_INSECURE_COOKIES: "1" },
        { hyperdriveVia: hop.url, listenVia: slow.url, secondApi: true, queue: true },
      ),
      startEverything("streamableHttp"),
    ]);
    admin = postgres(topology.databaseUrl, { max: 1, onnotice: () => {} });
    ({ account, secret, tokenId } = await setUp(topology.send, "feed@example.com", upstream));
    // The object starts listening with the first request; the warm calls below count from then.
    await topology.feedLive();
  }, 120_000);

  afterAll(async () => {
    await admin?.end({ timeout: 5 });
    await Promise.all([topology?.stop(), upstream?.stop()]);
    await Promise.all([hop?.close(), slow?.close()]);
  });

  /** The MCP calls logged so far, and the inserts (one per Queue batch) that wrote them. */
  const callLog = async () => {
    const [row] = await admin<{ rows: number; batches: number }[]>`
      select count(*)::int as rows, count(distinct xmin::text)::int as batches
      from audit_events where action = 'mcp.call'`;
    return row ?? { rows: 0, batches: 0 };
  };
  /** The call log once no batch has come for 1.5 s (the Queue delivers within a second). */
  const settledCallLog = async () => {
    let last = await callLog();
    for (const until = Date.now() + 15_000; Date.now() < until; ) {
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const now = await callLog();
      if (now.rows === last.rows) return now;
      last = now;
    }
    throw new Error("the call log kept growing");
  };

  it.each(ERAS)("serves warm calls, proxied and built-in, without a database statement (%s)", async (_era, options) => {
    const client = await connect(topology.send, secret, options);
    try {
      for (let i = 0; i < 3; i++) {
        await client.callTool({ name: "everything_echo", arguments: { message: "warming" } });
        await client.callTool({ name: "skills", arguments: { action: "get", name: "feed-notes" } });
      }
      // The call log's Queue consumer writes each batch on a connection of its own, through
      // Hyperdrive too: the connections the calls opened are what the hop saw less those batches.
      const logBefore = await settledCallLog();
      const before = hop.opened();
      for (let i = 0; i < 5; i++) {
        const echoed = await client.callTool({ name: "everything_echo", arguments: { message: `warm ${i}` } });
        expect(textOf(echoed)).toContain(`warm ${i}`);
        const got = await client.callTool({ name: "skills", arguments: { action: "get", name: "feed-notes" } });
        expect(textOf(got)).toContain("Heard once.");
      }
      await expect
        .poll(async () => (await callLog()).rows, { timeout: 10_000 })
        .toBeGreaterThanOrEqual(logBefore.rows + 10);
      const logAfter = await settledCallLog();
      expect(hop.opened() - before - (logAfter.batches - logBefore.batches)).toBe(0);
    } finally {
      await client.close();
    }
  });

  it("hears a change made by hand-written SQL within moments, on every isolate", async () => {
    const first = await connect(topology.send, secret, ERAS[1][1]);
    const second = topology.sendToSecond
      ? await connect(topology.sendToSecond, secret, ERAS[1][1])
      : (undefined as never);
    try {
      for (const client of [first, second])
        expect(
          textOf(await client.callTool({ name: "skills", arguments: { action: "get", name: "feed-notes" } })),
        ).toContain("Heard once.");
      await admin`update skills set description = 'Changed by hand.' where name = 'feed-notes'`;
      for (const client of [first, second])
        await expect
          .poll(async () => textOf(await client.callTool({ name: "skills", arguments: { action: "list" } })), {
            timeout: 5_000,
          })
          .toContain("Changed by hand.");
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it("refuses a token revoked through one isolate on the very next call through another", async () => {
    const second = topology.sendToSecond;
    if (!second) throw new Error("the topology has no second api Worker");
    const client = await connect(second, secret, ERAS[0][1]);
    try {
      expect(textOf(await client.callTool({ name: "everything_echo", arguments: { message: "before" } }))).toContain(
        "before",
      );
      const revoked = await account.rest(`/v1/tokens/${tokenId}`, { method: "DELETE" });
      expect(revoked.status).toBeLessThan(300);
      await expect(client.callTool({ name: "everything_echo", arguments: { message: "after" } })).rejects.toThrow();
    } finally {
      await client.close().catch(() => {});
    }
  });
});

describe("the ChangeFeed object, its database unreachable", () => {
  let topology: WorkersTopology;
  let upstream: Upstream;

  beforeAll(async () => {
    // A port nothing listens on: the object cannot listen, and says so by answering nothing.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    [topology, upstream] = await Promise.all([
      startWorkersTopology({
        LOADOUT_SECRET_KEY: SECRET_KEY,
        LOADOUT_INSECURE_COOKIES: "1",
        LOADOUT_LISTEN_URL: `postgres://postgres@127.0.0.1:${port}/postgres`,
      }),
      startEverything("streamableHttp"),
    ]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([topology?.stop(), upstream?.stop()]);
  });

  it("serves every call from Postgres's counters instead, and a revoked token is still refused at once", async () => {
    const { account, secret, tokenId } = await setUp(topology.send, "no-feed@example.com", upstream);
    const client = await connect(topology.send, secret, ERAS[1][1]);
    try {
      for (let i = 0; i < 3; i++)
        expect(
          textOf(await client.callTool({ name: "everything_echo", arguments: { message: `call ${i}` } })),
        ).toContain(`call ${i}`);
      expect((await account.rest(`/v1/tokens/${tokenId}`, { method: "DELETE" })).status).toBeLessThan(300);
      await expect(client.callTool({ name: "everything_echo", arguments: { message: "after" } })).rejects.toThrow();
    } finally {
      await client.close().catch(() => {});
    }
  });
});
