/**
 * A 2025-era client's answer to an upstream's input request may reach another instance than the
 * one holding the call's stream: two instances on one database, the client's answers sent to the
 * second, the call held by the first. The second passes the answer on (a Postgres notification,
 * services/mcp/answer-relay.ts), and the first's call goes on. On PGlite and on Postgres.
 */
import { createTestDatabase } from "@loadout/db/testing";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, expect, it } from "vitest";
import { addApprovedServer, signUpAccount } from "../helpers/account";
import { startTestServer, type TestServer } from "../helpers/server";
import { type StatelessUpstream, startStatelessUpstream } from "../helpers/upstreams";

let upstream: StatelessUpstream;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let first: TestServer;
let second: TestServer;
let token: string;

beforeAll(async () => {
  upstream = await startStatelessUpstream();
  database = await createTestDatabase();
  first = await startTestServer({ LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1" }, { database });
  second = await startTestServer({ LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1" }, { database });
  const account = await signUpAccount(first.url, "answers@example.com");
  await addApprovedServer(account, "tracker", upstream.url);
  token = (await account.token(["mcp"])).secret;
}, 60_000);

afterAll(async () => {
  await first?.close();
  await second?.close();
  await database?.close();
  await upstream?.stop();
});

it("takes a 2025 client's answer on another instance to the call that asked", async () => {
  const sentTo: string[] = [];
  // Everything goes to the first instance but the client's answers, which go to the second.
  const routed: typeof fetch = (input, init) => {
    const url = new URL(String(input instanceof Request ? input.url : input));
    const answer = typeof init?.body === "string" && init.body.includes('"lo-ask-');
    const target = new URL(url.pathname + url.search, answer ? second.url : first.url);
    sentTo.push(answer ? "second" : "first");
    return fetch(target, init);
  };
  const client = new Client(
    { name: "two-instances", version: "1.0.0" },
    { capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: { confirm: true } }));
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${first.url}/mcp/s/me/tracker`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
      fetch: routed,
    }),
  );
  const result = await client.callTool({ name: "confirm", arguments: { what: "the release" } });
  expect((result.content as { text: string }[])[0]?.text).toBe("confirmed the release");
  expect(sentTo).toContain("second");
  await client.close();
});
