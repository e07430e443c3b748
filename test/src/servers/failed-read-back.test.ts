/**
 * A server that an MCP call found unreachable is marked failed, and the next call on the same
 * instance is refused with that, without trying it again, even when Postgres's notification of the
 * write comes late (HotCaches.wroteHere after markFailed). Here the test server hears every
 * notification 300 ms late, as on a loaded machine.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Account, addApprovedServer, signUpAccount } from "../helpers/account";
import { startTestServer, type TestServer } from "../helpers/server";
import { type StatelessUpstream, startStatelessUpstream } from "../helpers/upstreams";

let server: TestServer;
let upstream: StatelessUpstream;
let account: Account;

beforeAll(async () => {
  [server, upstream] = await Promise.all([
    startTestServer({ LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1" }, { notificationDelayMs: 300 }),
    startStatelessUpstream(),
  ]);
  account = await signUpAccount(server.url, "failed-read-back@example.com");
  await addApprovedServer(account, "tracker", upstream.url);
}, 60_000);

afterAll(async () => {
  await server?.close();
});

const textOf = (result: { content?: unknown }) =>
  ((result.content ?? []) as { type: string; text?: string }[]).map((c) => c.text ?? "").join("\n");

it("refuses the next call to a server just found unreachable, on the same instance, without trying it again", async () => {
  const { secret } = await account.token(["mcp"]);
  const client = new Client({ name: "failed-read-back", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${secret}` } },
    }),
  );
  try {
    const call = () => client.callTool({ name: "tracker_issues", arguments: { action: "list" } });
    expect((await call()).isError).toBeFalsy();
    await upstream.stop();
    // A connection kept from the first call breaks first ("broke during the call"); the next one
    // is refused, which marks the server failed.
    let unreachable = await call();
    if (/broke during/.test(textOf(unreachable))) unreachable = await call();
    expect(unreachable.isError).toBe(true);
    expect(textOf(unreachable)).toMatch(/could not be reached/);
    const next = await call();
    expect(next.isError).toBe(true);
    expect(textOf(next)).toMatch(/tracker failed its last connection/);
  } finally {
    await client.close();
  }
});
