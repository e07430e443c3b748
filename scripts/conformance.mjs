// `npm run conformance`: the official MCP conformance suite's server scenarios, on both of its
// requirement sets, against the reference server directly and through Loadout (`/mcp/s/me/{slug}`
// and `/mcp`). The product runs on the Node that runs this script (20+); the suite needs Node 22,
// which npm installs with the suite into .loadout/conformance-tools (git-ignored, not a workspace).
//
//   npm run conformance              prints the pass counts; exits 0 whenever the run completed
//   npm run conformance -- --strict  also exits 1 when /mcp/s passes fewer scenarios than the reference
//   npm run conformance -- --floor   also exits 1 when a target passes fewer than test/conformance/floor.json
//                                    records (what CI runs: a pass count may rise, never fall)
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { ROOT } from "./lib.mjs";

const SUITE = "@modelcontextprotocol/conformance";
const SUITE_VERSION = "0.2.0-alpha.12";
const NODE_VERSION = "22.23.3";
const SETS = ["2025-11-25", "2026-07-28"];
const SLUG = "conformance";
const TOOLS = path.join(ROOT, ".loadout/conformance-tools");
const RESULTS = path.join(ROOT, ".loadout/conformance");
const strict = process.argv.includes("--strict");
const floor = process.argv.includes("--floor")
  ? JSON.parse(readFileSync(path.join(ROOT, "test/conformance/floor.json"), "utf8"))
  : null;

if (!existsSync(path.join(ROOT, "node_modules"))) {
  console.error("Dependencies are missing: run `npm install` first.");
  process.exit(1);
}

const started = Date.now();
const children = [];
const cleanups = [];

