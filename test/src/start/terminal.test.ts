/**
 * What a person watching the terminal of a local start sees: the banner's URLs, one short line per
 * API or MCP request (not the console's files), the setup link printed again while no account
 * exists, and plain sentences, not stacks, when the port is taken or a variable is wrong.
 * The Node entry is started as `npm start` starts it, less the console build, which plays no part here.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeFlags, spawnServer } from "../../../scripts/server.mjs";

const dataDir = mkdtempSync(path.join(tmpdir(), "loadout-terminal-"));
const port = String(21_000 + Math.floor(Math.random() * 20_000));
const url = `http://127.0.0.1:${port}`;

async function entry(env: Record<string, string>) {
  let output = "";
  const child = await spawnServer({
    env: { ...process.env, DATABASE_URL: "", LOADOUT_LOG: "", LOADOUT_MODE: "local", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, exited, output: () => output };
}

async function until(check: () => boolean, what: () => string) {
  const deadline = Date.now() + 90_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

let running: Awaited<ReturnType<typeof entry>>;
let child: ChildProcess | undefined;

beforeAll(async () => {
  running = await entry({ LOADOUT_PORT: port, LOADOUT_DATA_DIR: dataDir });
  child = running.child;
  await until(
    () => running.output().includes("Create the first one with this one-time link"),
    () => running.output(),
  );
});
afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill("SIGTERM");
    await running.exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

describe("a local start's terminal", () => {
  it("shows the console, API and MCP URLs", () => {
    const out = running.output();
    expect(out).toContain(`console  ${url}/`);
    expect(out).toContain(`API      ${url}/v1`);
    expect(out).toContain(`MCP      ${url}/mcp`);
  });

  it("writes one short line per API and MCP request, none for the console's files, and the setup link again", async () => {
    const before = running.output().length;
    expect((await fetch(`${url}/v1/auth/setup`)).status).toBe(200);
    await fetch(`${url}/signin/`);
    await fetch(`${url}/healthz`);
    expect((await fetch(`${url}/mcp`, { method: "POST", body: "{}" })).status).toBe(401);
    await until(
      () => running.output().slice(before).includes("POST /mcp 401"),
      () => running.output(),
    );
    const lines = running
      .output()
      .slice(before)
      .split("\n")
      .filter((line) => /^\d\d:\d\d:\d\d /.test(line));
    expect(lines.map((line) => line.replace(/^\S+ /, "").replace(/ \d+ms$/, ""))).toEqual([
      "GET /v1/auth/setup 200",
      "POST /mcp 401",
    ]);
    const link = /\/setup\/#token=\S+/g;
    expect(running.output().match(link)?.length).toBe(2);
    expect(running.output()).not.toContain('"msg":"request"');
  });

  it("says the port is taken and what to do, without Node's stack", async () => {
    const second = await entry({
      LOADOUT_PORT: port,
      LOADOUT_DATA_DIR: mkdtempSync(path.join(tmpdir(), "loadout-t2-")),
    });
    expect(await second.exited).toBe(1);
    expect(second.output()).toContain(`127.0.0.1:${port} is already in use`);
    expect(second.output()).toContain("choose a free port with LOADOUT_PORT");
    expect(second.output()).not.toMatch(/EADDRINUSE|\n\s+at /);
  });

  it("names a wrong variable and what to do", async () => {
    const wrong = await entry({ LOADOUT_PORT: "abc", LOADOUT_DATA_DIR: dataDir });
    expect(await wrong.exited).toBe(1);
    expect(wrong.output()).toContain("LOADOUT_PORT: must be a whole number from 0 to 65535");
    expect(wrong.output()).not.toContain("NaN");
  });
});

describe("the server process's flags (docs/memory.md)", () => {
  it("runs with V8's young generation held to 4 MiB semi-spaces, as npm start starts it", () => {
    const argv = readFileSync(`/proc/${child?.pid}/cmdline`, "utf8").split("\0");
    expect(argv).toContain("--max-semi-space-size=4");
    expect(argv.indexOf("--max-semi-space-size=4")).toBeLessThan(argv.findIndex((a) => a.endsWith("node.mjs")));
  });

  it("leaves the size to NODE_OPTIONS when it sets one, and puts a caller's flags after its own", () => {
    expect(nodeFlags({ NODE_OPTIONS: "--max-semi-space-size=16" })).toEqual(["--enable-source-maps"]);
    expect(nodeFlags({}, ["--max-semi-space-size=8"])).toEqual([
      "--max-semi-space-size=4",
      "--max-semi-space-size=8",
      "--enable-source-maps",
    ]);
  });
});
