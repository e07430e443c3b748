// `npm run deploy`: the steps of docs/operations.md ("Cloudflare Workers") in order. Checks what it
// can before it touches anything (the offline checks before any call to an account), builds both
// Workers, migrates DATABASE_URL (the direct URL, never Hyperdrive's), creates the call-log queues,
// deploys the proxy Worker then the api Worker, and checks the api Worker's LOADOUT_SECRET_KEY.
// `--dry-run` only builds and measures both Workers: no account, no database, works offline.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";
import { gzipSync } from "node:zlib";
import { ensureConsoleBuilt, ROOT, run } from "./lib.mjs";

const API_CONFIG = "infra/wrangler.jsonc";
const PROXY_CONFIG = "infra/wrangler.proxy.jsonc";
const HYPERDRIVE_PLACEHOLDER = "replace-with-your-hyperdrive-id";
const WRANGLER = path.join(ROOT, "node_modules/wrangler/bin/wrangler.js");
// The banner's update check would reach the npm registry; a dry run reaches nothing.
const WRANGLER_ENV = {
  WRANGLER_SEND_METRICS: "false",
  WRANGLER_HIDE_BANNER: "true",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
};

const args = process.argv.slice(2);
const unknown = args.filter((arg) => arg !== "--dry-run");
if (unknown.length > 0) fail(`Unknown argument ${unknown.join(" ")}: the only option is --dry-run.`);
const dryRun = args.includes("--dry-run");
// Scratch folders go on every exit, a refusal's included (process.exit skips `finally`).
const scratch = [];
process.on("exit", () => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

if (!existsSync(WRANGLER)) fail("Dependencies are missing: run `npm install` first.");
const apiConfig = readConfig(API_CONFIG);
const proxyConfig = readConfig(PROXY_CONFIG);
const problems = offlineProblems();

if (dryRun) {
  await buildWorkers();
  if (problems.length > 0) console.log(`\nBefore a real deploy:\n${problems.map((p) => `- ${p}`).join("\n")}`);
  process.exit(0);
}

if (problems.length > 0) {
  fail(`Not deploying:\n${problems.map((p) => `- ${p}`).join("\n")}\n\nSee docs/operations.md, "Cloudflare Workers".`);
}
await checkAccount();
await checkHyperdrive();
await buildWorkers();
step("Migrating the database (DATABASE_URL, direct)");
run("npm", ["run", "migrate", "-w", "@loadout/db"], { env: { DATABASE_URL: process.env.DATABASE_URL } });
await createQueues();
await deployBoth();
await checkSecret();
console.log(`\n✓ Deployed ${proxyConfig.name} and ${apiConfig.name}.`);

/** A wrangler config as an object: JSONC without its comments (strings kept whole, `/v1/*` included). */
function readConfig(file) {
  const text = readFileSync(path.join(ROOT, file), "utf8");
  return JSON.parse(text.replace(/("(?:\\.|[^"\\])*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (_, string) => string ?? ""));
}

/** What a real deploy needs that can be told without a network: each a sentence saying what to do. */
function offlineProblems() {
  const found = [];
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    found.push(
      "DATABASE_URL is not set. The migrations run before the deploy, on the database's direct URL (not the\n" +
        "  Hyperdrive one): DATABASE_URL=postgres://user:pass@db-host:5432/loadout npm run deploy",
    );
  } else if (!URL.canParse(databaseUrl) || !/^postgres(ql)?:$/.test(new URL(databaseUrl).protocol)) {
    found.push("DATABASE_URL must be a postgres:// URL: the database's direct URL, which the migrations run on.");
  } else if (/hyperdrive/i.test(new URL(databaseUrl).hostname)) {
    found.push(
      `DATABASE_URL points at Hyperdrive (${new URL(databaseUrl).hostname}): migrations need the database's direct\n` +
        "  URL (the connection string the Hyperdrive config was created with); DDL has no place behind a pooler.",
    );
  }
  const hyperdriveId = apiConfig.hyperdrive?.[0]?.id;
  if (!hyperdriveId || hyperdriveId === HYPERDRIVE_PLACEHOLDER) {
    found.push(
      `${API_CONFIG} has no Hyperdrive id yet (hyperdrive[0].id is the placeholder). Create the config with caching off:\n` +
        '  npx wrangler hyperdrive create loadout --connection-string="postgres://user:pass@db-host:5432/loadout" --caching-disabled\n' +
        "  and put the id it prints in hyperdrive[0].id.",
    );
  } else if (!/^[0-9a-f]{32}$/.test(hyperdriveId)) {
    found.push(
      `hyperdrive[0].id in ${API_CONFIG} ("${hyperdriveId}") is not a Hyperdrive id (32 hex characters, as \`npx wrangler hyperdrive list\` shows).`,
    );
  }
  return found;
}

