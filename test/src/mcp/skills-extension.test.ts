/**
 * The Skills extension (SEP-2640) over raw HTTP on the stateless revision: declaration in
 * server/discover, skills/list and skills/get with verbatim frontmatter and complete manifests,
 * skill:// reads whose bytes match every served digest, directory reads, and scope re-checked.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Account, signUpAccount } from "../helpers/account";
import { legacyInitialize, mcpHeaders } from "../helpers/mcp-http";
import { startTestServer, type TestServer } from "../helpers/server";

let server: TestServer;
let token: string;
let account: Account;
const rest: Account["rest"] = (path, init) => account.rest(path, init);
let id = 0;

type Rpc = { result?: Record<string, unknown>; error?: { code: number; message: string } };
async function rpc(
  method: string,
  params: Record<string, unknown> = {},
  query = "",
): Promise<{ status: number; message: Rpc }> {
  const requestId = ++id;
  const res = await fetch(`${server.url}/mcp${query}`, {
    method: "POST",
    headers: mcpHeaders(
      token,
      method,
      method === "resources/read" && typeof params.uri === "string" ? params.uri : undefined,
    ),
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: requestId,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/skills": {} } },
          "io.modelcontextprotocol/clientInfo": { name: "skills-test", version: "1" },
        },
      },
    }),
  });
  const text = await res.text();
  if ((res.headers.get("content-type") ?? "").includes("text/event-stream")) {
    for (const line of text.split("\n")) {
      if (!line.startsWith("data:")) continue;
      const message = JSON.parse(line.slice(5)) as Rpc & { id?: number };
      if (message.id === requestId) return { status: res.status, message };
    }
    throw new Error(`no response in the stream: ${text}`);
  }
  return { status: res.status, message: JSON.parse(text) as Rpc };
}

const sha = (bytes: Uint8Array) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

async function readBytes(uri: string): Promise<Uint8Array> {
  const { message } = await rpc("resources/read", { uri });
  const content = (message.result?.contents as { text?: string; blob?: string }[] | undefined)?.[0];
  if (!content) throw new Error(`no contents for ${uri}: ${JSON.stringify(message)}`);
  return content.blob !== undefined
    ? new Uint8Array(Buffer.from(content.blob, "base64"))
    : new TextEncoder().encode(content.text ?? "");
}

beforeAll(async () => {
  server = await startTestServer();
  account = await signUpAccount(server.url, "ext@example.com");
  token = (await account.token(["mcp"])).secret;
  const png = Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 91) % 256));
  const created = await rest("/v1/workspaces/me/skills/import", {
    method: "POST",
    body: {
      text: "---\n# kept verbatim\nname: brand-voice\ndescription: Writes in the brand's voice.\nmetadata:\n  owner: marketing\nallowed-tools: Read\n---\nUse the guide.\n",
    },
  });
  expect(created.status).toBe(201);
  const patched = await rest("/v1/workspaces/me/skills/brand-voice", {
    method: "PATCH",
    body: {
      revision: 1,
      files: {
        "references/guide.md": { content: "# Guide\r\nCafé ☕\r\n" },
        "assets/logo.png": { contentBase64: png.toString("base64") },
      },
    },
  });
  expect(patched.status).toBe(200);
  await rest("/v1/workspaces/me/skills/import", {
    method: "POST",
    body: { kind: "persona", text: "---\nname: editor\ndescription: An editor persona.\n---\nYou edit.\n" },
  });
});
afterAll(() => server?.close());

describe("the Skills extension", () => {
  it("is declared with directoryRead in server/discover", async () => {
    const { message } = await rpc("server/discover");
    expect(message.result?.capabilities).toMatchObject({
      extensions: { "io.modelcontextprotocol/skills": { directoryRead: true } },
      resources: expect.any(Object),
    });
  });

  it("is declared in the 2025-era initialize result too", async () => {
    const res = await legacyInitialize(`${server.url}/mcp`, token);
    const text = await res.text();
    const line = text.startsWith("{")
      ? text
      : (text
          .split("\n")
          .find((l) => l.startsWith("data:"))
          ?.slice(5) ?? "{}");
    const result = JSON.parse(line).result;
    expect(result.capabilities.extensions).toMatchObject({ "io.modelcontextprotocol/skills": { directoryRead: true } });
  });

  it("lists skills (not personas) with verbatim frontmatter, a complete manifest and Loadout's markers", async () => {
    const { message } = await rpc("skills/list");
    const skills = message.result?.skills as {
      uri: string;
      frontmatter: Record<string, unknown>;
      resources: { uri: string; digest: string; size: number }[];
      _meta: Record<string, unknown>;
    }[];
    expect(skills.map((s) => s.uri)).toEqual(["skill://brand-voice/SKILL.md"]);
    const [skill] = skills;
    expect(skill?.frontmatter).toEqual({
      name: "brand-voice",
      description: "Writes in the brand's voice.",
      metadata: { owner: "marketing" },
      "allowed-tools": "Read",
    });
    expect(skill?.resources.map((r) => r.uri)).toEqual([
      "skill://brand-voice/SKILL.md",
      "skill://brand-voice/assets/logo.png",
      "skill://brand-voice/references/guide.md",
    ]);
    expect(skill?._meta).toMatchObject({
      "dev.loadout/origin": "personal",
      "dev.loadout/untrusted": true,
      "dev.loadout/estimatedTokens": expect.any(Number),
    });
  });

  it("serves bytes that match every digest and size in the manifest", async () => {
    const { message } = await rpc("skills/get", { uri: "skill://brand-voice/SKILL.md" });
    const skill = message.result?.skill as { resources: { uri: string; digest: string; size: number }[] };
    expect(skill.resources).toHaveLength(3);
    for (const resource of skill.resources) {
      const bytes = await readBytes(resource.uri);
      expect(bytes.byteLength, resource.uri).toBe(resource.size);
      expect(sha(bytes), resource.uri).toBe(resource.digest);
    }
  });

  it("reads directories, one level at a time", async () => {
    const root = await rpc("resources/directory/read", { uri: "skill://brand-voice" });
    const children = root.message.result?.resources as { uri: string; mimeType?: string }[];
    expect(children.map((c) => `${c.uri}${c.mimeType === "inode/directory" ? "/" : ""}`)).toEqual([
      "skill://brand-voice/SKILL.md",
      "skill://brand-voice/assets/",
      "skill://brand-voice/references/",
    ]);
    const refs = await rpc("resources/directory/read", { uri: "skill://brand-voice/references" });
    expect(((refs.message.result?.resources ?? []) as { uri: string }[]).map((r) => r.uri)).toEqual([
      "skill://brand-voice/references/guide.md",
    ]);
    const missing = await rpc("resources/directory/read", { uri: "skill://brand-voice/nowhere" });
    expect(missing.message.error?.code).toBe(-32602);
  });

  it("refuses unknown skills and files with -32602, and re-checks scope on every get and read", async () => {
    expect((await rpc("skills/get", { uri: "skill://nope/SKILL.md" })).message.error?.code).toBe(-32602);
    expect((await rpc("resources/read", { uri: "skill://brand-voice/missing.md" })).message.error?.code).toBe(-32602);
    const current = await rest("/v1/workspaces/me/skills/brand-voice");
    await rest("/v1/workspaces/me/skills/brand-voice", {
      method: "PATCH",
      body: { revision: current.body.revision, scope: { mode: "projects", projects: ["/work/shop"] } },
    });
    expect((await rpc("skills/get", { uri: "skill://brand-voice/SKILL.md" })).message.error?.code).toBe(-32602);
    expect((await rpc("resources/read", { uri: "skill://brand-voice/references/guide.md" })).message.error?.code).toBe(
      -32602,
    );
    const inShop = await rpc(
      "skills/get",
      { uri: "skill://brand-voice/SKILL.md" },
      `?project=${encodeURIComponent("/Work/Shop/web")}`,
    );
    expect(inShop.message.error).toBeUndefined();
    expect((await rpc("skills/list")).message.result?.skills).toEqual([]);
  });
});

describe("skills/list pages", () => {
  it("pages by URI with opaque cursors, and refuses a cursor once the registry changed", async () => {
    for (let i = 0; i < 101; i++) {
      const res = await rest("/v1/workspaces/me/skills", {
        method: "POST",
        body: { name: `bulk-${String(i).padStart(3, "0")}`, description: `Bulk ${i}.`, instructions: "x" },
      });
      expect(res.status).toBe(201);
    }
    const first = await rpc("skills/list");
    const page1 = first.message.result?.skills as { uri: string }[];
    expect(page1).toHaveLength(100);
    expect(page1.map((s) => s.uri)).toEqual([...page1.map((s) => s.uri)].sort());
    const cursor = first.message.result?.nextCursor as string;
    expect(cursor).toEqual(expect.any(String));
    const second = await rpc("skills/list", { cursor });
    const page2 = ((second.message.result?.skills ?? []) as { uri: string }[]).map((s) => s.uri);
    expect(page2.at(-1)).toBe("skill://bulk-100/SKILL.md");
    expect(page2.every((uri) => uri > (page1.at(-1)?.uri ?? ""))).toBe(true);
    expect(second.message.result?.nextCursor).toBeUndefined();

    await rest("/v1/workspaces/me/skills", {
      method: "POST",
      body: { name: "bulk-new", description: "Added mid-listing.", instructions: "x" },
    });
    const stale = await rpc("skills/list", { cursor });
    expect(stale.message.error?.code).toBe(-32602);
    expect(stale.message.error?.message).toMatch(/changed/);
    expect((await rpc("skills/list", { cursor: "garbage" })).message.error?.code).toBe(-32602);
  });
});
