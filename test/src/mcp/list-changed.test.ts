/**
 * `subscriptions/listen` (2026-07-28) at /mcp and /mcp/s: a client that listens hears
 * list_changed when its user's items change (a skill saved in the console, a server's pins
 * approved), through the change feed, and nothing of another tenant's changes. A 2025-era
 * client hears the same on the GET stream it opens after its handshake (legacy-listen.ts).
 */
import type { OpenedDatabase } from "@loadout/db";
import { createTestDatabase } from "@loadout/db/testing";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Account, addApprovedServer, signUpAccount } from "../helpers/account";
import { legacyInitialize } from "../helpers/mcp-http";
import { startTestServer, type TestServer } from "../helpers/server";
import { startEverything, type Upstream } from "../helpers/upstream";
import { type StatelessUpstream, startStatelessUpstream } from "../helpers/upstreams";

let database: OpenedDatabase;
let server: TestServer;
let upstream: StatelessUpstream;
let alice: Account;
let bob: Account;
let secret: string;

/** The deployment's settings: both instances sign session ids with the same key. */
const INSTANCE = {
  LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1",
  LOADOUT_SECRET_KEY: "list-changed-secret-key-0123456789abcdef",
};
const MODERN = { versionNegotiation: { mode: "auto" as const } };
const LISTS = ["tools", "prompts", "resources"] as const;

beforeAll(async () => {
  database = await createTestDatabase();
  [server, upstream] = await Promise.all([
    startTestServer(INSTANCE, { database }),
    startStatelessUpstream({ items: true }),
  ]);
  alice = await signUpAccount(server.url, "listen-alice@example.com");
  bob = await signUpAccount(server.url, "listen-bob@example.com");
  await addApprovedServer(alice, "memo", upstream.url);
  secret = (await alice.token(["mcp"])).secret;
}, 60_000);

afterAll(async () => {
  await Promise.all([server?.close(), upstream?.stop()]);
  await database?.close();
});

/** A client on `path` that records the list_changed notifications it hears. */
async function connect(path: string, options: object = MODERN, fetchWith?: typeof fetch) {
  const client = new Client({ name: "listen-test", version: "1.0.0" }, options);
  const heard: string[] = [];
  for (const list of LISTS)
    client.setNotificationHandler(`notifications/${list}/list_changed`, () => {
      heard.push(list);
    });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}${path}`), {
      requestInit: { headers: { authorization: `Bearer ${secret}` } },
      ...(fetchWith ? { fetch: fetchWith } : {}),
    }),
  );
  return { client, heard };
}

const skill = (account: Account, name: string) =>
  account.rest("/v1/workspaces/me/skills", {
    method: "POST",
    body: { name, description: "Written while a client listens.", instructions: `# ${name}\n` },
  });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Switches one of the upstream's items on or off for alice. */
const switchItem = (kind: "prompt" | "resource", key: string, enabled: boolean) =>
  alice.rest("/v1/workspaces/me/servers/memo/items", {
    method: "PATCH",
    body: { kind, key, enabled },
  });
const switchGreet = (enabled: boolean) => switchItem("prompt", "greet", enabled);

let probes = 0;
/**
 * Waits until a 2025 client's GET stream is open (the SDK's client opens it, unawaited, after its
 * handshake): alice saves a skill every half second until the stream tells of one; what it heard
 * is then cleared.
 */
async function untilListening(heard: string[]) {
  await expect
    .poll(
      async () => {
        if (!heard.includes("tools")) await skill(alice, `probe-${++probes}`);
        return heard;
      },
      { timeout: 10_000, interval: 500 },
    )
    .toContain("tools");
  // The rest of that save's notifications (one per list), then a clean slate.
  await sleep(500);
  heard.length = 0;
}

