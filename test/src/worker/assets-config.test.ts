/**
 * The production Worker's assets config, read by wrangler itself: the console's static export is
 * served for every address but the API's, and an address that matches no file gets the console's
 * not-found page (web/out/404.html, status 404) instead of the Worker's JSON error. The Node host
 * does the same in Hono (test/src/browser/not-found.test.ts).
 */
import { fileURLToPath } from "node:url";
import { API_PATH_PREFIXES, isApiPath } from "@loadout/api/domain/console/api-paths";
import { describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";

const config = unstable_readConfig({
  config: fileURLToPath(new URL("../../../infra/wrangler.jsonc", import.meta.url)),
});
const firstRules = config.assets?.run_worker_first;
const workerFirst = Array.isArray(firstRules) ? firstRules : [];

/** Whether a run_worker_first rule (an exact path, or a prefix ending in /*) takes `path`. */
const takes = (rule: string, path: string) =>
  rule.endsWith("/*") ? path.startsWith(rule.slice(0, -1)) : rule === path;

describe("the Worker's assets config", () => {
  it("answers a console address that matches no file with the console's 404 page", () => {
    expect(config.assets?.directory).toMatch(/web\/out$/);
    expect(config.assets?.not_found_handling).toBe("404-page");
  });

  it("sends every API path to the Worker first, and no console path", () => {
    const api = [
      "/v1/me",
      "/v1/nowhere",
      "/healthz",
      "/mcp",
      "/mcp/s/me/docs",
      "/oauth/token",
      "/.well-known/oauth-authorization-server",
    ];
    expect(API_PATH_PREFIXES.length).toBeGreaterThan(0);
    for (const path of api) {
      expect(isApiPath(path), path).toBe(true);
      expect(
        workerFirst.some((rule) => takes(rule, path)),
        `${path} goes to the Worker`,
      ).toBe(true);
    }
    for (const path of ["/", "/skills/", "/invite/", "/no-such-page/"])
      expect(
        workerFirst.some((rule) => takes(rule, path)),
        `${path} goes to the assets`,
      ).toBe(false);
  });
});
