import type { Send } from "../helpers/account";
import { startTestServer } from "../helpers/server";
import { startWorkersTopology } from "../worker/topology";

/** One way the product is hosted, as a test reaches it. */
export interface Host {
  /** The origin requests go to. */
  url: string;
  send: Send;
  stop(): Promise<void>;
}

/**
 * Both hosts, for `describe.each`: the Node entry on a fresh database, and the Workers topology in
 * workerd as production runs it (test/src/worker/topology.ts), each with loopback upstreams allowed
 * and this secret key.
 */
export function bothHosts(secretKey: string): [string, () => Promise<Host>][] {
  return [
    [
      "Node",
      async () => {
        const server = await startTestServer({ LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1", LOADOUT_SECRET_KEY: secretKey });
        return { url: server.url, send: fetch, stop: () => server.close() };
      },
    ],
    [
      "Workers",
      async () => {
        const topology = await startWorkersTopology({ LOADOUT_SECRET_KEY: secretKey, LOADOUT_INSECURE_COOKIES: "1" });
        return { url: "http://loadout.test", send: topology.send, stop: topology.stop };
      },
    ],
  ];
}
