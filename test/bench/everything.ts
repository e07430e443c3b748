/**
 * The peers' setup in BENCHMARKS.md: the `echo` tool of @modelcontextprotocol/server-everything
 * (a 2025-11-25 session, in its own process) called directly and through Loadout, warm, 500
 * interleaved pairs after 50 warm-up pairs, each side with the official SDK v2 client. Loadout
 * calls this upstream with one POST inside the session its SDK client opened (see
 * UpstreamPool.callDirect); server-everything answers calls as SSE streams.
 */
import { performance } from "node:perf_hooks";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { startEverything } from "../src/helpers/upstream";
import { percentile, signUpAndToken } from "./mcp";
import { rest } from "./proxy";
import type { ServerProcess } from "./server-process";

export interface EverythingFigures {
  directP50: number;
  directP99: number;
  proxiedP50: number;
  proxiedP99: number;
}

const PAIRS = 500;
const WARM = 50;

const textOf = (result: { content?: unknown }) =>
  ((result.content ?? []) as { type: string; text?: string }[]).map((c) => c.text ?? "").join("");

export async function benchEverything(server: ServerProcess): Promise<EverythingFigures> {
  const upstream = await startEverything("streamableHttp");
  const clients: Client[] = [];
  try {
    const token = await signUpAndToken(server.url, "bench-everything@example.com", [
      "mcp",
      "servers:read",
      "servers:write",
    ]);
    await rest(server.url, token, "/v1/workspaces/me/servers/import", {
      text: JSON.stringify({ mcpServers: { everything: { url: upstream.url } } }),
    });
    const tested = await rest(server.url, token, "/v1/workspaces/me/servers/everything/test", {});
    if (tested.error) throw new Error(`Test of server-everything failed: ${String(tested.error)}`);
    await rest(server.url, token, "/v1/workspaces/me/servers/everything/tools/approve", {});

    const direct = new Client({ name: "bench-direct", version: "1" }, { versionNegotiation: { mode: "auto" } });
    await direct.connect(new StreamableHTTPClientTransport(new URL(upstream.url)));
    clients.push(direct);
    const proxied = new Client({ name: "bench-proxied", version: "1" }, { versionNegotiation: { mode: "auto" } });
    await proxied.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(proxied);

    const time = async (client: Client, name: string, message: string) => {
      const start = performance.now();
      const result = await client.callTool({ name, arguments: { message } });
      const ms = performance.now() - start;
      if (result.isError || !textOf(result).includes(message))
        throw new Error(`${name} answered ${JSON.stringify(result).slice(0, 300)}`);
      return ms;
    };
    const d: number[] = [];
    const p: number[] = [];
    for (let i = 0; i < WARM + PAIRS; i++) {
      const dm = await time(direct, "echo", `direct ${i}`);
      const pm = await time(proxied, "everything_echo", `proxied ${i}`);
      if (i >= WARM) {
        d.push(dm);
        p.push(pm);
      }
    }
    return {
      directP50: percentile(d, 0.5),
      directP99: percentile(d, 0.99),
      proxiedP50: percentile(p, 0.5),
      proxiedP99: percentile(p, 0.99),
    };
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await upstream.stop();
  }
}

export function printEverything(f: EverythingFigures): void {
  const x = (v: number) => v.toFixed(2);
  const label = (s: string) => s.padEnd(49);
  console.log(`\n${label("Proxy, the peers' setup (server-everything echo)")}measured     BENCHMARKS.md`);
  console.log(
    `${label(`added latency p50 (${x(f.proxiedP50)} vs ${x(f.directP50)} direct)`)}${x(f.proxiedP50 - f.directP50).padStart(6)} ms     mcp-hub 0.86 ms, aim ≤ 0.4 ms`,
  );
  console.log(
    `${label(`added latency p99 (${x(f.proxiedP99)} vs ${x(f.directP99)} direct)`)}${x(f.proxiedP99 - f.directP99).padStart(6)} ms     mcp-hub 1.84 ms`,
  );
}
