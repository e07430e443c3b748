/**
 * What the production Worker config must hold that local workerd cannot show: Miniflare and
 * `wrangler dev` do not enforce `global_fetch_strictly_public` (as they do not cap PBKDF2), so
 * only reading the config, as wrangler itself reads it, catches a deployment without it.
 */
import { describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";
import { wranglerConfigPath } from "./harness";

const config = unstable_readConfig({ config: wranglerConfigPath });

describe("the production Worker config", () => {
  it("sets global_fetch_strictly_public, so fetch itself refuses private addresses", () => {
    expect(config.compatibility_flags).toContain("global_fetch_strictly_public");
    expect(config.compatibility_flags).toContain("nodejs_compat");
  });

  it("runs the scheduled handler (re-seal of rotated secrets) on a cron trigger", () => {
    expect(config.triggers.crons?.length ?? 0).toBeGreaterThan(0);
  });

  it("binds HYPERDRIVE, which the deploy guide creates with caching disabled", () => {
    expect(config.hyperdrive.map((h: { binding: string }) => h.binding)).toEqual(["HYPERDRIVE"]);
  });
});
