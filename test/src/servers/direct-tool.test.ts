/**
 * The pool's prepared call (UpstreamPool.directTool), which a memoised session keeps for a warm
 * call, on a 2025 session: server-everything started here, the pool's own SDK client opening the
 * session, and every direct POST seen on its way out.
 */
import { type DirectTool, postThrough, UpstreamPool, type UpstreamPost, type UpstreamTarget } from "@loadout/workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEverything, type Upstream } from "../helpers/upstream";

let everything: Upstream;
let pool: UpstreamPool;
let target: UpstreamTarget;
/** The headers of every direct POST the pool sent. */
const posts: Record<string, string>[] = [];

beforeAll(async () => {
  everything = await startEverything("streamableHttp");
  const seen = (post: UpstreamPost): UpstreamPost => {
    return (url, init) => {
      posts.push({ ...init.headers });
      return post(url, init);
    };
  };
  pool = new UpstreamPool({ fetchFor: () => fetch, postFor: () => seen(postThrough(fetch)) });
  target = {
    id: "srv_everything",
    generation: 1,
    name: "everything",
    url: everything.url,
    transport: "streamable-http",
    headers: {},
    callTimeoutMs: 5_000,
  };
});

afterAll(async () => {
  await pool?.close();
  await everything?.stop();
});

const textOf = (result: { content?: unknown }) =>
  ((result.content ?? []) as { text?: string }[]).map((c) => c.text ?? "").join("");
const agent = { planSafeActions: null };

/** The prepared echo once the pool has its session open (a plain call opens it if need be). */
async function preparedEcho(): Promise<DirectTool> {
  expect(textOf(await pool.callTool(target, "echo", { message: "open" }, agent))).toBe("Echo: open");
  const direct = pool.directTool(target, "echo");
  if (!direct) throw new Error("the pool prepared no call for an open 2025 session");
  expect(direct.current).toBe(true);
  return direct;
}

describe("a prepared call on a 2025 session", () => {
  it("is none before the pool has the connection open", () => {
    expect(pool.directTool(target, "echo")).toBeNull();
  });

  it("is one POST in the pool's session, answered as callTool answers", async () => {
    const direct = await preparedEcho();
    posts.length = 0;
    const prepared = await direct.call({ message: "hi" }, agent);
    const plain = await pool.callTool(target, "echo", { message: "hi" }, agent);
    expect(prepared).toEqual(plain);
    expect(textOf(prepared)).toBe("Echo: hi");
    // Both sent once, in the same session, on the revision it negotiated.
    expect(posts).toHaveLength(2);
    const [first, second] = posts as [Record<string, string>, Record<string, string>];
    expect(first["mcp-session-id"]).toMatch(/\S/);
    expect(second["mcp-session-id"]).toBe(first["mcp-session-id"]);
    expect(first["mcp-protocol-version"]).toMatch(/^2025-/);
  });

  it("refuses in plan mode without sending anything", async () => {
    const direct = await preparedEcho();
    posts.length = 0;
    const refused = await direct.call({ message: "x" }, { planSafeActions: [] });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/in plan mode everything may only run/);
    expect(posts).toHaveLength(0);
  });

  it("is no longer current once the upstream has ended the session; the next call opens another", async () => {
    const direct = await preparedEcho();
    posts.length = 0;
    await direct.call({ message: "before" }, agent);
    const sent = posts[0] as Record<string, string>;
    const ended = sent["mcp-session-id"] as string;
    // The upstream forgets the session (as after a restart or its own expiry).
    const deleted = await fetch(everything.url, {
      method: "DELETE",
      headers: { "mcp-session-id": ended, "mcp-protocol-version": sent["mcp-protocol-version"] as string },
    });
    expect(deleted.ok).toBe(true);
    const lost = await direct.call({ message: "lost" }, agent);
    expect(lost.isError).toBe(true);
    // server-everything answers a session it does not know with 400 (the spec asks for 404).
    expect(textOf(lost)).toMatch(/broke during echo \(HTTP 4\d\d\)/);
    expect(direct.current).toBe(false);

    const next = await preparedEcho();
    posts.length = 0;
    expect(textOf(await next.call({ message: "new" }, agent))).toBe("Echo: new");
    expect((posts[0] as Record<string, string>)["mcp-session-id"]).not.toBe(ended);
  });
});