/** Runs wrangler from api/ (as the build does), showing its output unless quiet, and keeping it. */
function wrangler(wranglerArgs, { quiet = false } = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [WRANGLER, ...wranglerArgs], {
      cwd: path.join(ROOT, "api"),
      env: { ...process.env, ...WRANGLER_ENV },
      // No prompt can wait for an answer: wrangler takes its non-interactive defaults.
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let output = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      output += chunk;
      if (!quiet) process.stdout.write(chunk);
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
      if (!quiet) process.stderr.write(chunk);
    });
    child.on("close", (code) => resolve({ ok: code === 0, stdout, output }));
  });
}

async function checkAccount() {
  step("Checking the Cloudflare login");
  const { ok, stdout, output } = await wrangler(["whoami", "--json"], { quiet: true });
  const user = parseJson(stdout);
  if (!ok && user?.loggedIn !== false) fail("Could not reach Cloudflare to check the login.", output);
  if (!user?.loggedIn) {
    fail(
      "Wrangler is not logged in to Cloudflare: run `npx wrangler login`, or set CLOUDFLARE_API_TOKEN to an API token\n" +
        "with edit rights on Workers Scripts, Queues and Hyperdrive (and CLOUDFLARE_ACCOUNT_ID to its account).",
      output,
    );
  }
  console.log(`Logged in${user.email ? ` as ${user.email}` : ""} (${user.authType}).`);
}

/** The Hyperdrive config must exist and must not cache: tokens and stamps are never read stale. */
async function checkHyperdrive() {
  const id = apiConfig.hyperdrive[0].id;
  step(`Checking Hyperdrive config ${id}`);
  const { ok, stdout, output } = await wrangler(["hyperdrive", "get", id, "--config", `../${API_CONFIG}`], {
    quiet: true,
  });
  const config = ok ? parseJson(stdout) : null;
  if (!config) fail(`Hyperdrive config ${id} (${API_CONFIG}) could not be read in this account.`, output);
  if (config.caching?.disabled !== true) {
    fail(
      `Hyperdrive config ${id} caches read queries, so a revoked token could be served for a minute. Turn caching off:\n` +
        `  npx wrangler hyperdrive update ${id} --caching-disabled`,
    );
  }
  console.log(`${config.name ?? id}: caching disabled.`);
}

/** The console's static export, then both Workers as wrangler bundles them, measured. */
async function buildWorkers() {
  ensureConsoleBuilt();
  step("Building both Workers (wrangler deploy --dry-run)");
  const outDir = scratchDir();
  for (const [label, file, config] of [
    ["proxy Worker", PROXY_CONFIG, proxyConfig],
    ["api Worker", API_CONFIG, apiConfig],
  ]) {
    const dir = path.join(outDir, config.name);
    const { ok, output } = await wrangler(["deploy", "--dry-run", "--outdir", dir, "--config", `../${file}`], {
      quiet: true,
    });
    if (!ok) fail(`The ${label} (${file}) did not build.`, output);
    const { raw, gzip } = bundleSize(dir);
    console.log(`${label} (${config.name}, ${file}): ${kib(raw)} KiB, ${kib(gzip)} KiB gzip`);
  }
  console.log("Cloudflare's limit: 3 MiB gzip a Worker on the Free plan, 10 MiB on Paid.");
}

/** The uploaded modules of a dry run's outdir (source maps and wrangler's README are not uploaded). */
function bundleSize(dir) {
  let raw = 0;
  let gzip = 0;
  for (const name of readdirSync(dir, { recursive: true })) {
    const file = path.join(dir, String(name));
    if (!statSync(file).isFile() || file.endsWith(".map") || path.basename(file) === "README.md") continue;
    const bytes = readFileSync(file);
    raw += bytes.length;
    gzip += gzipSync(bytes).length;
  }
  if (raw === 0) fail(`wrangler wrote no bundle to ${dir}.`);
  return { raw, gzip };
}

/** Every queue the api config names, created unless it exists. */
async function createQueues() {
  const names = new Set([
    ...(apiConfig.queues?.producers ?? []).map((p) => p.queue),
    ...(apiConfig.queues?.consumers ?? []).flatMap((c) => [c.queue, c.dead_letter_queue].filter(Boolean)),
  ]);
  for (const name of names) {
    step(`Queue ${name}`);
    const { ok, output } = await wrangler(["queues", "create", name], { quiet: true });
    if (ok) console.log(`created ${name}.`);
    else if (/already (exists|taken)|\[code: 11009\]/i.test(output)) console.log(`${name} exists.`);
    else fail(`Could not create the queue ${name}.`, output);
  }
}

