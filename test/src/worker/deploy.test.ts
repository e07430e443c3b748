/**
 * `npm run deploy` (scripts/deploy.mjs) as far as it runs without a Cloudflare account: the dry run
 * builds and measures both Workers offline, and a real run refuses, before any wrangler call, what
 * it cannot deploy. Every run here points wrangler's API at a closed loopback port and carries no
 * credentials, so a call that slipped through to an account would fail here, not reach Cloudflare.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const home = mkdtempSync(path.join(tmpdir(), "loadout-deploy-test-"));

afterAll(() => rmSync(home, { recursive: true, force: true }));

function deploy(args: string[], env: Record<string, string>) {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith("CLOUDFLARE_") && !name.startsWith("WRANGLER_") && name !== "DATABASE_URL",
    ),
  );
  const result = spawnSync(process.execPath, ["scripts/deploy.mjs", ...args], {
    cwd: root,
    encoding: "utf8",
    env: { ...base, CLOUDFLARE_API_BASE_URL: "http://127.0.0.1:9/client/v4", ...env },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The raw and gzip sizes a run printed for one Worker, in KiB. */
function sizes(stdout: string, worker: string): { raw: number; gzip: number } | null {
  const match = stdout.match(new RegExp(`\\(${worker}, [^)]+\\): ([\\d,]+) KiB, ([\\d,]+) KiB gzip`));
  if (!match?.[1] || !match[2]) return null;
  return { raw: Number(match[1].replaceAll(",", "")), gzip: Number(match[2].replaceAll(",", "")) };
}

describe("npm run deploy", () => {
  it("--dry-run builds both Workers and prints their sizes, touching no database", () => {
    // A database that is not there: a dry run that migrated would fail on it.
    const run = deploy(["--dry-run"], { DATABASE_URL: "postgres://nobody@127.0.0.1:9/none" });
    expect(run.stderr).not.toMatch(/✗/);
    expect(run.status).toBe(0);
    const proxy = sizes(run.stdout, "loadout-proxy");
    const api = sizes(run.stdout, "loadout");
    for (const size of [proxy, api]) {
      expect(size?.gzip ?? 0).toBeGreaterThan(50);
      expect(size?.raw ?? 0).toBeGreaterThan(size?.gzip ?? 0);
    }
    // The repository's config still has the placeholder id: the dry run says what a deploy needs.
    expect(run.stdout).toContain("Before a real deploy:");
    expect(run.stdout).toContain("hyperdrive[0].id is the placeholder");
    expect(run.stdout).not.toContain("Migrating");
  }, 300_000);

  it("refuses a real run without DATABASE_URL, saying what to set, before any wrangler call", () => {
    const run = deploy([], { CLOUDFLARE_API_TOKEN: "not-a-token", HOME: home, XDG_CONFIG_HOME: home });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("Not deploying:");
    expect(run.stderr).toContain("DATABASE_URL is not set");
    expect(run.stderr).toContain("DATABASE_URL=postgres://");
    expect(run.stderr).toContain('See docs/operations.md, "Cloudflare Workers"');
    // No step started: not the login check, not a build, not a migration.
    expect(run.stdout).not.toContain("▸");
  });

  it("refuses to migrate through Hyperdrive: migrations need the direct URL", () => {
    const run = deploy([], {
      DATABASE_URL: "postgresql://user:pass@0123456789abcdef0123456789abcdef.hyperdrive.local:5432/loadout",
      HOME: home,
      XDG_CONFIG_HOME: home,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(
      /DATABASE_URL points at Hyperdrive \(.*hyperdrive\.local\): migrations need the database's direct/,
    );
    expect(run.stdout).not.toContain("▸");
  });

  it("refuses an unknown option rather than deploying", () => {
    const run = deploy(["--dryrun"], {});
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("Unknown argument --dryrun: the only option is --dry-run.");
  });
});
