/**
 * `npm start` as a newcomer runs it: the real start script, on embedded PGlite in a fresh data
 * folder (or on DATABASE_URL's server), printing the URL and the one-time setup link. The link
 * creates the first account; after a restart the data, the generated secret key and therefore
 * the session are still there, and no new setup link is printed.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { withDatabase } from "@loadout/db/testing";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const dataDir = mkdtempSync(path.join(tmpdir(), "loadout-start-"));
const port = String(21_000 + Math.floor(Math.random() * 20_000));
let databaseUrl: string | undefined;
const base = process.env.DATABASE_URL;
const dbName = `loadout_s_${Date.now().toString(36)}`;

interface Started {
  child: ChildProcess;
  output: () => string;
}

async function start(env: Record<string, string> = {}): Promise<Started> {
  let output = "";
  const child = spawn(process.execPath, ["scripts/start.mjs"], {
    cwd: ROOT,
    env: {
      ...process.env,
      LOADOUT_PORT: port,
      LOADOUT_DATA_DIR: dataDir,
      LOADOUT_LOG: "silent",
      DATABASE_URL: databaseUrl ?? "",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const deadline = Date.now() + 90_000;
  while (!output.includes("Loadout is running at")) {
    if (child.exitCode !== null) throw new Error(`npm start exited (${child.exitCode}):\n${output}`);
    if (Date.now() > deadline) throw new Error(`npm start did not come up:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  // The setup banner follows the URL line.
  await new Promise((r) => setTimeout(r, 300));
  return { child, output: () => output };
}

async function stop(started: Started) {
  const exited = new Promise((r) => started.child.once("exit", r));
  started.child.kill("SIGTERM");
  await exited;
}

beforeAll(async () => {
  if (base) {
    const admin = postgres(base, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database "${dbName}"`);
    await admin.end();
    databaseUrl = withDatabase(base, dbName);
  }
});
afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  if (base) {
    const admin = postgres(base, { max: 1, onnotice: () => {} });
    await admin.unsafe(`drop database if exists "${dbName}" with (force)`);
    await admin.end();
  }
});

describe("npm start", () => {
  it("serves console, API and health on one origin, and the setup link creates the first account", async () => {
    const first = await start();
    let cookie = "";
    try {
      const url = `http://127.0.0.1:${port}`;
      expect(first.output()).toContain(`Loadout is running at ${url}`);
      const link = /(http:\/\/\S+\/setup\/#token=(\S+))/.exec(first.output());
      expect(link, first.output()).not.toBeNull();
      const token = link?.[2] ?? "";

      expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: "ok" });
      const consolePage = await fetch(`${url}/signin/`);
      expect(consolePage.headers.get("content-type")).toContain("text/html");
      expect(await consolePage.text()).toContain("Loadout");
      expect((await (await fetch(`${url}/v1/openapi.json`)).json()).info.title).toBe("Loadout API");

      const setup = await fetch(`${url}/v1/auth/setup`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token, email: "first@example.com", password: "correct horse battery" }),
      });
      expect(setup.status).toBe(201);
      cookie = setup.headers
        .getSetCookie()
        .map((c) => c.split(";")[0])
        .join("; ");
      const reused = await fetch(`${url}/v1/auth/setup`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token, email: "second@example.com", password: "correct horse battery" }),
      });
      expect(reused.status).toBe(403);
    } finally {
      await stop(first);
    }

    // Local mode generated a secret key once, readable by the owner only.
    const keyFile = path.join(dataDir, "secret-key");
    expect(existsSync(keyFile)).toBe(true);
    expect(statSync(keyFile).mode & 0o077).toBe(0);
    const key = readFileSync(keyFile, "utf8");

    const second = await start();
    try {
      expect(second.output()).not.toContain("/setup/#token=");
      const me = await fetch(`http://127.0.0.1:${port}/v1/me`, { headers: { cookie } });
      expect(me.status).toBe(200);
      expect((await me.json()).user.email).toBe("first@example.com");
      expect(readFileSync(keyFile, "utf8")).toBe(key);
    } finally {
      await stop(second);
    }
  });

  it("refuses to start in production mode without LOADOUT_SECRET_KEY, naming the variable", async () => {
    await expect(start({ LOADOUT_MODE: "production" })).rejects.toThrow(
      /LOADOUT_SECRET_KEY is required in production mode/,
    );
  });

  it("refuses a malformed environment, listing each problem", async () => {
    await expect(start({ LOADOUT_PORT: "eighty", DATABASE_URL: "mysql://x" })).rejects.toThrow(
      /LOADOUT_PORT[\s\S]*DATABASE_URL must be a postgres:\/\/ URL|DATABASE_URL must be a postgres:\/\/ URL[\s\S]*LOADOUT_PORT/,
    );
  });
});