/**
 * The proxy first (its Durable Object migration applies on its deploy), then the api, whose
 * UPSTREAM binding needs the proxy. The proxy's LOADOUT_API binding needs the api: on the very
 * first deploy Cloudflare refuses it, so the proxy goes once without it and again after the api.
 */
async function deployBoth() {
  step(`Deploying the proxy Worker (${proxyConfig.name})`);
  const proxy = await wrangler(["deploy", "--config", `../${PROXY_CONFIG}`]);
  if (proxy.ok) {
    await deploy("api Worker", API_CONFIG);
    return;
  }
  const apiMissing =
    /could not resolve service binding|\[code: 10143\]|script_not_found/i.test(proxy.output) &&
    proxy.output.includes(`'${apiConfig.name}'`);
  if (!apiMissing) fail(`The proxy Worker did not deploy (output above).`);
  console.log(`\nThe api Worker (${apiConfig.name}) does not exist yet: deploying the proxy once without LOADOUT_API.`);
  // The same config without `services`, outside infra/ (so an absolute `main`).
  const { $schema: _schema, services: _services, ...withoutApi } = proxyConfig;
  const firstConfig = path.join(scratchDir(), "wrangler.proxy.first.json");
  const main = path.resolve(ROOT, path.dirname(PROXY_CONFIG), proxyConfig.main);
  writeFileSync(firstConfig, JSON.stringify({ ...withoutApi, main }, null, 2));
  const first = await wrangler(["deploy", "--config", firstConfig]);
  if (!first.ok) fail("The proxy Worker did not deploy (output above).");
  await deploy("api Worker", API_CONFIG);
  await deploy("proxy Worker, now with LOADOUT_API", PROXY_CONFIG);
}

async function deploy(label, file) {
  step(`Deploying the ${label}`);
  const { ok } = await wrangler(["deploy", "--config", `../${file}`]);
  if (!ok) fail(`The ${label} (${file}) did not deploy (output above).`);
}

async function checkSecret() {
  step(`Checking the api Worker's secrets`);
  const { ok, stdout, output } = await wrangler(["secret", "list", "--config", `../${API_CONFIG}`], { quiet: true });
  const secrets = ok ? parseJson(stdout) : null;
  if (!Array.isArray(secrets)) fail("Could not list the api Worker's secrets.", output);
  if (!secrets.some((secret) => secret.name === "LOADOUT_SECRET_KEY")) {
    fail(
      `Deployed, but ${apiConfig.name} has no LOADOUT_SECRET_KEY, so it answers 503. Set it (32+ random characters;\n` +
        "keep a copy: it opens the server secrets sealed under it); it takes effect without a redeploy:\n" +
        `  openssl rand -base64 32 | npx wrangler secret put LOADOUT_SECRET_KEY --config ${API_CONFIG}`,
    );
  }
  console.log("LOADOUT_SECRET_KEY is set.");
  if (!secrets.some((secret) => secret.name === "LOADOUT_LISTEN_URL"))
    console.log(
      "LOADOUT_LISTEN_URL is not set: the ChangeFeed object cannot listen, so every MCP call reads its counters\n" +
        '  from Postgres (one statement). Set it to the database\'s direct URL (docs/operations.md, "The change feed"):\n' +
        `  npx wrangler secret put LOADOUT_LISTEN_URL --config ${API_CONFIG}`,
    );
  else console.log("LOADOUT_LISTEN_URL is set.");
}

/** JSON a wrangler command printed, from its first brace or bracket on (anything before is chatter). */
function parseJson(text) {
  const start = text.search(/[[{]/);
  if (start < 0) return null;
  try {
    return JSON.parse(text.slice(start));
  } catch {
    return null;
  }
}

function scratchDir() {
  const dir = mkdtempSync(path.join(tmpdir(), "loadout-deploy-"));
  scratch.push(dir);
  return dir;
}

function kib(bytes) {
  return (bytes / 1024).toLocaleString("en-US", { maximumFractionDigits: 0 });
}

function step(title) {
  console.log(`\n▸ ${title}`);
}

function fail(message, output = "") {
  const tail = stripVTControlCharacters(output).trim().split("\n").slice(-15).join("\n");
  console.error(`\n✗ ${message}${tail ? `\n\nwrangler said:\n${tail}` : ""}`);
  process.exit(1);
}
