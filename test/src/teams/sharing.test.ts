/**
 * Teams over MCP, end to end: the real Node entry, a real upstream, the official SDK client.
 * A team's skills and servers reach every member's MCP URL under their own addresses, next to
 * the member's own items of the same names; a member removed loses them on the next request,
 * even in a session that listed them before; the team's activity shows its members' calls.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Account, signUpAccount } from "../helpers/account";
import { startTestServer, type TestServer } from "../helpers/server";
import { type StatelessUpstream, startStatelessUpstream } from "../helpers/upstreams";

let server: TestServer;
let upstream: StatelessUpstream;
let ada: Account;
let bob: Account;
let bobToken: string;
let bobNarrowed: string;
let bobId: string;

async function connect(secret: string, headers: Record<string, string> = {}) {
  const client = new Client({ name: "teams-test", version: "3.1.0" }, { versionNegotiation: { mode: "auto" } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${secret}`, ...headers } },
    }),
  );
  return client;
}

const textOf = (result: { content?: unknown }) =>
  ((result.content ?? []) as { type: string; text?: string }[]).map((c) => c.text ?? "").join("\n");

async function skill(account: Account, ws: string, name: string, description: string) {
  const res = await account.rest(`/v1/workspaces/${ws}/skills`, {
    method: "POST",
    body: { name, description, instructions: `# ${description}\n` },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

beforeAll(async () => {
  server = await startTestServer({ LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1" });
  upstream = await startStatelessUpstream({ name: "tracker" });
  ada = await signUpAccount(server.url, "ada@teams.example.com");
  bob = await signUpAccount(server.url, "bob@teams.example.com");
  bobId = (await bob.rest("/v1/me")).body.user.id;
  expect((await ada.rest("/v1/workspaces", { method: "POST", body: { slug: "acme", name: "Acme" } })).status).toBe(201);
  await skill(ada, "acme", "code-review", "The team's review checklist.");
  await skill(bob, "me", "code-review", "Bob's own review habits.");
  const imported = await ada.rest("/v1/workspaces/acme/servers/import", {
    method: "POST",
    body: { text: JSON.stringify({ mcpServers: { tracker: { url: upstream.url } } }) },
  });
  expect(imported.status, JSON.stringify(imported.body)).toBe(200);
  const tested = await ada.rest("/v1/workspaces/acme/servers/tracker/test", { method: "POST" });
  expect(tested.status, JSON.stringify(tested.body)).toBe(200);
  const approved = await ada.rest("/v1/workspaces/acme/servers/tracker/tools/approve", { method: "POST", body: {} });
  expect(approved.status, JSON.stringify(approved.body)).toBe(200);

  const invite = await ada.rest("/v1/workspaces/acme/invites", {
    method: "POST",
    body: { email: "bob@teams.example.com", role: "member" },
  });
  expect(invite.status).toBe(201);
  expect((await bob.rest("/v1/invites/accept", { method: "POST", body: { token: invite.body.secret } })).status).toBe(
    200,
  );
  bobToken = (await bob.token(["mcp"])).secret;
  bobNarrowed = (await bob.token(["mcp"], { name: "acme only", workspace: "acme" })).secret;
});
afterAll(async () => {
  await server?.close();
  await upstream?.stop();
});

describe("a team's items over a member's MCP URL", () => {
  it("serves the team's skill next to the member's own of the same name, each with its origin", async () => {
    const client = await connect(bobToken);
    try {
      const list = await client.callTool({ name: "skills", arguments: { action: "list" } });
      expect(list.structuredContent).toMatchObject({
        items: expect.arrayContaining([
          expect.objectContaining({ name: "code-review", origin: "personal" }),
          expect.objectContaining({ name: "acme/code-review", origin: "team:acme" }),
        ]),
      });
      const team = await client.callTool({ name: "skills", arguments: { action: "get", name: "acme/code-review" } });
      expect(textOf(team)).toContain("The team's review checklist.");
      const own = await client.callTool({ name: "skills", arguments: { action: "get", name: "code-review" } });
      expect(textOf(own)).toContain("Bob's own review habits.");
    } finally {
      await client.close();
    }
  });

  it("names the team's server's tools <team>_<server>_<tool> and serves them", async () => {
    const client = await connect(bobToken);
    try {
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toContain("acme_tracker_issues");
      expect(names.every((n) => n.length <= 48 && /^[a-zA-Z0-9_-]+$/.test(n))).toBe(true);
      const listed = await client.callTool({ name: "acme_tracker_issues", arguments: { action: "list" } });
      expect(listed.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    // In plan mode the tool (no plan-safe actions) is refused, and the refusal is counted.
    const plan = await connect(bobToken, { "x-loadout-mode": "plan" });
    try {
      const refused = await plan.callTool({ name: "acme_tracker_issues", arguments: { action: "create" } });
      expect(refused.isError).toBe(true);
    } finally {
      await plan.close();
    }
  });

  it("refuses a tool not approved yet, and one switched off, each counted as its refusal", async () => {
    const imported = await ada.rest("/v1/workspaces/acme/servers/import", {
      method: "POST",
      body: { text: JSON.stringify({ mcpServers: { pending: { url: upstream.url } } }) },
    });
    expect(imported.status).toBe(200);
    expect((await ada.rest("/v1/workspaces/acme/servers/pending/test", { method: "POST" })).status).toBe(200);
    const client = await connect(bobToken);
    try {
      const withheld = await client.callTool({ name: "acme_pending_issues", arguments: { action: "list" } });
      expect(textOf(withheld)).toContain("not approved yet");
      const record = await ada.rest("/v1/workspaces/acme/servers/pending");
      const off = await ada.rest("/v1/workspaces/acme/servers/pending", {
        method: "PATCH",
        body: { revision: record.body.revision, enabled: false },
      });
      expect(off.status, JSON.stringify(off.body)).toBe(200);
      const inactive = await client.callTool({ name: "acme_pending_issues", arguments: { action: "list" } });
      expect(textOf(inactive)).toContain("not active for this session");
    } finally {
      await client.close();
    }
  });

  it("shows the members' calls in the team's activity and usage", async () => {
    await expect
      .poll(async () => (await ada.rest("/v1/workspaces/acme/activity?kind=call")).body.events.length, {
        timeout: 5000,
      })
      .toBeGreaterThanOrEqual(5);
    const calls = (await ada.rest("/v1/workspaces/acme/activity?kind=call")).body.events as {
      actor: { email: string };
      call: { tool: string; client: string | null; outcome: string; ms: number; server: string | null };
      item: string;
    }[];
    expect(calls.every((c) => c.actor.email === "bob@teams.example.com")).toBe(true);
    expect(calls.map((c) => `${c.call.tool}:${c.call.outcome}`)).toEqual(
      expect.arrayContaining(["skills:ok", "acme_tracker_issues:ok", "acme_tracker_issues:plan_refused"]),
    );
    expect(calls.find((c) => c.call.tool === "skills")?.item).toBe("acme/code-review");
    expect(calls.find((c) => c.call.tool === "acme_tracker_issues")).toMatchObject({
      call: { server: "tracker", client: "teams-test 3.1.0" },
    });
    // Bob's call to his own skill stays in his own log.
    const bobs = (await bob.rest("/v1/workspaces/me/activity?kind=call")).body.events as { item: string }[];
    expect(bobs.map((e) => e.item)).toContain("code-review");
    expect(bobs.map((e) => e.item)).not.toContain("acme/code-review");

    const usage = (await ada.rest("/v1/workspaces/acme/activity/usage")).body;
    expect(usage.days).toHaveLength(30);
    expect(usage.outcomes).toMatchObject({ plan_refused: 1, withheld: 1, not_active: 1 });
    expect(usage.tools.map((t: { name: string }) => t.name)).toContain("acme_tracker_issues");
    expect(usage.days.at(-1).calls).toBe(calls.length);
  });

  it("stops serving the team's items on the next request after the member is removed", async () => {
    const client = await connect(bobToken);
    const narrowed = await connect(bobNarrowed);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("acme_tracker_issues");
      expect(textOf(await narrowed.callTool({ name: "skills", arguments: { action: "list" } }))).toContain(
        "acme/code-review",
      );
      expect((await ada.rest(`/v1/workspaces/acme/members/${bobId}`, { method: "DELETE" })).status).toBe(204);

      // The same session: the team's skill and tool are gone, the member's own remain.
      const gone = await client.callTool({ name: "skills", arguments: { action: "get", name: "acme/code-review" } });
      expect(gone.isError).toBe(true);
      expect(textOf(gone)).toContain('no team "acme"');
      const list = await client.callTool({ name: "skills", arguments: { action: "list" } });
      expect(textOf(list)).not.toContain("acme/");
      expect(textOf(list)).toContain("code-review");
      const names = (await client.listTools({}, { cacheMode: "refresh" } as never)).tools.map((t) => t.name);
      expect(names).not.toContain("acme_tracker_issues");
      const call = await client
        .callTool({ name: "acme_tracker_issues", arguments: { action: "list" } })
        .then((r) => (r.isError ? "refused" : "served"))
        .catch(() => "refused");
      expect(call).toBe("refused");
      // The token narrowed to the team stops working altogether.
      await expect(narrowed.callTool({ name: "skills", arguments: { action: "list" } })).rejects.toThrow(/revoked/i);
    } finally {
      await client.close();
      await narrowed.close().catch(() => {});
    }
  });
});