describe("subscriptions/listen at /mcp", () => {
  it("tells a listening client that its lists changed when its user saves a skill, once per save", async () => {
    const { client, heard } = await connect("/mcp");
    try {
      const capabilities = client.getServerCapabilities();
      expect(capabilities?.tools?.listChanged).toBe(true);
      expect(capabilities?.resources?.listChanged).toBe(true);
      const subscription = await client.listen({
        toolsListChanged: true,
        promptsListChanged: true,
        resourcesListChanged: true,
      });
      expect(subscription.honoredFilter).toMatchObject({ toolsListChanged: true, resourcesListChanged: true });
      expect((await skill(alice, "heard-of")).status).toBe(201);
      await expect.poll(() => heard, { timeout: 5_000 }).toContain("tools");
      await expect.poll(() => heard, { timeout: 5_000 }).toContain("resources");
      // One save is one notification per list, however many rows it wrote.
      await sleep(500);
      expect(heard.filter((l) => l === "tools")).toHaveLength(1);
      await subscription.close();
      expect(await subscription.closed).toBe("local");
    } finally {
      await client.close();
    }
  });

  it("tells nothing of another tenant's changes", async () => {
    const { client, heard } = await connect("/mcp");
    try {
      await client.listen({ toolsListChanged: true, resourcesListChanged: true });
      expect((await skill(bob, "not-alices")).status).toBe(201);
      await sleep(1_000);
      expect(heard).toEqual([]);
      // The stream is still there: alice's own change gets through.
      expect((await skill(alice, "alices-own")).status).toBe(201);
      await expect.poll(() => heard, { timeout: 5_000 }).toContain("tools");
    } finally {
      await client.close();
    }
  });

  it("passes on an upstream's resource updates under the names resources have at /mcp", async () => {
    const { client } = await connect("/mcp");
    const updated: string[] = [];
    client.setNotificationHandler("notifications/resources/updated", (notification) => {
      updated.push(notification.params.uri);
    });
    try {
      expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true);
      const listed = (await client.listResources()).resources.map((r) => r.uri);
      expect(listed).toContain("loadout://servers/memo/memo://notes");
      // A listed resource, one of a template's, and a name no item of the session has.
      const subscription = await client.listen({
        resourceSubscriptions: [
          "loadout://servers/memo/memo://notes",
          "loadout://servers/memo/memo://notes/5",
          "loadout://servers/other/memo://notes",
        ],
      });
      expect(subscription.honoredFilter).toEqual({
        resourceSubscriptions: ["loadout://servers/memo/memo://notes", "loadout://servers/memo/memo://notes/5"],
      });
      await expect.poll(() => upstream.listeners(), { timeout: 5_000 }).toBeGreaterThanOrEqual(2);
      upstream.updateResource("memo://notes/5");
      await expect.poll(() => updated, { timeout: 5_000 }).toEqual(["loadout://servers/memo/memo://notes/5"]);
      await subscription.close();
    } finally {
      await client.close();
    }
  });
});

