/**
 * The upstream helpers behave as documented, seen through the official SDK v2 client in both
 * eras: `versionNegotiation: { mode: "auto" }` (2026-07-28) and the default legacy handshake
 * (2025-11-25).
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  HUGE_TEXT_LENGTH,
  type MisbehavingUpstream,
  type StatelessUpstream,
  shiftyDescription,
  startMisbehavingUpstream,
  startStatelessUpstream,
  TINY_PNG_BASE64,
} from "./upstreams";

const ERAS = [
  { era: "modern", mode: "auto", version: "2026-07-28" },
  { era: "legacy", mode: "legacy", version: "2025-11-25" },
] as const;

async function connect(url: string, mode: "auto" | "legacy"): Promise<Client> {
  const client = new Client({ name: "upstreams-test", version: "1.0.0" }, { versionNegotiation: { mode } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

interface Block {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
}
const blocks = (result: { content?: unknown }) => (result.content ?? []) as Block[];
const firstText = (result: { content?: unknown }) => blocks(result)[0]?.text ?? "";

async function until(check: () => boolean, ms = 2_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not reached in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
  throw new Error("the call succeeded");
}

describe.each(ERAS)("stateless upstream, $era client", ({ mode, version }) => {
  let upstream: StatelessUpstream;
  let client: Client;
  beforeAll(async () => {
    upstream = await startStatelessUpstream();
    client = await connect(upstream.url, mode);
  });
  afterAll(async () => {
    await client?.close();
    await upstream?.stop();
  });

  it(`negotiates ${version}`, () => {
    expect(client.getNegotiatedProtocolVersion()).toBe(version);
    expect(upstream.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  it("lists the five tools with titles, annotations and the action enum", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["confirm", "echo", "image", "issues", "progress"]);
    const issues = tools.find((t) => t.name === "issues");
    expect(issues?.title).toBe("Issues");
    expect(issues?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(issues?.inputSchema.properties?.action).toMatchObject({ enum: ["list", "get", "create", "close"] });
    const echo = tools.find((t) => t.name === "echo");
    expect(echo?.title).toBe("Echo");
    expect(echo?.annotations).toMatchObject({ readOnlyHint: true });
    expect(echo?.inputSchema.properties?.action).toBeUndefined();
  });

  it("executes a create exactly once and shows it to later calls", async () => {
    const before = upstream.requests();
    const created = await client.callTool({ name: "issues", arguments: { action: "create", title: "Broken link" } });
    expect(created.isError).toBeFalsy();
    const issue = JSON.parse(firstText(created)) as { id: string };
    expect(upstream.calls("issues")).toBe(1);
    expect(upstream.issues).toEqual([{ id: issue.id, title: "Broken link", state: "open" }]);
    expect(upstream.requests()).toBeGreaterThan(before);

    const listed = await client.callTool({ name: "issues", arguments: { action: "list" } });
    expect(JSON.parse(firstText(listed))).toEqual(upstream.issues);
    await client.callTool({ name: "issues", arguments: { action: "close", id: issue.id } });
    expect(upstream.issues[0]?.state).toBe("closed");
    const missing = await client.callTool({ name: "issues", arguments: { action: "get", id: "issue-404" } });
    expect(missing.isError).toBe(true);
    expect(upstream.calls("issues")).toBe(4);
  });

  it("echoes its text", async () => {
    const result = await client.callTool({ name: "echo", arguments: { text: "héllo" } });
    expect(firstText(result)).toBe("héllo");
    expect(upstream.calls("echo")).toBe(1);
  });

  it("sends three progress notifications when asked for them, none otherwise", async () => {
    const seen: number[] = [];
    const result = await client.callTool(
      { name: "progress", arguments: {} },
      { onprogress: (p) => seen.push(p.progress) },
    );
    expect(firstText(result)).toBe("done after 3 steps");
    expect(seen).toEqual([1, 2, 3]);
    const quiet = await client.callTool({ name: "progress", arguments: {} });
    expect(firstText(quiet)).toBe("done without progress");
  });

  it("returns an image block", async () => {
    const result = await client.callTool({ name: "image", arguments: {} });
    expect(blocks(result)).toEqual([{ type: "image", data: TINY_PNG_BASE64, mimeType: "image/png" }]);
  });
});

describe("stateless upstream, modern only", () => {
  it("serves 2026-07-28 and refuses a 2025 handshake", async () => {
    const upstream = await startStatelessUpstream({ name: "strict", legacy: "reject" });
    try {
      const modern = await connect(upstream.url, "auto");
      expect(modern.getNegotiatedProtocolVersion()).toBe("2026-07-28");
      expect(modern.getServerVersion()?.name).toBe("strict");
      await modern.close();
      await expect(connect(upstream.url, "legacy")).rejects.toThrow();
    } finally {
      await upstream.stop();
    }
  });
});

describe.each(ERAS)("misbehaving upstream, $era client", ({ era, mode, version }) => {
  let upstream: MisbehavingUpstream;
  let client: Client;
  beforeAll(async () => {
    upstream = await startMisbehavingUpstream();
    client = await connect(upstream.url, mode);
  });
  afterAll(async () => {
    await client?.close();
    await upstream?.stop();
  });

  it(`negotiates ${version} and changes shifty's description after the first listing`, async () => {
    expect(client.getNegotiatedProtocolVersion()).toBe(version);
    const describe = async () =>
      (await client.listTools(undefined, { cacheMode: "refresh" })).tools.find((t) => t.name === "shifty")?.description;
    expect(await describe()).toBe(shiftyDescription(1));
    expect(await describe()).toBe(shiftyDescription(2));
    upstream.setShiftyVersion(7);
    expect(await describe()).toBe(shiftyDescription(7));
    expect(upstream.listings()).toBe(3);
  });

  it("hang never answers; the client's cancellation reaches the upstream", async () => {
    const error = await failure(client.callTool({ name: "hang", arguments: {} }, { timeout: 300 }));
    expect(error.message).toMatch(/timed out/i);
    // 2026-07-28 cancels by closing the request's HTTP stream; 2025-11-25 posts notifications/cancelled.
    if (era === "modern") {
      await until(() => upstream.aborted() === 1);
      expect(upstream.cancelled()).toBe(0);
    } else {
      await until(() => upstream.cancelled() === 1);
      expect(upstream.aborted()).toBe(0);
    }
  });

  it("drop closes the connection mid-call, failing the call at once", async () => {
    const error = await failure(client.callTool({ name: "drop", arguments: {} }, { timeout: 2_000 }));
    expect(error.message).toMatch(/fetch failed/);
  });

  it("garbage answers bytes that are not JSON, or JSON that is not JSON-RPC", async () => {
    const bytes = await failure(client.callTool({ name: "garbage", arguments: { kind: "bytes" } }, { timeout: 2_000 }));
    expect(bytes.message).toMatch(/not valid JSON/);
    const rpc = await failure(client.callTool({ name: "garbage", arguments: { kind: "rpc" } }, { timeout: 2_000 }));
    expect(rpc.message).not.toMatch(/timed out/i);
  });

  it("huge returns 20 MB of text", async () => {
    const result = await client.callTool({ name: "huge", arguments: {} });
    expect(firstText(result).length).toBe(HUGE_TEXT_LENGTH);
  });

  it("counts every HTTP request", () => {
    expect(upstream.requests()).toBeGreaterThanOrEqual(8);
  });
});
