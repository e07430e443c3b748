import { describe, expect, it } from "vitest";
import { parseWorkerEnv } from "./worker-env";

const base = { LOADOUT_SECRET_KEY: "k".repeat(32), DATABASE_URL: "postgres://db.example/loadout" };

function problem(source: Record<string, string>): string {
  try {
    parseWorkerEnv(source);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("the environment was accepted");
}

describe("parseWorkerEnv: the SSRF guard's settings", () => {
  it("keeps loopback refused unless a test or local run sets LOADOUT_ALLOW_LOOPBACK_UPSTREAMS=1", () => {
    expect(parseWorkerEnv(base).LOADOUT_ALLOW_LOOPBACK_UPSTREAMS).toBe("0");
    expect(parseWorkerEnv({ ...base, LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1" }).LOADOUT_ALLOW_LOOPBACK_UPSTREAMS).toBe(
      "1",
    );
    expect(problem({ ...base, LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "yes" })).toContain("LOADOUT_ALLOW_LOOPBACK_UPSTREAMS");
  });

  it("takes a DNS-over-HTTPS endpoint, and says what a bad one should look like", () => {
    expect(parseWorkerEnv(base).LOADOUT_DOH_URL).toBeUndefined();
    expect(parseWorkerEnv({ ...base, LOADOUT_DOH_URL: "https://dns.example/dns-query" }).LOADOUT_DOH_URL).toBe(
      "https://dns.example/dns-query",
    );
    expect(problem({ ...base, LOADOUT_DOH_URL: "dns.example" })).toContain(
      "LOADOUT_DOH_URL: LOADOUT_DOH_URL must be a URL such as https://cloudflare-dns.com/dns-query",
    );
  });
});
