/**
 * `subscriptions/listen` (2026-07-28) at /mcp and /mcp/s: a client that listens hears
 * list_changed when its user's items change (a skill saved in the console, a server's pins
 * approved), through the change feed, and nothing of another tenant's changes. A 2025-era
 * client, which would need the GET stream a stateless endpoint does not keep, is told there are
 * no list changes to hear.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Account, addApprovedServer, signUpAccount } from "../helpers/account";
import { startTestServer, type TestServer } from "../helpers/server";
import { startEverything, type Upstream } from "../helpers/upstream";
import { type StatelessUpstream, startStatelessUpstream } from "../helpers/upstreams";

let server: TestServer;
let upstream: StatelessUpstream;
let alice: Account;
let bob: Account;
let secret: string;

const MODERN = { versionNegotiation: { mode: "auto" as const } };
const LISTS = ["tools", "prompts", "resources"] as const;

beforeAll(async () => {
  [server, upstream] = await Promise.all([
    startTestServer({ LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1" }),
    startStatelessUpstream({ items: true }),
  ]);
  alice = await signUpAccount(server.url, "listen-alice@example.com");
  bob = await signUpAccount(server.url, "listen-bob@example.com");
  await addApprovedServer(alice, "memo", upstream.url);
  secret = (await alice.token(["mcp"])).secret;
}, 60_000);

afterAll(async () => {
  await Promise.all([server?.close(), upstream?.stop()]);
});

/** A client on `path` that records the list_changed notifications it hears. */
async function connect(path: string, options: object = MODERN) {
  const client = new Client({ name: "listen-test", version: "1.0.0" }, options);
  const heard: string[] = [];
  for (const list of LISTS)
    client.setNotificationHandler(`notifications/${list}/list_changed`, () => {
      heard.push(list);
    });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}${path}`), {
      requestInit: { headers: { authorization: `Bearer ${secret}` } },
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

  it("declares no list changes to a 2025-era client, which has no stream to hear them on", async () => {
    const { client } = await connect("/mcp", {});
    try {
      expect(client.getServerCapabilities()?.tools?.listChanged).toBeFalsy();
    } finally {
      await client.close();
    }
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
      const switched = await alice.rest("/v1/workspaces/me/servers/memo/items", {
        method: "PATCH",
        body: { kind: "prompt", key: "greet", enabled: false },
      });
      expect(switched.status).toBe(200);
      await expect.poll(() => heard, { timeout: 5_000 }).toContain("prompts");
      expect((await client.listPrompts()).prompts).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it("tells a listening client when the upstream announces its prompts changed, and stores them as listed now", async () => {
    const { client, heard } = await connect("/mcp/s/me/memo");
    try {
      const switched = await alice.rest("/v1/workspaces/me/servers/memo/items", {
        method: "PATCH",
        body: { kind: "prompt", key: "greet", enabled: true },
      });
      expect(switched.status).toBe(200);
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
    const withheld = await alice.rest("/v1/workspaces/me/servers/memo/items", {
      method: "PATCH",
      body: { kind: "resource", key: "memo://notes", enabled: false },
    });
    expect(withheld.status).toBe(200);
    const { client } = await connect("/mcp/s/me/memo");
    try {
      const subscription = await client.listen({ toolsListChanged: true, resourceSubscriptions: ["memo://notes"] });
      expect(subscription.honoredFilter).toEqual({ toolsListChanged: true });
    } finally {
      await client.close();
      await alice.rest("/v1/workspaces/me/servers/memo/items", {
        method: "PATCH",
        body: { kind: "resource", key: "memo://notes", enabled: true },
      });
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