try {
  const tools = installTools();
  const reference = await startChild("reference", ["--import", "tsx", "test/conformance/reference-server.ts"]).then(
    ({ firstLine }) => firstLine,
  );
  const loadout = await startLoadout();
  const token = await prepareAccount(loadout, reference);
  const proxy = await startAuthProxy(loadout.url, token);
  const targets = [
    { name: "reference (direct)", url: reference, loadout: false },
    { name: `/mcp/s/me/${SLUG}`, url: `${proxy}/mcp/s/me/${SLUG}`, loadout: true },
    { name: "/mcp", url: `${proxy}/mcp`, loadout: true },
  ];
  rmSync(RESULTS, { recursive: true, force: true });
  const runs = [];
  for (const set of SETS) {
    // The three targets are independent, so one set runs them side by side.
    runs.push(...(await Promise.all(targets.map((target) => runSuite(tools, target, set)))));
  }
  report(runs);
  writeFileSync(path.join(RESULTS, "summary.json"), `${JSON.stringify(runs, null, 2)}\n`);
  console.log(`\nChecks per scenario: ${path.relative(ROOT, RESULTS)}/  (run took ${seconds(Date.now() - started)})`);
  const short = SETS.filter((set) => {
    const passed = (name) => runs.find((r) => r.set === set && r.target === name)?.passed ?? 0;
    return passed(targets[1].name) < passed(targets[0].name);
  });
  process.exitCode = strict && short.length > 0 ? 1 : 0;
  if (strict && short.length > 0)
    console.error(`\n✗ --strict: /mcp/s passes fewer than the reference on ${short.join(", ")}.`);
  const below = floor
    ? runs.filter((run) => run.passed < (floor[run.target]?.[run.set] ?? Number.POSITIVE_INFINITY))
    : [];
  if (below.length > 0) {
    process.exitCode = 1;
    for (const run of below)
      console.error(
        `\n✗ --floor: ${run.target} passes ${run.passed} on ${run.set}, fewer than ${floor[run.target]?.[run.set]}.`,
      );
  }
} catch (error) {
  console.error(`\n✗ conformance run failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 2;
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup();
  for (const child of children) if (child.exitCode === null) child.kill("SIGTERM");
}

/** Installs Node 22 and the suite once; later runs reuse them when the pinned versions match. */
function installTools() {
  const suiteDir = path.join(TOOLS, "node_modules", ...SUITE.split("/"));
  const node = [
    path.join(TOOLS, "node_modules/node/bin/node"),
    path.join(TOOLS, "node_modules/node/node_modules", `node-${process.platform}-${process.arch}`, "bin/node"),
  ];
  const installed = () => {
    const binary = node.find((candidate) => existsSync(candidate));
    if (!binary || !existsSync(path.join(suiteDir, "package.json"))) return null;
    const { version } = JSON.parse(readFileSync(path.join(suiteDir, "package.json"), "utf8"));
    const nodeVersion = spawnSync(binary, ["--version"], { encoding: "utf8" }).stdout.trim();
    return version === SUITE_VERSION && nodeVersion === `v${NODE_VERSION}` ? { node: binary, suiteDir } : null;
  };
  const cached = installed();
  if (cached) return cached;
  console.log(
    `Installing ${SUITE}@${SUITE_VERSION} and node@${NODE_VERSION} into ${path.relative(ROOT, TOOLS)} (once)…`,
  );
  mkdirSync(TOOLS, { recursive: true });
  // Its own package.json keeps npm from treating the folder as part of the workspaces.
  writeFileSync(
    path.join(TOOLS, "package.json"),
    `${JSON.stringify(
      {
        name: "loadout-conformance-tools",
        private: true,
        dependencies: { node: NODE_VERSION, [SUITE]: SUITE_VERSION },
        // The node package's install script fetches the platform binary from the registry.
        allowScripts: { node: true },
      },
      null,
      2,
    )}\n`,
  );
  const npm = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: TOOLS,
    stdio: ["ignore", "inherit", "inherit"],
  });
  const tools = npm.status === 0 ? installed() : null;
  if (!tools) throw new Error(`npm could not install the suite and Node ${NODE_VERSION} into ${TOOLS}`);
  return tools;
}

/** Starts a Node child from the repo root and resolves with the first line it prints. */
function startChild(label, args, env = process.env, until = (line) => line.length > 0) {
  return watchChild(label, spawn(process.execPath, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] }), until);
}

/** Resolves with the lines `child` printed once one of them satisfies `until`. */
function watchChild(label, child, until) {
  children.push(child);
  let output = "";
  return new Promise((resolve, reject) => {
    const lines = [];
    const timer = setTimeout(() => reject(new Error(`${label} did not start within 60 s:\n${output}`)), 60_000);
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    child.stdout.on("data", (chunk) => {
      output += chunk;
      for (const line of chunk.split("\n")) {
        lines.push(line.trim());
        if (until(line.trim())) {
          clearTimeout(timer);
          resolve({ firstLine: lines.find((l) => l.length > 0) ?? "", lines, child });
        }
      }
    });
    child.on("exit", (code) => reject(new Error(`${label} exited with ${code} before it was ready:\n${output}`)));
  });
}

/** Loadout as `npm start` runs it (scripts/server.mjs), on a fresh PGlite and a random port. */
async function startLoadout() {
  const dataDir = mkdtempSync(path.join(tmpdir(), "loadout-conformance-"));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const { DATABASE_URL: _shared, ...env } = process.env;
  // Imported here: it needs node_modules, which the check above asks for first.
  const { spawnServer } = await import("./server.mjs");
  const child = await spawnServer({
    env: {
      ...env,
      LOADOUT_PORT: "0",
      LOADOUT_HOST: "127.0.0.1",
      LOADOUT_DATA_DIR: dataDir,
      LOADOUT_LOG: "silent",
      LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1",
      NEXT_TELEMETRY_DISABLED: "1",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const { lines } = await watchChild("Loadout", child, (line) => line.includes("/setup/#token="));
  const url = lines.map((l) => /^Loadout is running at (\S+)/.exec(l)?.[1]).find(Boolean);
  const setupToken = lines.map((l) => /\/setup\/#token=(\S+)/.exec(l)?.[1]).find(Boolean);
  if (!url || !setupToken) throw new Error(`unexpected start-up banner:\n${lines.join("\n")}`);
  return { url, setupToken };
}

/** The first account, an `mcp` token, and the reference added, tested and approved as a user would. */
async function prepareAccount(loadout, referenceUrl) {
  const setup = await fetch(`${loadout.url}/v1/auth/setup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      token: loadout.setupToken,
      email: "conformance@example.com",
      password: "conformance run 1",
    }),
  });
  if (setup.status !== 201) throw new Error(`setup answered ${setup.status}: ${await setup.text()}`);
  const cookies = setup.headers.getSetCookie().map((c) => c.split(";")[0] ?? "");
  const csrf = cookies.find((c) => c.startsWith("lo_csrf="))?.slice("lo_csrf=".length) ?? "";
  const rest = async (route, method, body) => {
    const answer = await fetch(`${loadout.url}${route}`, {
      method,
      headers: { cookie: cookies.join("; "), "x-csrf-token": csrf, "content-type": "application/json" },
      body: JSON.stringify(body ?? {}),
    });
    const json = await answer.json();
    if (answer.status !== 200 && answer.status !== 201)
      throw new Error(`${method} ${route} answered ${answer.status}: ${JSON.stringify(json)}`);
    return json;
  };
  const servers = "/v1/workspaces/me/servers";
  await rest(`${servers}/import`, "POST", { text: JSON.stringify({ mcpServers: { [SLUG]: { url: referenceUrl } } }) });
  await rest(`${servers}/${SLUG}/test`, "POST");
  await rest(`${servers}/${SLUG}/tools/approve`, "POST", {});
  // Its resources, templates and prompts are pinned like tools: approved as a user would.
  await rest(`${servers}/${SLUG}/items/approve`, "POST", {});
  const created = await rest("/v1/tokens", "POST", { name: "conformance", scopes: ["mcp"] });
  return created.secret;
}

