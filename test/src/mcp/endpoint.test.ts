/**
 * The MCP endpoint through real clients over HTTP: the SDK v2 client negotiating the stateless
 * 2026-07-28 revision, the SDK v2 client in legacy mode, and the v1 SDK client (2025-11-25).
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Account, signUpAccount } from "../helpers/account";
import { startTestServer, type TestServer } from "../helpers/server";

let server: TestServer;
let token: string;
let account: Account;
const rest: Account["rest"] = (path, init) => account.rest(path, init);

type Era = "modern" | "legacy-v2" | "v1";
async function connect(era: Era, query = "", headers: Record<string, string> = {}) {
  const url = new URL(`${server.url}/mcp${query}`);
  const requestInit = { headers: { authorization: `Bearer ${token}`, ...headers } };
  if (era === "v1") {
    const client = new ClientV1({ name: "v1-test-client", version: "1.0.0" });
    await client.connect(new TransportV1(url, { requestInit }));
    return { client, close: () => client.close(), instructions: client.getInstructions() };
  }
  const client = new ClientV2(
    { name: "v2-test-client", version: "2.0.0" },
    era === "modern" ? { versionNegotiation: { mode: "auto" } } : {},
  );
  await client.connect(new TransportV2(url, { requestInit }));
  return {
    client,
    close: () => client.close(),
    instructions: client.getInstructions(),
    era: client.getProtocolEra?.(),
  };
}

beforeAll(async () => {
  server = await startTestServer();
  account = await signUpAccount(server.url, "mcp@example.com");
  token = (await account.token(["mcp"])).secret;
  const long = "Step.\n".repeat(5000);
  for (const [name, description, instructions] of [
    ["code-review", "Reviews diffs for bugs; use when asked to review code.", "# Code review\n\nCheck the tests.\n"],
    ["long-read", "A long skill to page through.", long],
  ] as const) {
    expect(
      (await rest("/v1/workspaces/me/skills", { method: "POST", body: { name, description, instructions } })).status,
    ).toBe(201);
  }
  expect(
    (
      await rest("/v1/workspaces/me/skills/import", {
        method: "POST",
        body: {
          kind: "persona",
          text: "---\nname: staff-reviewer\ndescription: A staff engineer persona.\n---\nYou are a staff engineer.\n",
        },
      })
    ).status,
  ).toBe(201);
});
afterAll(() => server?.close());

describe.each<Era>(["modern", "legacy-v2", "v1"])("with the %s client", (era) => {
  it("lists the tools with explicit annotations, and the instructions name the active items", async () => {
    const { client, close, instructions } = await connect(era);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(["skill_edit", "skills"]);
      const skills = tools.find((t) => t.name === "skills");
      expect(skills?.annotations).toMatchObject({
        title: "Skills and personas",
        readOnlyHint: true,
        destructiveHint: false,
        openWorldHint: false,
      });
      expect(tools.find((t) => t.name === "skill_edit")?.annotations).toMatchObject({
        readOnlyHint: false,
        destructiveHint: true,
        openWorldHint: false,
      });
      expect(instructions).toContain("- code-review: Reviews diffs for bugs");
      expect(instructions).toContain("- staff-reviewer (persona): A staff engineer persona.");
    } finally {
      await close();
    }
  });

  it("serves skills list and get, paging long files with next_start", async () => {
    const { client, close } = await connect(era);
    try {
      const list = await client.callTool({ name: "skills", arguments: { action: "list" } });
      expect(list.isError).toBeFalsy();
      const names = (list.structuredContent as { items: { name: string }[] }).items.map((i) => i.name);
      expect(names).toEqual(["code-review", "long-read", "staff-reviewer"]);
      const get = await client.callTool({ name: "skills", arguments: { action: "get", name: "code-review" } });
      expect((get.content as { text: string }[])[0]?.text).toContain("Check the tests.");
      const first = await client.callTool({ name: "skills", arguments: { action: "get", name: "long-read" } });
      const page = first.structuredContent as { next_start: number; total_chars: number };
      expect(page.next_start).toBe(20_000);
      const second = await client.callTool({
        name: "skills",
        arguments: { action: "get", name: "long-read", start: page.next_start },
      });
      expect((second.structuredContent as { start: number }).start).toBe(20_000);
      const unknown = await client.callTool({ name: "skills", arguments: { action: "get", name: "nope" } });
      expect(unknown.isError).toBe(true);
      expect((unknown.content as { text: string }[])[0]?.text).toContain(
        "Candidates: code-review, long-read, staff-reviewer",
      );
    } finally {
      await close();
    }
  });
});

describe("the negotiated era", () => {
  it("lands on 2026-07-28 with versionNegotiation auto", async () => {
    const { close, era } = await connect("modern");
    try {
      expect(era).toBe("modern");
    } finally {
      await close();
    }
  });
});

describe("modes, scope and edits", () => {
  it("hides and refuses skill_edit in plan mode", async () => {
    const { client, close } = await connect("modern", "?mode=plan");
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(["skills"]);
      const refused = await client
        .callTool({
          name: "skill_edit",
          arguments: { action: "create", name: "x", description: "x", instructions: "x" },
        })
        .catch((e: Error) => e);
      expect(refused instanceof Error ? refused.message : JSON.stringify(refused)).toMatch(
        /skill_edit|not found|unknown/i,
      );
    } finally {
      await close();
    }
  });

  it("creates and edits through skill_edit, with the registry's rules", async () => {
    const { client, close } = await connect("legacy-v2");
    try {
      const created = await client.callTool({
        name: "skill_edit",
        arguments: {
          action: "create",
          name: "from-agent",
          description: "Made over MCP.",
          instructions: "Body",
          files: { "notes.md": "n" },
        },
      });
      expect(created.isError).toBeFalsy();
      const detail = await rest("/v1/workspaces/me/skills/from-agent");
      expect(detail.body.files.map((f: { path: string }) => f.path)).toEqual(["SKILL.md", "notes.md"]);
      const leak = `gh${"p_"}${"Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe9Dc8"}`;
      const refused = await client.callTool({
        name: "skill_edit",
        arguments: { action: "edit", name: "from-agent", instructions: `token ${leak}` },
      });
      expect(refused.isError).toBe(true);
      expect((refused.content as { text: string }[])[0]?.text).toMatch(/SKILL\.md line \d+/);
      expect(JSON.stringify(refused)).not.toContain(leak);
      const disabled = await client.callTool({
        name: "skill_edit",
        arguments: { action: "edit", name: "from-agent", state: "disabled" },
      });
      expect((disabled.structuredContent as { state: string }).state).toBe("disabled");
      expect((await rest("/v1/workspaces/me/skills/from-agent")).body.state).toBe("off");
    } finally {
      await close();
    }
  });

  it("re-checks scope at dispatch: narrowed mid-session, the next get is refused", async () => {
    const { client, close } = await connect("modern", `?project=${encodeURIComponent("C:\\Work\\Mono\\pkg")}`);
    try {
      expect(
        (await client.callTool({ name: "skills", arguments: { action: "get", name: "code-review" } })).isError,
      ).toBeFalsy();
      const current = await rest("/v1/workspaces/me/skills/code-review");
      await rest("/v1/workspaces/me/skills/code-review", {
        method: "PATCH",
        body: { revision: current.body.revision, scope: { mode: "projects", projects: ["/elsewhere"] } },
      });
      const refused = await client.callTool({ name: "skills", arguments: { action: "get", name: "code-review" } });
      expect(refused.isError).toBe(true);
      expect((refused.content as { text: string }[])[0]?.text).toContain("not active for this session");
      const list = await client.callTool({ name: "skills", arguments: { action: "list" } });
      expect((list.structuredContent as { items: { name: string }[] }).items.map((i) => i.name)).not.toContain(
        "code-review",
      );
      const inside = await connect("modern", "", { "x-loadout-project": "/ELSEWHERE/sub/dir/" });
      try {
        const ok = await inside.client.callTool({ name: "skills", arguments: { action: "get", name: "code-review" } });
        expect(ok.isError).toBeFalsy();
      } finally {
        await inside.close();
      }
    } finally {
      await close();
    }
  });
});

describe("HTTP-level refusals", () => {
  it("answers 401 with the protected-resource challenge, and serves that metadata", async () => {
    const res = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: "{}",
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(
      `Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp", scope="mcp"`,
    );
    const meta = await (await fetch(`${server.url}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(meta).toMatchObject({ resource: `${server.url}/mcp`, scopes_supported: ["mcp"] });
  });

  it("answers only to loopback host names when bound to loopback (DNS rebinding)", async () => {
    // fetch will not send another Host header, so this goes through node:http.
    const { request } = await import("node:http");
    const url = new URL(`${server.url}/mcp`);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: "POST",
          headers: { host: "attacker.example", authorization: `Bearer ${token}`, "content-type": "application/json" },
        },
        (res) => {
          let body = "";
          res.on("data", (chunk: Buffer) => {
            body += chunk.toString();
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on("error", reject);
      req.end("{}");
    });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body).error.message).toContain("attacker.example");
  });

  it("refuses a token without the mcp scope with 403, and a foreign Origin with 403", async () => {
    const narrow = (await rest("/v1/tokens", { method: "POST", body: { name: "read", scopes: ["skills:read"] } })).body
      .secret;
    const res = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${narrow}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(res.status).toBe(403);
    expect(res.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
    const evil = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, origin: "https://evil.example", "content-type": "application/json" },
      body: "{}",
    });
    expect(evil.status).toBe(403);
  });
});

describe("saved endpoints, connections and ChatGPT's shapes", () => {
  it("pins project and mode on /mcp/e/{id}, ignoring headers; another user's id is 404", async () => {
    const created = await rest("/v1/endpoints", {
      method: "POST",
      body: { name: "plan in mono", project: "/Work/Mono/", mode: "plan" },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ project: "/work/mono", mode: "plan", path: `/mcp/e/${created.body.id}` });
    const { client, close } = await connect("modern", "", {});
    await close();
    const pinned = new ClientV2({ name: "pinned", version: "1" }, { versionNegotiation: { mode: "auto" } });
    await pinned.connect(
      new TransportV2(new URL(`${server.url}${created.body.path}?mode=agent`), {
        requestInit: { headers: { authorization: `Bearer ${token}`, "x-loadout-mode": "agent" } },
      }),
    );
    try {
      expect((await pinned.listTools()).tools.map((t) => t.name)).toEqual(["skills"]);
    } finally {
      await pinned.close();
    }
    expect(client).toBeDefined();

    const other = await signUpAccount(server.url, "other-mcp@example.com");
    const otherToken = await other.token(["mcp"]);
    const probe = async (path: string) =>
      fetch(`${server.url}${path}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${otherToken.secret}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      });
    const foreign = await probe(created.body.path);
    const missing = await probe("/mcp/e/mep_01jzzzzzzzzzzzzzzzzzzzzzzz");
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    const a = (await foreign.json()).error.message.replace(created.body.id, "ID");
    const b = (await missing.json()).error.message.replace("mep_01jzzzzzzzzzzzzzzzzzzzzzzz", "ID");
    expect(a).toBe(b);

    expect((await rest(`/v1/endpoints/${created.body.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await rest("/v1/endpoints")).body.endpoints).toEqual([]);
  });

  it("records client connections for the console, after the response", async () => {
    const { close } = await connect("v1", `?project=${encodeURIComponent("/home/ada/app")}`);
    await close();
    await new Promise((r) => setTimeout(r, 200));
    const { body } = await rest("/v1/connections");
    const v1 = body.connections.find(
      (c: { clientName: string; project: string | null }) =>
        c.clientName === "v1-test-client" && c.project === "/home/ada/app",
    );
    expect(v1).toMatchObject({
      clientVersion: "1.0.0",
      era: "legacy",
      protocolVersion: "2025-11-25",
      project: "/home/ada/app",
      mode: "agent",
    });
    const modern = body.connections.find(
      (c: { clientName: string; era: string }) => c.clientName === "v2-test-client" && c.era === "modern",
    );
    expect(modern?.protocolVersion).toBe("2026-07-28");
    const known = await rest("/v1/workspaces/me/projects");
    expect(known.body.projects).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: "/home/ada/app", source: "session" })]),
    );
  });

  it("offers search and fetch to ChatGPT, in the shapes it expects", async () => {
    const client = new ClientV1({ name: "plain-client", version: "1.0.0" });
    await client.connect(
      new TransportV1(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    try {
      const plain = (await client.listTools()).tools.map((t) => t.name);
      expect(plain).not.toContain("search");
    } finally {
      await client.close();
    }
    // A 2025 client's later requests are known by its handshake (carried in Loadout's session id).
    const chatgpt = new ClientV1({ name: "openai-mcp", version: "1.0.0" });
    await chatgpt.connect(
      new TransportV1(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    try {
      const tools = (await chatgpt.listTools()).tools;
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["search", "fetch", "skills"]));
      expect(tools.find((t) => t.name === "search")?.annotations).toMatchObject({ readOnlyHint: true });
      const found = await chatgpt.callTool({ name: "search", arguments: { query: "staff engineer" } });
      const results = JSON.parse((found.content as { text: string }[])[0]?.text ?? "{}").results as {
        id: string;
        title: string;
        url: string;
      }[];
      expect(results[0]).toMatchObject({
        id: "staff-reviewer",
        url: `${server.url}/skills/edit/?name=staff-reviewer&ws=me`,
      });
      const fetched = await chatgpt.callTool({ name: "fetch", arguments: { id: "staff-reviewer" } });
      const doc = JSON.parse((fetched.content as { text: string }[])[0]?.text ?? "{}");
      expect(doc).toMatchObject({ id: "staff-reviewer", title: "staff-reviewer" });
      expect(doc.text).toContain("You are a staff engineer.");
    } finally {
      await chatgpt.close();
    }
  });
});

describe("the activity log", () => {
  it("records each call with its client, item, outcome and latency, after the response", async () => {
    const { auditEvents } = await import("@loadout/db");
    const { eq } = await import("drizzle-orm");
    const { client, close } = await connect("modern", `?project=${encodeURIComponent("/audit/here")}`);
    try {
      await client.callTool({ name: "skills", arguments: { action: "get", name: "long-read" } });
      await client.callTool({ name: "skills", arguments: { action: "get", name: "code-review" } });
      await client.callTool({ name: "skills", arguments: { action: "get", name: "nothing-like-it" } });
    } finally {
      await close();
    }
    await new Promise((r) => setTimeout(r, 600));
    const rows = await server.database.db.select().from(auditEvents).where(eq(auditEvents.action, "mcp.call"));
    const mine = rows.filter((r) => (r.data as { project?: string }).project === "/audit/here");
    const byItem = Object.fromEntries(mine.map((r) => [(r.data as { item: string }).item, r]));
    const outcome = (item: string) => (byItem[item]?.data as { outcome?: string } | undefined)?.outcome;
    expect(outcome("long-read")).toBe("ok");
    expect(outcome("code-review")).toBe("not_active");
    expect(outcome("nothing-like-it")).toBe("tool_error");
    expect(byItem["long-read"]).toMatchObject({
      targetType: "tools/call",
      targetId: "skills",
      actorTokenId: expect.stringMatching(/^tok_/),
    });
    expect(byItem["long-read"]?.data).toMatchObject({
      client: "v2-test-client 2.0.0",
      mode: "agent",
      ms: expect.any(Number),
    });
    // The Activity page's two filters split the log: calls, and every change (newest calls skipped).
    type Listed = { kind: string; action: string };
    const calls = (await rest("/v1/workspaces/me/activity?kind=call&limit=200")).body.events as Listed[];
    const changes = (await rest("/v1/workspaces/me/activity?kind=change&limit=200")).body.events as Listed[];
    const everything = (await rest("/v1/workspaces/me/activity?limit=200")).body.events as Listed[];
    expect(calls.length).toBeGreaterThanOrEqual(3);
    expect(calls.every((e) => e.kind === "call" && e.action === "mcp.call")).toBe(true);
    expect(changes.some((e) => e.action === "skill.created")).toBe(true);
    expect(changes.every((e) => e.kind === "change" && e.action !== "mcp.call")).toBe(true);
    expect(calls.length + changes.length).toBe(everything.length);
  });
});

describe("2025-era clients in the activity log", () => {
  it.each([
    ["v1", "v1-test-client 1.0.0"],
    ["legacy-v2", "v2-test-client 2.0.0"],
  ] as const)("names a %s client by its handshake on every call, not by its User-Agent", async (era, label) => {
    const { auditEvents } = await import("@loadout/db");
    const { eq } = await import("drizzle-orm");
    const project = `/named/${era}`;
    const { client, close } = await connect(era, `?project=${encodeURIComponent(project)}`);
    try {
      await client.callTool({ name: "skills", arguments: { action: "get", name: "long-read" } });
      await client.callTool({ name: "skills", arguments: { action: "list" } });
    } finally {
      await close();
    }
    await new Promise((r) => setTimeout(r, 600));
    const rows = await server.database.db.select().from(auditEvents).where(eq(auditEvents.action, "mcp.call"));
    const mine = rows.filter((r) => (r.data as { project?: string }).project === project);
    expect(mine.length).toBe(2);
    expect(mine.map((r) => (r.data as { client?: string }).client)).toEqual([label, label]);
  });

  it("does not take a session id it did not sign as a client's name", async () => {
    const res = await fetch(`${server.url}/mcp?project=/forged`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
        "mcp-session-id": `lo1.${Buffer.from(JSON.stringify(["forged", "9", null])).toString("base64url")}.${"a".repeat(32)}`,
        "user-agent": "forger/1",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "skills", arguments: { action: "list" } },
      }),
    });
    expect(res.status).toBe(200);
    await res.text();
    await new Promise((r) => setTimeout(r, 600));
    const { auditEvents } = await import("@loadout/db");
    const { eq } = await import("drizzle-orm");
    const rows = await server.database.db.select().from(auditEvents).where(eq(auditEvents.action, "mcp.call"));
    const forged = rows.filter((r) => (r.data as { project?: string }).project === "/forged");
    expect(forged.map((r) => (r.data as { client?: string }).client)).toEqual(["forger/1"]);
  });
});

describe("teams and narrowed tokens", () => {
  it("serves a team's items as <team>/<name> beside personal ones, to members only", async () => {
    expect((await rest("/v1/workspaces", { method: "POST", body: { slug: "acme-mcp", name: "Acme" } })).status).toBe(
      201,
    );
    for (const ws of ["acme-mcp", "me"]) {
      const res = await rest(`/v1/workspaces/${ws}/skills`, {
        method: "POST",
        body: { name: "deploy", description: `Deploy (${ws}).`, instructions: `Deploy from ${ws}.` },
      });
      expect(res.status).toBe(201);
    }
    const { client, close, instructions } = await connect("modern");
    try {
      const list = await client.callTool({ name: "skills", arguments: { action: "list" } });
      const items = (list.structuredContent as { items: { name: string; origin: string }[] }).items;
      expect(items.filter((i) => i.name.endsWith("deploy"))).toEqual([
        expect.objectContaining({ name: "acme-mcp/deploy", origin: "team:acme-mcp" }),
        expect.objectContaining({ name: "deploy", origin: "personal" }),
      ]);
      expect(instructions).toContain("- acme-mcp/deploy: Deploy (acme-mcp).");
      const team = await client.callTool({ name: "skills", arguments: { action: "get", name: "acme-mcp/deploy" } });
      expect((team.content as { text: string }[])[0]?.text).toContain("Deploy from acme-mcp.");
      const personal = await client.callTool({ name: "skills", arguments: { action: "get", name: "deploy" } });
      expect((personal.content as { text: string }[])[0]?.text).toContain("Deploy from me.");
    } finally {
      await close();
    }

    const narrowed = (
      await rest("/v1/tokens", { method: "POST", body: { name: "acme only", scopes: ["mcp"], workspace: "acme-mcp" } })
    ).body.secret;
    const onlyTeam = new ClientV2({ name: "narrowed", version: "1" }, { versionNegotiation: { mode: "auto" } });
    await onlyTeam.connect(
      new TransportV2(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${narrowed}` } },
      }),
    );
    try {
      const list = await onlyTeam.callTool({ name: "skills", arguments: { action: "list" } });
      expect((list.structuredContent as { items: { name: string }[] }).items.map((i) => i.name)).toEqual([
        "acme-mcp/deploy",
      ]);
      const bare = await onlyTeam.callTool({ name: "skills", arguments: { action: "get", name: "deploy" } });
      expect((bare.content as { text: string }[])[0]?.text).toContain("Deploy from acme-mcp.");
      const personal = await onlyTeam.callTool({ name: "skills", arguments: { action: "get", name: "code-review" } });
      expect(personal.isError).toBe(true);
    } finally {
      await onlyTeam.close();
    }
  });
});
