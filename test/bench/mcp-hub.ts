/**
 * mcp-hub 4.2.1, the peer BENCHMARKS.md measured, run beside Loadout in the same bench: the same
 * machine, the same upstream and the same rounds, so that its figures and ours differ by the
 * gateways alone, not by the day's machine (the same calls take twice as long on some days'
 * machines as on others'). npm installs it into `.loadout/bench-tools/` (git-ignored, not a
 * workspace, reused while the version matches), as `npm run conformance` installs its suite.
 *
 * It is started as its README says (`mcp-hub --port … --config …`), with a config that names the
 * upstream by URL, and its home, state and data folders in a temporary folder. Its MCP endpoint is
 * `/mcp` with the legacy SSE transport (messages POSTed to `/messages`), which its clients speak:
 * the SDK's SSEClientTransport. Its tools are named `<server>__<tool>`.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const MCP_HUB_VERSION = "4.2.1";
const TOOLS = fileURLToPath(new URL("../../.loadout/bench-tools/", import.meta.url));
const CLI = path.join(TOOLS, "node_modules/mcp-hub/dist/cli.js");

export interface McpHub {
  /** Its MCP endpoint (legacy SSE). */
  url: string;
  pid: number;
  /** The upstream transport it settled on (it tries streamable HTTP, then falls back to SSE). */
  upstreamTransport: string;
  stop(): Promise<void>;
}

/** Installs mcp-hub once; null (with the reason printed) when npm cannot. */
function installed(): string | null {
  const manifest = path.join(TOOLS, "node_modules/mcp-hub/package.json");
  const version = () =>
    existsSync(manifest) ? (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version : null;
  if (version() === MCP_HUB_VERSION) return CLI;
  console.log(`Installing mcp-hub@${MCP_HUB_VERSION} into ${path.relative(process.cwd(), TOOLS)} (once)…`);
  mkdirSync(TOOLS, { recursive: true });
  // Its own package.json keeps npm from treating the folder as part of the workspaces.
  writeFileSync(
    path.join(TOOLS, "package.json"),
    `${JSON.stringify({ name: "loadout-bench-tools", private: true, dependencies: { "mcp-hub": MCP_HUB_VERSION } }, null, 2)}\n`,
  );
  const npm = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: TOOLS,
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (npm.status === 0 && version() === MCP_HUB_VERSION) return CLI;
  console.log(`npm could not install mcp-hub@${MCP_HUB_VERSION}: its figures are left out of this run.`);
  return null;
}

/**
 * Starts mcp-hub in front of `upstream` (a streamable HTTP URL) and waits until its server is
 * connected. Null when it cannot be installed or does not start: the bench goes on without it.
 */
export async function startMcpHub(upstream: string): Promise<McpHub | null> {
  const cli = installed();
  if (!cli) return null;
  const home = mkdtempSync(path.join(tmpdir(), "loadout-mcp-hub-"));
  const config = path.join(home, "config.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { everything: { url: upstream } } }));
  // Below the kernel's ephemeral range, as the other bench servers' ports.
  const port = 32_000 - Math.floor(Math.random() * 2_000);
  const child: ChildProcess = spawn(process.execPath, [cli, "--port", String(port), "--config", config], {
    env: {
      ...process.env,
      HOME: home,
      XDG_STATE_HOME: home,
      XDG_DATA_HOME: home,
      XDG_CONFIG_HOME: home,
    },
    // It logs a JSON line per event; read only to know it started.
    stdio: ["ignore", "ignore", "ignore"],
  });
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      if (child.exitCode === null) child.kill("SIGKILL");
    }
    rmSync(home, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline && child.exitCode === null) {
    const health = await fetch(`http://127.0.0.1:${port}/api/health`)
      .then((r) => r.json() as Promise<{ state?: string; servers?: { status?: string; transportType?: string }[] }>)
      .catch(() => null);
    const server = health?.servers?.[0];
    if (health?.state === "ready" && server?.status === "connected" && child.pid !== undefined)
      return {
        url: `http://127.0.0.1:${port}/mcp`,
        pid: child.pid,
        upstreamTransport: server.transportType ?? "unknown",
        stop,
      };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await stop();
  console.log(
    `mcp-hub@${MCP_HUB_VERSION} did not connect to its upstream in 30 s: its figures are left out of this run.`,
  );
  return null;
}