/**
 * The suite's server CLI cannot send headers, so it talks to this loopback forwarder, which adds
 * the Bearer token and passes everything else (Host and Origin included) through unchanged.
 */
async function startAuthProxy(loadoutUrl, token) {
  const target = new URL(loadoutUrl);
  const proxy = createServer((req, res) => {
    const upstream = httpRequest(
      {
        hostname: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, authorization: `Bearer ${token}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    // A client that closes its stream cancels the request (2026-07-28): pass that on.
    res.on("close", () => {
      if (!res.writableEnded) upstream.destroy();
    });
    req.pipe(upstream);
  });
  await new Promise((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  cleanups.push(
    () =>
      new Promise((resolve) => {
        proxy.close(() => resolve());
        proxy.closeAllConnections();
      }),
  );
  return `http://127.0.0.1:${proxy.address().port}`;
}

/** One run of the suite on one target and set; counts scenarios the set scores. */
async function runSuite(tools, target, set) {
  const out = path.join(RESULTS, `${set}`, target.name.replace(/[^a-z0-9]+/gi, "_").replace(/^_|_$/g, ""));
  mkdirSync(out, { recursive: true });
  const cli = path.join(tools.suiteDir, "dist/index.js");
  const startedAt = Date.now();
  const child = spawn(tools.node, [cli, "server", "--url", target.url, "--requirements", set, "-o", out], {
    cwd: out,
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let log = "";
  child.stdout.on("data", (chunk) => {
    log += chunk;
  });
  child.stderr.on("data", (chunk) => {
    log += chunk;
  });
  await new Promise((resolve) => child.on("exit", resolve));
  writeFileSync(path.join(out, "suite-output.txt"), log);
  const scored = scoredScenarios(tools.suiteDir, set);
  const scenarios = new Map();
  for (const entry of readdirSync(out, { withFileTypes: true })) {
    const name = /^server-(.+)-\d{4}-\d{2}-\d{2}T/.exec(entry.name)?.[1];
    const file = path.join(out, entry.name, "checks.json");
    if (!entry.isDirectory() || !name || !existsSync(file)) continue;
    const failures = JSON.parse(readFileSync(file, "utf8"))
      .filter((check) => check.status === "FAILURE")
      .map((check) => `${check.id}: ${check.errorMessage ?? "(no message)"}`);
    scenarios.set(name, failures);
  }
  const failing = scored
    .filter((name) => (scenarios.get(name) ?? ["(scenario did not report)"]).length > 0)
    .map((name) => ({ scenario: name, checks: scenarios.get(name) ?? ["(scenario did not report)"] }));
  return {
    set,
    target: target.name,
    loadout: target.loadout,
    passed: scored.length - failing.length,
    total: scored.length,
    failing,
    seconds: Math.round((Date.now() - startedAt) / 100) / 10,
  };
}

/** The `server:` list of the suite's requirement set: the scenarios that decide its pass rate. */
function scoredScenarios(suiteDir, set) {
  const yaml = readFileSync(path.join(suiteDir, "requirements", `${set}.yaml`), "utf8");
  const names = [];
  let inServer = false;
  for (const line of yaml.split("\n")) {
    if (/^\S/.test(line)) inServer = line.startsWith("server:");
    else if (inServer) {
      const name = /^\s+-\s+(\S+)/.exec(line)?.[1];
      if (name) names.push(name);
    }
  }
  return names;
}

function report(runs) {
  const targets = [...new Set(runs.map((r) => r.target))];
  const width = Math.max(...targets.map((t) => t.length));
  console.log(`\n${SUITE}@${SUITE_VERSION}, server scenarios scored by each --requirements set\n`);
  console.log(`${"target".padEnd(width)}  ${SETS.map((s) => s.padEnd(12)).join("")}`);
  for (const target of targets) {
    const cells = SETS.map((set) => {
      const run = runs.find((r) => r.set === set && r.target === target);
      return (run ? `${run.passed}/${run.total}` : "-").padEnd(12);
    });
    console.log(`${target.padEnd(width)}  ${cells.join("")}`);
  }
  for (const run of runs.filter((r) => r.loadout && r.failing.length > 0)) {
    console.log(`\nFailing through ${run.target} (${run.set}):`);
    for (const { scenario, checks } of run.failing) console.log(`  ✗ ${scenario} — ${truncate(checks[0] ?? "")}`);
  }
}

function truncate(value, length = 160) {
  const line = value.replace(/\s+/g, " ");
  return line.length > length ? `${line.slice(0, length - 1)}…` : line;
}

function seconds(ms) {
  return `${Math.round(ms / 100) / 10} s`;
}
