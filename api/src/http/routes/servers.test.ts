import { auditEvents, mcpServers } from "@loadout/db";
import { count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HEADER_SET } from "../../services/servers/records";
import { bearer, createTestApp, type TestApp, TestUser } from "../../testing";

let t: TestApp;
let token: string;
const base = "/v1/workspaces/me/servers";
const api = (path: string, init: { method?: string; body?: unknown } = {}) => t.app.request(path, bearer(token, init));
const secretValue = `Bearer ${"q".repeat(8)}-${"Zk3".repeat(10)}`;

beforeAll(async () => {
  t = await createTestApp();
  const user = await TestUser.signUp(t.app, "servers@example.com");
  token = (await user.createToken({ name: "servers", scopes: ["servers:read", "servers:write"] })).secret;
});
afterAll(() => t.close());

const paste = (servers: Record<string, unknown>) =>
  api(`${base}/import`, { method: "POST", body: { text: JSON.stringify({ mcpServers: servers }) } });

describe("server records", () => {
  it("imports what it can, reports the rest with reasons, and seals header values", async () => {
    const res = await paste({
      github: { type: "http", url: "https://api.githubcopilot.com/mcp/", headers: { Authorization: secretValue } },
      linear: { url: "https://mcp.linear.app/sse" },
      local: { command: "npx", args: ["-y", "some-server"] },
      intranet: { url: "https://10.0.0.5/mcp" },
      cleartext: { url: "http://mcp.example.com/mcp" },
      skills: { url: "https://example.com/mcp" },
      needsKey: { url: "https://mcp.example.com/mcp", headers: { "X-Api-Key": "<YOUR_API_KEY>" } },
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.imported.map((s: { slug: string }) => s.slug)).toEqual(["github", "linear", "needskey"]);
    expect(body.imported[1]).toMatchObject({ transport: "sse", status: "unknown", state: "global" });
    expect(body.imported[2].placeholders).toEqual([{ header: "X-Api-Key", placeholder: "<YOUR_API_KEY>" }]);
    const reasons = Object.fromEntries(body.skipped.map((s: { name: string; reason: string }) => [s.name, s.reason]));
    expect(reasons.local).toBe("stdio servers cannot run in a hosted service");
    expect(reasons.intranet).toMatch(/private/);
    expect(reasons.cleartext).toMatch(/https/);
    expect(reasons.skills).toMatch(/skills/);

    // The name and that a value is set; not one character of it (it was "Bear…(n chars)").
    expect(body.imported[0].headers).toEqual({ Authorization: HEADER_SET });
    const [row] = await t.database.db.select().from(mcpServers).where(eq(mcpServers.slug, "github"));
    expect(row?.headers.Authorization).toMatch(/^v1\.k[0-9a-f]{8}\./);
    expect(JSON.stringify(row)).not.toContain(secretValue);
    const events = await t.database.db.select().from(auditEvents).where(eq(auditEvents.action, "server.imported"));
    expect(events).toHaveLength(3);
    expect(JSON.stringify(events)).not.toContain(secretValue);
    expect(JSON.stringify(t.logs)).not.toContain(secretValue);
  });

  it("keeps flagging a placeholder header until the real value is saved", async () => {
    const before = await (await api(`${base}/needskey`)).json();
    expect(before.placeholders).toEqual([{ header: "X-Api-Key", placeholder: "<YOUR_API_KEY>" }]);
    const saved = await api(`${base}/needskey`, {
      method: "PATCH",
      body: { revision: before.revision, headers: { "X-Api-Key": "real-key-0123456789" } },
    });
    expect((await saved.json()).placeholders).toEqual([]);
  });

  it("refuses a paste that is not JSON, and a second server with a taken slug, storing nothing", async () => {
    const before = (await t.database.db.select({ n: count() }).from(mcpServers))[0]?.n;
    const bad = await api(`${base}/import`, { method: "POST", body: { text: "{ mcpServers: " } });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toMatch(/Not valid JSON/);
    const taken = await (await paste({ github: { url: "https://example.org/mcp" } })).json();
    expect(taken.imported).toEqual([]);
    expect(taken.skipped[0].reason).toMatch(/exists/);
    expect((await t.database.db.select({ n: count() }).from(mcpServers))[0]?.n).toBe(before);
  });

  it("says plainly what is wrong with a paste: empty, YAML, a clash within it, loopback while the exception is off", async () => {
    const empty = await api(`${base}/import`, { method: "POST", body: { text: "" } });
    expect(empty.status).toBe(400);
    expect((await empty.json()).error.message).toMatch(/^The paste is empty\. Paste the "mcpServers" block/);
    const yaml = await api(`${base}/import`, {
      method: "POST",
      body: { text: "mcpServers:\n  a:\n    url: https://a.example.com\n" },
    });
    expect((await yaml.json()).error.message).toMatch(/^This looks like YAML\. Paste the JSON form/);

    const clash = await (
      await paste({
        "Paste Twin": { url: "https://one.example.com/mcp" },
        "paste-twin": { url: "https://two.example.com/mcp" },
        local: { url: "http://127.0.0.1:9/mcp" },
      })
    ).json();
    expect(clash.imported.map((s: { slug: string }) => s.slug)).toEqual(["paste-twin"]);
    const reasons = Object.fromEntries(clash.skipped.map((s: { name: string; reason: string }) => [s.name, s.reason]));
    expect(reasons["paste-twin"]).toBe(
      '"Paste Twin" earlier in this paste also gives the slug "paste-twin"; rename one of them',
    );
    expect(reasons.local).toContain("the loopback exception is off");
    expect(reasons.local).toContain("LOADOUT_ALLOW_LOOPBACK_UPSTREAMS=1");
  });

  it("edits with revisions; changing what the server is resets its status, a label does not", async () => {
    await t.database.db.update(mcpServers).set({ status: "ok" }).where(eq(mcpServers.slug, "linear"));
    let s = await (await api(`${base}/linear`)).json();
    s = await (
      await api(`${base}/linear`, { method: "PATCH", body: { revision: s.revision, label: "Linear" } })
    ).json();
    expect(s).toMatchObject({ label: "Linear", status: "ok", revision: 2 });
    s = await (
      await api(`${base}/linear`, {
        method: "PATCH",
        body: { revision: s.revision, headers: { Authorization: "Bearer lin_api_abcdefghijklmnop" } },
      })
    ).json();
    expect(s.status).toBe("unknown");
    expect(s.headers).toEqual({ Authorization: "(set)" });
    const stale = await api(`${base}/linear`, { method: "PATCH", body: { revision: 1, label: "Old" } });
    expect(stale.status).toBe(409);
    const badUrl = await api(`${base}/linear`, {
      method: "PATCH",
      body: { revision: s.revision, url: "https://169.254.169.254/latest" },
    });
    expect(badUrl.status).toBe(400);
    expect((await badUrl.json()).error.message).toMatch(/metadata/);
  });

  it("removes with the current revision, and hides other tenants' servers like missing ones", async () => {
    const s = await (await api(`${base}/needskey`)).json();
    expect((await api(`${base}/needskey?revision=${s.revision}`, { method: "DELETE" })).status).toBe(204);
    expect((await api(`${base}/needskey`)).status).toBe(404);
    const other = await TestUser.signUp(t.app, "other-servers@example.com");
    expect((await other.request("/v1/workspaces/servers/servers/github")).status).toBe(404);
    expect((await (await other.request("/v1/workspaces/me/servers")).json()).servers).toEqual([]);
  });
});
