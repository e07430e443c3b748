/**
 * A 2025-era client's messages about a running call, sent to another isolate of the api Worker
 * than the one holding the call, in workerd: its answer to an upstream's input request (an
 * elicitation, id `lo-ask-…`) and its `notifications/cancelled` on a POST of its own. On Node
 * instances pass these on through Postgres (test/src/servers/legacy-answers.test.ts); isolates
 * cannot listen, so on Workers a Durable Object mailbox in the proxy Worker carries them. Two
 * isolates: the Workers topology with a second api Worker (`secondApi`, "loadout-2"), the same
 * script and bindings under another name. A control sends the cancellation to the isolate that
 * holds the call, so a failure of the cross-isolate cases is about delivery between isolates.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Account, addApprovedServer, signUpAccount } from "../helpers/account";
import {
  type MisbehavingUpstream,
  type StatelessUpstream,
  startMisbehavingUpstream,
  startStatelessUpstream,
} from "../helpers/upstreams";
import { startWorkersTopology, type WorkersTopology } from "./topology";

process.env.CLOUDFLARE_CF_FETCH_ENABLED = "false";
process.env.WRANGLER_SEND_METRICS = "false";

const SECRET_KEY = "legacy-isolates-secret-key-0123456789abcdef";
const PASSWORD = "two isolates, one call";
const ORIGIN = "http://loadout.test";
/** How long a call waits for its answer here before the test calls it lost (the server waits 5 minutes). */
const ANSWER_WAIT_MS = 12_000;
/** The hung call's own timeout: long beside the cancellation's wait, short enough to end a failed test's call. */
const HANG_TIMEOUT_MS = 20_000;

let w: WorkersTopology;
let stateless: StatelessUpstream;
let misbehaving2025: MisbehavingUpstream;
let account: Account;
let token: string;

type Isolate = "first" | "second";
const sendTo = (isolate: Isolate, url: string, init?: RequestInit): Promise<Response> => {
  if (isolate === "first") return w.send(url, init);
  if (!w.sendToSecond) throw new Error("the topology has no second api Worker");
  return w.sendToSecond(url, init);
};

beforeAll(async () => {
  [w, stateless, misbehaving2025] = await Promise.all([
    startWorkersTopology({ LOADOUT_SECRET_KEY: SECRET_KEY, LOADOUT_INSECURE_COOKIES: "1" }, { secondApi: true }),
    startStatelessUpstream(),
    startMisbehavingUpstream({ era: "2025" }),
  ]);
  account = await signUpAccount(ORIGIN, "isolates@worker.example", PASSWORD, w.send);
  await addApprovedServer(account, "tracker", stateless.url);
  await addApprovedServer(account, "old", misbehaving2025.url);
  const current = await account.rest("/v1/workspaces/me/servers/old");
  const patched = await account.rest("/v1/workspaces/me/servers/old", {
    method: "PATCH",
    body: { revision: current.body.revision, callTimeoutMs: HANG_TIMEOUT_MS },
  });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  token = (await account.token(["mcp"])).secret;
}, 120_000);

beforeEach(({ onTestFailed }) => {
  const from = w?.logs.length ?? 0;
  onTestFailed(() => console.log(`Workers console:\n${w?.logs.slice(from).join("\n")}`));
});

afterAll(async () => {
  await Promise.all([w?.stop(), stateless?.stop(), misbehaving2025?.stop()]);
});

describe("a 2025 client's answer to an elicitation", () => {
  for (const [path, tool, answersTo] of [
    ["/mcp/s/me/tracker", "confirm", "first"],
    ["/mcp/s/me/tracker", "confirm", "second"],
    ["/mcp", "tracker_confirm", "second"],
  ] as const) {
    const label = answersTo === "first" ? "on the isolate holding the call (control)" : "on the other isolate";
    it(`takes the answer sent ${label} to the call that asked (${path})`, async () => {
      const sentTo: Isolate[] = [];
      // Everything goes to the first isolate but the client's answers, which go to `answersTo`.
      const routed = (input: string | URL | Request, init?: RequestInit) => {
        const url = input instanceof Request ? input.url : String(input);
        const answer = typeof init?.body === "string" && init.body.includes('"lo-ask-');
        const isolate: Isolate = answer ? answersTo : "first";
        sentTo.push(isolate);
        return sendTo(isolate, url, init ?? {});
      };
      const client = new Client(
        { name: "two-isolates", version: "1.0.0" },
        { capabilities: { elicitation: { form: {} } } },
      );
      let asked = 0;
      client.setRequestHandler("elicitation/create", async () => {
        asked++;
        return { action: "accept", content: { confirm: true } };
      });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${ORIGIN}${path}`), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
          fetch: routed as typeof fetch,
        }),
      );
      try {
        const result = await client.callTool(
          { name: tool, arguments: { what: "the release" } },
          { timeout: ANSWER_WAIT_MS },
        );
        expect(asked).toBe(1);
        if (answersTo === "second") expect(sentTo).toContain("second");
        else expect(sentTo).not.toContain("second");
        expect((result.content as { text: string }[])[0]?.text).toBe("confirmed the release");
      } finally {
        await client.close();
      }
    }, 30_000);
  }
});

describe("a 2025 client's notifications/cancelled on a POST of its own", () => {
  const headers = {
    authorization: "",
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };

  /** Opens a 2025 session on the first isolate; the headers of a request inside it. */
  async function openSession() {
    const withToken = { ...headers, authorization: `Bearer ${token}` };
    const initialized = await sendTo("first", `${ORIGIN}/mcp`, {
      method: "POST",
      headers: withToken,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "canceller", version: "1" } },
      }),
    });
    const session = initialized.headers.get("mcp-session-id") ?? "";
    await initialized.text();
    expect(session).toMatch(/^lo1\./);
    return { ...withToken, "mcp-protocol-version": "2025-11-25", "mcp-session-id": session };
  }

  for (const [isolate, label] of [
    ["first", "on the isolate holding the call (control)"],
    ["second", "on the other isolate"],
  ] as const) {
    it(`passes the cancellation ${label} on to the upstream, and the call answers at once`, async () => {
      const inSession = await openSession();
      const cancelled = misbehaving2025.cancelled();
      const requestId = isolate === "first" ? 5 : 6;
      const started = Date.now();
      let answeredAt = 0;
      const call = sendTo("first", `${ORIGIN}/mcp`, {
        method: "POST",
        headers: inSession,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: requestId,
          method: "tools/call",
          params: { name: "old_hang", arguments: {} },
        }),
      })
        .then((res) => res.text())
        .then((text) => {
          answeredAt = Date.now();
          return text;
        })
        // A call still held when the topology stops (a failed case) ends with its connection.
        .catch((error: unknown) => `the call failed: ${String(error)}`);
      // Let the call reach the upstream and wait there.
      await new Promise((r) => setTimeout(r, 1_500));
      const cancel = await sendTo(isolate, `${ORIGIN}/mcp`, {
        method: "POST",
        headers: inSession,
        body: JSON.stringify({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId, reason: `given up, sent to the ${isolate} isolate` },
        }),
      });
      expect(cancel.status).toBe(202);
      await cancel.text();
      await expect
        .poll(() => misbehaving2025.cancelled(), {
          timeout: 8_000,
          message: `the upstream saw no notifications/cancelled within 8 s of the cancellation sent to the ${isolate} isolate`,
        })
        .toBe(cancelled + 1);
      // The call answers at once, not after its own timeout.
      expect(await call).toMatch(/was cancelled/);
      expect(answeredAt - started).toBeLessThan(HANG_TIMEOUT_MS - 5_000);
    }, 30_000);
  }
});
