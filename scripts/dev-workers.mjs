// `npm run dev:workers`: the Workers topology on this machine, as production runs it: the api Worker
// (console as static assets, REST, MCP, OAuth) and the proxy Worker with its Durable Objects, joined
// by their service bindings, in one `wrangler dev --local` on LOADOUT_PORT (default 8788), with
// local Hyperdrive to DATABASE_URL (migrated first). Upstream servers on loopback are allowed.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ensureConsoleBuilt, ROOT, run } from "./lib.mjs";

if (!existsSync(path.join(ROOT, "node_modules"))) {
  console.error("Dependencies are missing: run `npm install` first.");
  process.exit(1);
}
const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl || !/^postgres(ql)?:\/\//.test(databaseUrl)) {
  console.error(
    "DATABASE_URL must point at a Postgres database (the Workers cannot use PGlite), such as\n" +
      "  DATABASE_URL=postgres://postgres@127.0.0.1:5432/loadout npm run dev:workers",
  );
  process.exit(1);
}
const port = process.env.LOADOUT_PORT ?? "8788";
if (!/^\d+$/.test(port)) {
  console.error(`LOADOUT_PORT must be a port number, not "${port}".`);
  process.exit(1);
}
// A key for this machine's development only; production's is a `wrangler secret`.
const secretKey = process.env.LOADOUT_SECRET_KEY ?? randomBytes(32).toString("hex");
if (!process.env.LOADOUT_SECRET_KEY)
  console.log(
    "LOADOUT_SECRET_KEY is not set: using a new random one (server secrets sealed now open only in this run).",
  );

ensureConsoleBuilt();
// Sign-up on the Worker reads the password dictionary from the console's files; a web/out built
// before it was part of the build lacks it (the console's build writes it too).
run("npx", ["tsx", "api/src/entry/password-dictionary-file.ts", "web/out"]);
run("npm", ["run", "migrate", "-w", "@loadout/db"], { env: { DATABASE_URL: databaseUrl } });

// Hyperdrive's local binding insists on a password; trust authentication ignores it.
const hyperdriveUrl = new URL(databaseUrl);
if (!hyperdriveUrl.password) hyperdriveUrl.password = "unused";

// `--var` reaches the first Worker only: the proxy's development settings go in a generated copy
// of its config, beside it so that its paths hold (git ignores it).
const proxyConfig = JSON.parse(
  readFileSync(path.join(ROOT, "infra/wrangler.proxy.jsonc"), "utf8").replace(/^\s*\/\/.*$/gm, ""),
);
proxyConfig.vars = { ...proxyConfig.vars, LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1" };
const devProxyConfig = path.join(ROOT, "infra/.wrangler.proxy.dev.json");
writeFileSync(devProxyConfig, `${JSON.stringify(proxyConfig, null, 2)}\n`);

const wrangler = path.join(ROOT, "node_modules/wrangler/bin/wrangler.js");
const vars = {
  LOADOUT_SECRET_KEY: secretKey,
  LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1",
  LOADOUT_INSECURE_COOKIES: "1",
  // The ChangeFeed object listens on the database directly, as in production (never through Hyperdrive).
  LOADOUT_LISTEN_URL: databaseUrl,
};
const child = spawn(
  process.execPath,
  [
    wrangler,
    "dev",
    "--local",
    "--ip",
    "127.0.0.1",
    "--port",
    port,
    "-c",
    "../infra/wrangler.jsonc",
    "-c",
    "../infra/.wrangler.proxy.dev.json",
    ...Object.entries(vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]),
  ],
  {
    cwd: path.join(ROOT, "api"),
    stdio: "inherit",
    env: {
      ...process.env,
      CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_HYPERDRIVE: hyperdriveUrl.toString(),
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      WRANGLER_SEND_METRICS: "false",
    },
  },
);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
