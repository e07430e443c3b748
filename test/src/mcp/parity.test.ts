/**
 * The parity list (helpers/mcp-parity.ts) on the Node host's three ways of serving MCP, on both
 * protocol eras: the pipeline's own answers through the Node adapter and through Hono must equal
 * the SDK's per-request server's (the reference), status, headers, framing and body. The same
 * list runs in workerd (worker/worker.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addApprovedServer, signUpAccount } from "../helpers/account";
import { callCase, differences, type Era, PARITY_CASES, prepareParityAccount } from "../helpers/mcp-parity";
import { startTestServer, type TestServer } from "../helpers/server";
import { type StatelessUpstream, startStatelessUpstream } from "../helpers/upstreams";

interface Host {
  name: string;
  server: TestServer;
  token: string;
}

const HOSTS: [string, Record<string, string>][] = [
  ["the SDK's server (reference)", { LOADOUT_MCP_FAST_LANE: "0" }],
  ["the pipeline through Hono", { LOADOUT_MCP_NODE_ADAPTER: "0" }],
  ["the pipeline through the Node adapter", {}],
];
let hosts: Host[] = [];
let upstream: StatelessUpstream;

beforeAll(async () => {
  upstream = await startStatelessUpstream();
  hosts = await Promise.all(
    HOSTS.map(async ([name, env]) => {
      const server = await startTestServer({ LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1", ...env });
      const account = await signUpAccount(server.url, "parity@example.com");
      await prepareParityAccount(account, (a, slug) => addApprovedServer(a, slug, upstream.url));
      return { name, server, token: (await account.token(["mcp"])).secret };
    }),
  );
}, 120_000);

afterAll(async () => {
  await Promise.all(hosts.map((h) => h.server.close()));
  await upstream?.stop();
});

describe.each(["modern", "legacy"] as Era[])("on the %s era, every host answers as the SDK's server does", (era) => {
  it.each(PARITY_CASES.map((c) => [c.name, c] as const))("%s", async (_, c) => {
    const [reference, ...others] = await Promise.all(hosts.map((h) => callCase(fetch, h.server.url, h.token, era, c)));
    if (!reference) throw new Error("no reference host");
    expect(reference.lane).toBe("sdk");
    others.forEach((answer, i) => {
      expect(differences(answer, reference), hosts[i + 1]?.name).toEqual([]);
    });
  });
});

describe("what the pipeline answers itself", () => {
  it("answers every plain call to a tool the session offers, on both eras, and leaves the rest to the SDK", async () => {
    const host = hosts[2] as Host;
    for (const era of ["modern", "legacy"] as Era[]) {
      const answers = Object.fromEntries(
        await Promise.all(
          PARITY_CASES.map(async (c) => [c.name, await callCase(fetch, host.server.url, host.token, era, c)] as const),
        ),
      );
      const lanes = Object.fromEntries(Object.entries(answers).map(([name, answer]) => [name, answer.lane]));
      // Its answers are one JSON body on both eras, where the SDK's 2025 transport streams one event.
      for (const name of ["skills get", "skills list in plan mode", "search, for ChatGPT", "an upstream tool"]) {
        expect(lanes[name], `${era}: ${name}`).toMatch(/^(fast|warm)$/);
        expect(answers[name]?.type, `${era}: ${name}`).toBe("application/json");
      }
      // A 2025-era client's notification is acknowledged by the pipeline; a 2026-07-28 one, and one
      // naming a revision nobody speaks, by the SDK.
      expect(lanes["notifications/initialized"], era).toBe(era === "legacy" ? "fast" : "sdk");
      expect(answers["notifications/initialized"]?.status, era).toBe(202);
      expect(lanes["a notification naming a revision nobody speaks"], era).toBe("sdk");
      // Refused arguments and tools the session does not offer: the SDK writes those errors.
      for (const name of [
        "skills with arguments its schema refuses",
        "an unknown tool",
        "skill_edit in plan mode (not offered)",
      ])
        expect(lanes[name], `${era}: ${name}`).toBe("sdk");
    }
  });
});
