import { describeError } from "../errors";
import type { Logger } from "../logger";

/**
 * While a key rotation is under way (LOADOUT_PREVIOUS_SECRET_KEYS set), secrets still sealed under
 * an earlier key are sealed again under LOADOUT_SECRET_KEY: at start on Node, on the cron trigger
 * on Workers (`triggers.crons` in infra/wrangler.jsonc). Without previous keys there is nothing to
 * re-seal, and the scan of every server is skipped. Never throws: the outcome is logged.
 */
export async function resealAndLog(
  app: { resealSecrets(): Promise<{ resealed: number; unopenable: number }> },
  previousKeys: readonly string[],
  logger: Logger,
): Promise<void> {
  if (previousKeys.length === 0) return;
  try {
    const { resealed, unopenable } = await app.resealSecrets();
    logger.log(unopenable > 0 ? "warn" : "info", "server secrets re-sealed under LOADOUT_SECRET_KEY", {
      resealed,
      unopenable,
    });
  } catch (error) {
    logger.log("error", "re-sealing server secrets failed", { error: describeError(error) });
  }
}
