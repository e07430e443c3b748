/**
 * The session's project from the client's MCP roots: a 2026-07-28 client that declares roots is
 * asked for them (an input-required answer, fulfilled by the SDK client's own roots handler), and
 * its project-scoped items then appear; a project from the URL or header wins, and clients without
 * roots are never asked.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Account, signUpAccount } from "../helpers/account";
import { startTestServer, type TestServer } from "../helpers/server";

let server: TestServer;
let account: Account;
let token: string;

async function connect(roots: string[] | null, options: { legacy?: boolean; header?: string } = {}) {
  const client = new Client(
    { name: "roots-test", version: "1.0.0" },
    {
      ...(roots ? { capabilities: { roots: {} } } : {}),
      ...(options.legacy ? {} : { versionNegotiation: { mode: "auto" as const } }),
    },
  );
  let asked = 0;
  if (roots)
    client.setRequestHandler("roots/list", async () => {
      asked++;
      return { roots: roots.map((uri) => ({ uri, name: uri.split("/").pop() ?? uri })) };
    });
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (options.header) headers["x-loadout-project"] = options.header;
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers } }));
  const list = async () => {
    const result = await client.callTool({ name: "skills", arguments: { action: "list" } });
    return ((result.structuredContent as { items: { name: string }[] }).items ?? []).map((i) => i.name);
  };
  return { client, list, asked: () => asked };
}

beforeAll(async () => {
  server = await startTestServer();
  account = await signUpAccount(server.url, "roots@example.com");
  token = (await account.token(["mcp"])).secret;
  for (const [name, scope] of [
    ["everywhere", { mode: "global", projects: [] }],
    ["app-only", { mode: "projects", projects: ["/work/app"] }],
  ] as const) {
    const created = await account.rest("/v1/workspaces/me/skills", {
      method: "POST",
      body: { name, description: `The ${name} skill.`, instructions: "# Steps\n", scope },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  }
});
afterAll(() => server?.close());

describe("project from MCP roots", () => {
  it("asks a roots-capable 2026-07-28 client for its roots and serves that project's items", async () => {
    const { client, list, asked } = await connect(["file:///Work/App/packages/api"]);
    expect(client.getProtocolEra?.()).toBe("modern");
    expect(await list()).toEqual(["app-only", "everywhere"]);
    expect(asked()).toBe(1);
    await client.close();
  });

  it("serves only global items when the roots name another project", async () => {
    const { client, list, asked } = await connect(["file:///work/other"]);
    expect(await list()).toEqual(["everywhere"]);
    expect(asked()).toBe(1);
    await client.close();
  });

  it("does not ask when the header names the project, nor a client without roots, nor a 2025 client", async () => {
    const header = await connect(["file:///work/other"], { header: "/work/app" });
    expect(await header.list()).toEqual(["app-only", "everywhere"]);
    expect(header.asked()).toBe(0);
    await header.client.close();
    const without = await connect(null);
    expect(await without.list()).toEqual(["everywhere"]);
    await without.client.close();
    const legacy = await connect(["file:///work/app"], { legacy: true });
    expect(await legacy.list()).toEqual(["everywhere"]);
    expect(legacy.asked()).toBe(0);
    await legacy.client.close();
  });
});
