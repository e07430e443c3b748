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

  it("sends MCP calls to the call-log Queue, which this Worker consumes, with a dead-letter queue", () => {
    const producer = config.queues.producers?.find((p: { binding: string }) => p.binding === "CALL_LOG");
    expect(producer?.queue).toBeTruthy();
    const consumer = config.queues.consumers?.find((c: { queue: string }) => c.queue === producer?.queue);
    expect(consumer).toBeDefined();
    expect(consumer?.dead_letter_queue).toBeTruthy();
    expect(consumer?.dead_letter_queue).not.toBe(producer?.queue);
    // A batch is one statement of at most 100 rows (Cloudflare's cap), retried long enough to outlast a short outage.
    expect(consumer?.max_batch_size ?? 10).toBeLessThanOrEqual(100);
    expect((consumer?.max_retries ?? 3) * (consumer?.retry_delay ?? 0)).toBeGreaterThanOrEqual(60);
  });
});