describe("a 2025-era client's GET stream", () => {
  it("tells it that its lists changed when its user saves a skill, and nothing of another tenant's changes", async () => {
    const { client, heard } = await connect("/mcp", {});
    try {
      expect(client.getProtocolEra()).toBe("legacy");
      const capabilities = client.getServerCapabilities();
      expect(capabilities?.tools?.listChanged).toBe(true);
      expect(capabilities?.resources?.listChanged).toBe(true);
      // Its resource subscriptions are kept for its session (below).
      expect(capabilities?.resources?.subscribe).toBe(true);
      await untilListening(heard);
      expect((await skill(bob, "bobs-while-legacy")).status).toBe(201);
      await sleep(1_000);
      expect(heard).toEqual([]);
      expect((await skill(alice, "heard-by-legacy")).status).toBe(201);
      await expect.poll(() => heard, { timeout: 5_000 }).toContain("tools");
      await expect.poll(() => heard, { timeout: 5_000 }).toContain("resources");
      await sleep(500);
      expect(heard.filter((l) => l === "tools")).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it("tells it at /mcp/s when a pin of the upstream's changes what it may see", async () => {
    const { client, heard } = await connect("/mcp/s/me/memo", {});
    try {
      expect(client.getServerCapabilities()?.prompts?.listChanged).toBe(true);
      await untilListening(heard);
      expect((await switchGreet(false)).status).toBe(200);
      await expect.poll(() => heard, { timeout: 5_000 }).toContain("prompts");
      expect((await client.listPrompts()).prompts).toEqual([]);
      await switchGreet(true);
    } finally {
      await client.close();
    }
  });

  it("keeps its resources/subscribe at /mcp/s and tells the upstream's updates on the stream, until it unsubscribes", async () => {
    const { client } = await connect("/mcp/s/me/memo", {});
    const updated: string[] = [];
    client.setNotificationHandler("notifications/resources/updated", (notification) => {
      updated.push(notification.params.uri);
    });
    try {
      expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true);
      await sleep(300);
      const before = upstream.listeners();
      expect(await client.subscribeResource({ uri: "memo://notes/5" })).toEqual({});
      // Not the session's to read (neither listed nor a template's): refused, and nothing is held.
      await expect(client.subscribeResource({ uri: "memo://elsewhere" })).rejects.toThrow(/cannot be subscribed to/);
      await expect.poll(() => upstream.listeners(), { timeout: 5_000 }).toBe(before + 1);
      upstream.updateResource("memo://notes/5");
      upstream.updateResource("memo://notes/6");
      await expect.poll(() => updated, { timeout: 5_000 }).toEqual(["memo://notes/5"]);
      expect(await client.unsubscribeResource({ uri: "memo://notes/5" })).toEqual({});
      await expect.poll(() => upstream.listeners(), { timeout: 5_000 }).toBe(before);
      upstream.updateResource("memo://notes/5");
      await sleep(500);
      expect(updated).toEqual(["memo://notes/5"]);
    } finally {
      await client.close();
    }
  });

  it("keeps a subscription for its session, told on a stream opened later on another instance", async () => {
    const other = await startTestServer(INSTANCE, { database });
    const { client } = await connect("/mcp", {});
    const updated: string[] = [];
    client.setNotificationHandler("notifications/resources/updated", (notification) => {
      updated.push(notification.params.uri);
    });
    try {
      expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true);
      await client.subscribeResource({ uri: "loadout://servers/memo/memo://notes/9" });
      // The same session's stream, opened with the same credentials on the other instance.
      const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId ?? "";
      const stream = await fetch(`${other.url}/mcp`, {
        headers: { accept: "text/event-stream", authorization: `Bearer ${secret}`, "mcp-session-id": sessionId },
      });
      expect(stream.status).toBe(200);
      const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      let text = "";
      const heard = (async () => {
        while (!text.includes("notifications/resources/updated")) {
          const { value, done } = await reader.read();
          if (done) break;
          text += decoder.decode(value, { stream: true });
        }
      })();
      await expect.poll(() => upstream.listeners(), { timeout: 5_000 }).toBeGreaterThanOrEqual(1);
      await sleep(300);
      upstream.updateResource("memo://notes/9");
      await Promise.race([heard, sleep(5_000)]);
      expect(text).toContain('"uri":"loadout://servers/memo/memo://notes/9"');
      await reader.cancel();
      await client.unsubscribeResource({ uri: "loadout://servers/memo/memo://notes/9" });
    } finally {
      await client.close();
      await other.close();
    }
  });

  it("ends when its server shuts down, which then waits for nothing", async () => {
    const own = await startTestServer(INSTANCE, { database });
    const client = new Client({ name: "shutdown-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${own.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${secret}` } },
      }),
    );
    try {
      await sleep(500);
      const started = performance.now();
      await own.close();
      // Shutdown gives busy connections 3 s before it cuts them: a stream that ended needs none.
      expect(performance.now() - started).toBeLessThan(2_500);
      expect(own.logs.map((entry) => entry.msg)).not.toContain("shutdown: closing connections still busy");
    } finally {
      await client.close();
    }
  });

  it("refuses to keep a subscription to a withheld resource, or in plan mode to one not marked safe, in the words of an unknown one", async () => {
    const withheld = await switchItem("resource", "memo://notes", false);
    expect(withheld.status).toBe(200);
    const { client } = await connect("/mcp/s/me/memo", {});
    const planned = await connect("/mcp/s/me/memo?mode=plan", {});
    try {
      const refusal = String(await client.subscribeResource({ uri: "memo://notes" }).catch((e) => e));
      const unknown = String(await client.subscribeResource({ uri: "memo://nowhere" }).catch((e) => e));
      expect(refusal).toMatch(/cannot be subscribed to/);
      expect(refusal.replace("memo://notes", "URI")).toBe(unknown.replace("memo://nowhere", "URI"));
      // Plan mode: a template's resources are not marked safe for it.
      await expect(planned.client.subscribeResource({ uri: "memo://notes/3" })).rejects.toThrow(
        /cannot be subscribed to/,
      );
      expect(await client.subscribeResource({ uri: "memo://notes/3" })).toEqual({});
      await client.unsubscribeResource({ uri: "memo://notes/3" });
    } finally {
      await Promise.all([client.close(), planned.client.close()]);
      await switchItem("resource", "memo://notes", true);
    }
  });

  it("ends when its token is revoked, and tells nothing more", async () => {
    const token = await alice.token(["mcp"]);
    const client = new Client({ name: "revoked-test", version: "1.0.0" });
    const heard: string[] = [];
    client.setNotificationHandler("notifications/tools/list_changed", () => {
      heard.push("tools");
    });
    // The client's reconnect is refused (401): its error is expected here.
    client.onerror = () => {};
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token.secret}` } },
      }),
    );
    try {
      await untilListening(heard);
      expect((await alice.rest(`/v1/tokens/${token.id}`, { method: "DELETE" })).status).toBe(204);
      expect((await skill(alice, "after-revocation")).status).toBe(201);
      await sleep(1_500);
      expect(heard).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it("is held for many clients at once, with no warning in the server's process", async () => {
    const warnings: string[] = [];
    const heard = (warning: Error) => warnings.push(String(warning));
    process.on("warning", heard);
    const clients = await Promise.all(Array.from({ length: 12 }, () => connect("/mcp", {})));
    try {
      await sleep(500);
      expect(warnings).toEqual([]);
    } finally {
      process.off("warning", heard);
      await Promise.all(clients.map(({ client }) => client.close()));
    }
  });

  it("tells a client that reconnects after a cut that its lists changed while it was away (the SDK's client resumes with Last-Event-ID)", async () => {
    // The client's GET streams go through this: the test cuts the open one, as a network would,
    // and holds the client's reconnect until alice's change is saved.
    let cutOpen: AbortController | undefined;
    let gate: Promise<unknown> = Promise.resolve();
    const resumedWith: (string | null)[] = [];
    const cuttable: typeof fetch = async (input, init) => {
      if (init?.method !== "GET") return fetch(input, init);
      await gate;
      resumedWith.push(new Headers(init.headers).get("last-event-id"));
      cutOpen = new AbortController();
      const signal = init.signal ? AbortSignal.any([init.signal, cutOpen.signal]) : cutOpen.signal;
      return fetch(input, { ...init, signal });
    };
    const { client, heard } = await connect("/mcp", {}, cuttable);
    try {
      await untilListening(heard);
      let saved!: () => void;
      gate = new Promise<void>((resolve) => {
        saved = resolve;
      });
      cutOpen?.abort();
      expect((await skill(alice, "saved-while-away")).status).toBe(201);
      saved();
      await expect.poll(() => heard, { timeout: 10_000 }).toContain("tools");
      expect(heard).toEqual(expect.arrayContaining(["tools", "prompts", "resources"]));
      // The first GET had no id to give; the reconnect gave the last the stream had sent.
      expect(resumedWith[0]).toBeNull();
      expect(resumedWith.at(-1)).toMatch(/^c1\.[0-9a-f]{16}$/);
    } finally {
      await client.close();
    }
  });

  it("gives a priming id that moves with the user's changes only, and resumes from it without telling anything", async () => {
    const initialize = await legacyInitialize(`${server.url}/mcp`, secret, "raw");
    let id = initialize.headers.get("mcp-session-id") ?? "";
    await initialize.body?.cancel();
    /** What the stream (resuming from `from`) sends within `ms`: its text, and its events' ids and methods. */
    const read = async (from: string | null, ms = 600) => {
      const controller = new AbortController();
      const opened = await fetch(`${server.url}/mcp`, {
        headers: {
          accept: "text/event-stream",
          authorization: `Bearer ${secret}`,
          "mcp-session-id": id,
          ...(from ? { "last-event-id": from } : {}),
        },
        signal: controller.signal,
      });
      expect(opened.status).toBe(200);
      const reader = (opened.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      let text = "";
      const stop = setTimeout(() => controller.abort(), ms);
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          text += decoder.decode(value);
        }
      } catch {
        // Cut by the timer.
      } finally {
        clearTimeout(stop);
      }
      const events = text
        .split("\n\n")
        .filter((block) => /^(id|data):/m.test(block))
        .map((block) => ({
          id: /^id: (.*)$/m.exec(block)?.[1] ?? null,
          method: /"method":"([^"]+)"/.exec(block)?.[1] ?? null,
        }));
      return { text, events };
    };
    const first = await read(null);
    expect(first.text.startsWith(": open\nretry: ")).toBe(true);
    expect(first.events).toEqual([{ id: expect.stringMatching(/^c1\./), method: null }]);
    const cursor = first.events[0]?.id as string;
    // Another tenant's change moves nothing of alice's.
    expect((await skill(bob, "bobs-while-alice-away")).status).toBe(201);
    expect((await read(cursor)).events).toEqual([{ id: cursor, method: null }]);
    // Her own does: a stream that resumes from before it is told at once, with the new cursor.
    expect((await skill(alice, "alices-while-away")).status).toBe(201);
    const behind = await read(cursor);
    expect(behind.events.map((e) => e.method)).toEqual([
      "notifications/tools/list_changed",
      "notifications/prompts/list_changed",
      "notifications/resources/list_changed",
    ]);
    const moved = behind.events.at(-1)?.id;
    expect(moved).toMatch(/^c1\./);
    expect(moved).not.toBe(cursor);
    expect((await read(moved ?? null)).events).toEqual([{ id: moved, method: null }]);
    // A client of a revision before priming events (2025-06-18) gets no retry field and no event
    // without data, which it might take for a malformed message.
    const older = await legacyInitialize(`${server.url}/mcp`, secret, "older", fetch, "2025-06-18");
    id = older.headers.get("mcp-session-id") ?? "";
    await older.body?.cancel();
    expect(id).toMatch(/^lo1\./);
    const unprimed = await read(null);
    expect(unprimed.text).toBe(": open\n\n");
  });

  it("is opened only with a session id Loadout gave and the token's own rights", async () => {
    const initialize = await legacyInitialize(`${server.url}/mcp`, secret, "raw");
    const id = initialize.headers.get("mcp-session-id") ?? "";
    await initialize.body?.cancel();
    expect(id).toMatch(/^lo1\./);
    const open = (headers: Record<string, string>) =>
      fetch(`${server.url}/mcp`, { headers: { accept: "text/event-stream", ...headers } });
    const opened = await open({ authorization: `Bearer ${secret}`, "mcp-session-id": id });
    expect(opened.status).toBe(200);
    expect(opened.headers.get("content-type")).toBe("text/event-stream");
    await opened.body?.cancel();
    // No token: refused before anything else.
    const anonymous = await open({ "mcp-session-id": id });
    expect(anonymous.status).toBe(401);
    await anonymous.body?.cancel();
    // An id that is not Loadout's (altered): no stream, as without one.
    const altered = await open({ authorization: `Bearer ${secret}`, "mcp-session-id": `${id.slice(0, -1)}0` });
    expect(altered.status).toBe(405);
    await altered.body?.cancel();
    const none = await open({ authorization: `Bearer ${secret}` });
    expect(none.status).toBe(405);
    await none.body?.cancel();
  });
});

describe("subscriptions/listen at /mcp/s", () => {
  it("tells a listening client when a pin of the upstream's changes what it may see", async () => {
    const { client, heard } = await connect("/mcp/s/me/memo");
    try {
      const capabilities = client.getServerCapabilities();
      expect(capabilities?.tools?.listChanged).toBe(true);
      expect(capabilities?.prompts?.listChanged).toBe(true);
      const subscription = await client.listen({ toolsListChanged: true, promptsListChanged: true });
      expect(subscription.honoredFilter).toEqual({ toolsListChanged: true, promptsListChanged: true });
      expect((await switchGreet(false)).status).toBe(200);
      await expect.poll(() => heard, { timeout: 5_000 }).toContain("prompts");
      expect((await client.listPrompts()).prompts).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it("tells a listening client when the upstream announces its prompts changed, and stores them as listed now", async () => {
    const { client, heard } = await connect("/mcp/s/me/memo");
    try {
      expect((await switchGreet(true)).status).toBe(200);
      expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(["greet"]);
      await client.listen({ promptsListChanged: true });
      upstream.setPromptVersion(2);
      await expect.poll(() => heard, { timeout: 5_000 }).toContain("prompts");
      // Stored as the upstream lists it now (changed since approval: withheld until approved again).
      const items = await alice.rest("/v1/workspaces/me/servers/memo/items");
      const greet = (items.body.items as { kind: string; key: string; state?: string; changed?: boolean }[]).find(
        (i) => i.kind === "prompt" && i.key === "greet",
      );
      expect(JSON.stringify(greet)).toMatch(/version 2/);
    } finally {
      await client.close();
    }
  });

  it("passes on the upstream's updates of the resources a listening client names, of those it may read", async () => {
    const { client } = await connect("/mcp/s/me/memo");
    const updated: string[] = [];
    client.setNotificationHandler("notifications/resources/updated", (notification) => {
      updated.push(notification.params.uri);
    });
    try {
      expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true);
      const before = upstream.listeners();
      // memo://elsewhere is neither listed nor a template's: not the session's to read, so not held.
      const subscription = await client.listen({
        resourceSubscriptions: ["memo://notes", "memo://notes/7", "memo://elsewhere"],
      });
      expect(subscription.honoredFilter).toEqual({ resourceSubscriptions: ["memo://notes", "memo://notes/7"] });
      // One upstream listen stream for each resource watched.
      await expect.poll(() => upstream.listeners(), { timeout: 5_000 }).toBe(before + 2);
      upstream.updateResource("memo://notes/7");
      upstream.updateResource("memo://elsewhere");
      await expect.poll(() => updated, { timeout: 5_000 }).toEqual(["memo://notes/7"]);
      upstream.updateResource("memo://notes");
      await expect.poll(() => updated, { timeout: 5_000 }).toEqual(["memo://notes/7", "memo://notes"]);
      await subscription.close();
      // The last listener gone, Loadout unsubscribes upstream.
      await expect.poll(() => upstream.listeners(), { timeout: 5_000 }).toBe(before);
    } finally {
      await client.close();
    }
  });

  it("holds no subscription to a resource the user withheld", async () => {
    const withheld = await switchItem("resource", "memo://notes", false);
    expect(withheld.status).toBe(200);
    const { client } = await connect("/mcp/s/me/memo");
    try {
      const subscription = await client.listen({ toolsListChanged: true, resourceSubscriptions: ["memo://notes"] });
      expect(subscription.honoredFilter).toEqual({ toolsListChanged: true });
    } finally {
      await client.close();
      await switchItem("resource", "memo://notes", true);
    }
  });
});

describe("resource subscriptions on an upstream's 2025 session", () => {
  let everything: Upstream;
  beforeAll(async () => {
    everything = await startEverything("streamableHttp");
    await addApprovedServer(alice, "everything", everything.url);
  }, 60_000);
  afterAll(async () => {
    await everything?.stop();
  });

  it("subscribes with resources/subscribe and passes on the updates the upstream sends on its session", async () => {
    const { client } = await connect("/mcp/s/me/everything");
    const updated: string[] = [];
    client.setNotificationHandler("notifications/resources/updated", (notification) => {
      updated.push(notification.params.uri);
    });
    try {
      expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true);
      const uri = (await client.listResources()).resources[0]?.uri;
      expect(uri).toMatch(/^demo:\/\//);
      const subscription = await client.listen({ resourceSubscriptions: [uri as string] });
      expect(subscription.honoredFilter).toEqual({ resourceSubscriptions: [uri] });
      // server-everything sends its subscribers' updates once this tool is called on their session
      // (Loadout's one session with it), then every 5 s.
      const toggled = await client.callTool({ name: "toggle-subscriber-updates", arguments: {} });
      expect(toggled.isError).toBeFalsy();
      await expect.poll(() => updated, { timeout: 8_000 }).toContain(uri);
      await subscription.close();
    } finally {
      await client.close();
    }
  }, 20_000);
});
