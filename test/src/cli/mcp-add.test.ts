/**
 * `loadout mcp add <client>` as a child process: each client's config file in its documented
 * shape, with the URL, a token made for that client (scope mcp), the project header and the
 * device header; other entries in the file kept; and the entry works as written, with the real
 * MCP SDK client.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { parse as parseToml } from "smol-toml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Account, signUpAccount } from "../helpers/account";
import { cliEnv, runCli, tempHome } from "../helpers/cli";
import { startTestServer, type TestServer } from "../helpers/server";

let server: TestServer;
let account: Account;
let home: ReturnType<typeof tempHome>;
let env: NodeJS.ProcessEnv;
let project: string;
let device: string;

const at = (...parts: string[]) => path.join(home.home, ...parts);
const json = (...parts: string[]) => JSON.parse(readFileSync(at(...parts), "utf8"));

async function toolsWith(headers: Record<string, string>, url: string) {
  const client = new Client({ name: "mcp-add-test", version: "1" }, { versionNegotiation: { mode: "auto" } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  try {
    return (await client.listTools()).tools.map((t) => t.name);
  } finally {
    await client.close();
  }
}

beforeAll(async () => {
  server = await startTestServer();
  account = await signUpAccount(server.url, "mcp-add@example.com");
  home = tempHome();
  env = cliEnv(home.home, server.url);
  project = at("code", "shop");
  mkdirSync(project, { recursive: true });
  const token = await account.token(["mcp", "admin", "skills:read"], { name: "cli" });
  expect((await runCli(["login", "--token", token.secret], { env })).code).toBe(0);
  // An existing Claude Code file, with settings of its own that must survive.
  writeFileSync(at(".claude.json"), JSON.stringify({ numStartups: 3, projects: { "/other": { mcpServers: {} } } }));
});
afterAll(async () => {
  home?.remove();
  await server?.close();
});

describe("loadout mcp add", () => {
  it("writes Claude Code's entry for the project (local scope), keeping the file's other settings", async () => {
    const added = await runCli(["mcp", "add", "claude-code"], { env, cwd: project });
    expect(added.stderr).toBe("");
    expect(added.code).toBe(0);
    device = json(".config", "loadout", "device.json").id;
    expect(device).toMatch(/^dev_[a-z0-9]{26}$/);
    const config = json(".claude.json");
    expect(config.numStartups).toBe(3);
    expect(config.projects["/other"]).toEqual({ mcpServers: {} });
    const entry = config.projects[project].mcpServers.loadout;
    expect(entry).toEqual({
      type: "http",
      url: `${server.url}/mcp`,
      headers: {
        Authorization: expect.stringMatching(/^Bearer lo_[0-9A-Za-z]{43}$/),
        "X-Loadout-Project": project,
        "X-Loadout-Device": device,
      },
    });
    expect(statSync(at(".claude.json")).mode & 0o777).toBe(0o600);
    expect(await toolsWith(entry.headers, entry.url)).toContain("skills");
    // The token was made for this client, with the mcp scope only.
    const tokens = (await account.rest("/v1/tokens")).body.tokens as { name: string; scopes: string[] }[];
    expect(tokens.find((t) => t.name.startsWith("claude-code on "))?.scopes).toEqual(["mcp"]);
  });

  it("writes Cursor's and VS Code's entries with the open folder as the project", async () => {
    expect((await runCli(["mcp", "add", "cursor"], { env })).code).toBe(0);
    const cursor = json(".cursor", "mcp.json").mcpServers.loadout;
    expect(cursor).toEqual({
      url: `${server.url}/mcp`,
      headers: {
        Authorization: expect.stringMatching(/^Bearer lo_/),
        // biome-ignore lint/suspicious/noTemplateCurlyInString: Cursor expands it.
        "X-Loadout-Project": "${workspaceFolder}",
        "X-Loadout-Device": device,
      },
    });
    expect((await runCli(["mcp", "add", "vscode", "--project", project], { env })).code).toBe(0);
    const vscode = json(".config", "Code", "User", "mcp.json").servers.loadout;
    expect(vscode).toEqual({
      type: "http",
      url: `${server.url}/mcp`,
      headers: {
        Authorization: expect.stringMatching(/^Bearer lo_/),
        "X-Loadout-Project": project,
        "X-Loadout-Device": device,
      },
    });
    expect(vscode.headers.Authorization).not.toBe(cursor.headers.Authorization);
    expect(await toolsWith(vscode.headers, vscode.url)).toContain("skills");
  });

  it("writes Codex's TOML, keeping its other tables", async () => {
    mkdirSync(at(".codex"), { recursive: true });
    writeFileSync(at(".codex", "config.toml"), 'model = "gpt-5"\n\n[mcp_servers.other]\ncommand = "other-server"\n');
    const added = await runCli(["mcp", "add", "codex", "--project", project], { env });
    expect(added.code).toBe(0);
    const config = parseToml(readFileSync(at(".codex", "config.toml"), "utf8")) as {
      model: string;
      mcp_servers: Record<string, { url?: string; command?: string; http_headers?: Record<string, string> }>;
    };
    expect(config.model).toBe("gpt-5");
    expect(config.mcp_servers.other).toEqual({ command: "other-server" });
    const entry = config.mcp_servers.loadout;
    expect(entry?.url).toBe(`${server.url}/mcp`);
    expect(entry?.http_headers).toEqual({
      Authorization: expect.stringMatching(/^Bearer lo_/),
      "X-Loadout-Project": project,
      "X-Loadout-Device": device,
    });
    expect(await toolsWith(entry?.http_headers ?? {}, entry?.url ?? "")).toContain("skills");
  });

  it("writes Claude Desktop's entry through mcp-remote, the token in its environment", async () => {
    expect((await runCli(["mcp", "add", "claude-desktop"], { env })).code).toBe(0);
    const entry = json(".config", "Claude", "claude_desktop_config.json").mcpServers.loadout;
    expect(entry.command).toBe("npx");
    expect(entry.args).toEqual([
      "-y",
      "mcp-remote",
      `${server.url}/mcp`,
      "--header",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: mcp-remote expands it.
      "Authorization:${LOADOUT_AUTHORIZATION}",
      "--header",
      `X-Loadout-Device:${device}`,
    ]);
    expect(entry.env.LOADOUT_AUTHORIZATION).toMatch(/^Bearer lo_/);
  });

  it("refuses an unknown client (exit 2), and a file it cannot read, without making a token", async () => {
    const before = (await account.rest("/v1/tokens")).body.tokens.length;
    const unknown = await runCli(["mcp", "add", "notepad"], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Unknown client "notepad": use claude-code, cursor, vscode, codex, claude-desktop/);
    writeFileSync(at(".cursor", "mcp.json"), "{ // a comment\n}");
    const broken = await runCli(["mcp", "add", "cursor"], { env });
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/mcp\.json is not plain JSON/);
    expect(readFileSync(at(".cursor", "mcp.json"), "utf8")).toBe("{ // a comment\n}");
    expect((await account.rest("/v1/tokens")).body.tokens.length).toBe(before);
  });
});
