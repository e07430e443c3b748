import { parse as parseToml } from "smol-toml";
import { describe, expect, it } from "vitest";
import { configFile, withEntry } from "./entries";

const c = { url: "https://loadout.example/mcp", token: "lo_secret", deviceId: "dev_abc", project: "/work/shop" };
const headers = { Authorization: "Bearer lo_secret", "X-Loadout-Project": "/work/shop", "X-Loadout-Device": "dev_abc" };

describe("withEntry", () => {
  it("adds Loadout to Claude Code's project, keeping everything else", () => {
    const before = JSON.stringify({ theme: "dark", projects: { "/work/shop": { allowedTools: ["x"] } } });
    const after = JSON.parse(withEntry("claude-code", before, c, "f"));
    expect(after.theme).toBe("dark");
    expect(after.projects["/work/shop"]).toEqual({
      allowedTools: ["x"],
      mcpServers: { loadout: { type: "http", url: c.url, headers } },
    });
    const user = JSON.parse(withEntry("claude-code", null, { ...c, project: null }, "f"));
    expect(user.mcpServers.loadout.headers).not.toHaveProperty("X-Loadout-Project");
  });

  it("replaces an earlier Loadout entry and keeps the others", () => {
    const before = JSON.stringify({ mcpServers: { loadout: { url: "old" }, other: { url: "https://o" } } });
    const after = JSON.parse(withEntry("cursor", before, c, "f"));
    expect(after.mcpServers).toEqual({ loadout: { url: c.url, headers }, other: { url: "https://o" } });
  });

  it("writes VS Code's servers map and Codex's TOML table", () => {
    expect(JSON.parse(withEntry("vscode", "", c, "f"))).toEqual({
      servers: { loadout: { type: "http", url: c.url, headers } },
    });
    const toml = withEntry("codex", 'model = "o4"\n', c, "f");
    expect(toml).toContain("[mcp_servers.loadout]");
    expect(toml).toContain('url = "https://loadout.example/mcp"');
    expect(toml).toContain('model = "o4"');
  });

  it("edits Codex's TOML as text, keeping comments, and replaces an earlier entry with its subtables", () => {
    const before = [
      "# my settings",
      'model = "o4" # the default',
      "",
      "[mcp_servers.loadout]",
      'url = "https://old.example/mcp"',
      "",
      "[mcp_servers.loadout.http_headers]",
      'Authorization = "Bearer lo_old"',
      "",
      "# another server",
      "[mcp_servers.other]",
      'command = "other"',
      "",
    ].join("\n");
    const after = withEntry("codex", before, c, "f");
    expect(after).toContain("# my settings");
    expect(after).toContain("# another server");
    expect(after).not.toContain("lo_old");
    expect(after).not.toContain("old.example");
    expect(parseToml(after)).toEqual({
      model: "o4",
      mcp_servers: { other: { command: "other" }, loadout: { url: c.url, http_headers: headers } },
    });
    // An entry written inline is replaced too, by writing the document again.
    const inline = withEntry("codex", 'mcp_servers = { loadout = { url = "x" } }\n', c, "f");
    expect(parseToml(inline)).toEqual({ mcp_servers: { loadout: { url: c.url, http_headers: headers } } });
  });

  it("refuses a file it cannot read as its format, naming it", () => {
    expect(() => withEntry("cursor", "{ // comment\n}", c, "/h/.cursor/mcp.json")).toThrow(
      /\/h\/\.cursor\/mcp\.json is not plain JSON/,
    );
    expect(() => withEntry("cursor", "[1]", c, "f")).toThrow(/JSON object/);
    expect(() => withEntry("codex", "model = ", c, "config.toml")).toThrow(/config\.toml is not valid TOML/);
  });
});

describe("configFile", () => {
  it("follows each client's documented place per system", () => {
    const env = { HOME: "/h", APPDATA: "C:\\Users\\a\\AppData\\Roaming" };
    expect(configFile("claude-code", env)).toBe("/h/.claude.json");
    expect(configFile("cursor", env)).toBe("/h/.cursor/mcp.json");
    expect(configFile("vscode", env, "linux")).toBe("/h/.config/Code/User/mcp.json");
    expect(configFile("vscode", env, "darwin")).toBe("/h/Library/Application Support/Code/User/mcp.json");
    expect(configFile("codex", { ...env, CODEX_HOME: "/c" })).toBe("/c/config.toml");
    expect(configFile("claude-desktop", env, "darwin")).toBe(
      "/h/Library/Application Support/Claude/claude_desktop_config.json",
    );
  });
});
