import { describe, expect, it } from "vitest";
import { listenProblem, parseNodeEnv } from "./node-env";

function problem(source: Record<string, string>): string {
  try {
    parseNodeEnv(source);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("the environment was accepted");
}

describe("parseNodeEnv", () => {
  it("names the variable, what was wrong and what to do, without the parser's words or the value", () => {
    const message = problem({ LOADOUT_PORT: "abc" });
    expect(message).toContain("LOADOUT_PORT: must be a whole number from 0 to 65535");
    expect(message).toContain("set a free port such as 8788");
    expect(message).not.toMatch(/NaN|expected number|abc/);
    expect(problem({ LOADOUT_PORT: "70000" })).toContain("LOADOUT_PORT: must be a whole number");
    expect(problem({ LOADOUT_DB_POOL: "many" })).toContain("LOADOUT_DB_POOL: must be a whole number from 1 to 100");
    expect(problem({ LOADOUT_LOG: "loud" })).toContain("LOADOUT_LOG: must be `human`, `json` or `silent`");
  });

  it("logs for people in local mode and JSON lines in production, unless LOADOUT_LOG says otherwise", () => {
    expect(parseNodeEnv({}).LOADOUT_LOG).toBe("human");
    const key = "k".repeat(32);
    expect(parseNodeEnv({ LOADOUT_MODE: "production", LOADOUT_SECRET_KEY: key }).LOADOUT_LOG).toBe("json");
    expect(parseNodeEnv({ LOADOUT_LOG: "json" }).LOADOUT_LOG).toBe("json");
    expect(
      parseNodeEnv({ LOADOUT_MODE: "production", LOADOUT_SECRET_KEY: key, LOADOUT_LOG: "human" }).LOADOUT_LOG,
    ).toBe("human");
  });
});

describe("listenProblem", () => {
  const env = { LOADOUT_HOST: "127.0.0.1", LOADOUT_PORT: 8787 };
  it("says a port in use is in use and how to pick another", () => {
    expect(listenProblem(Object.assign(new Error("listen EADDRINUSE"), { code: "EADDRINUSE" }), env)).toBe(
      "Loadout cannot start: 127.0.0.1:8787 is already in use (another Loadout, or another program). " +
        "Stop that program, or choose a free port with LOADOUT_PORT, e.g. `LOADOUT_PORT=8788 npm start`.",
    );
    expect(listenProblem({ code: "EACCES" }, { ...env, LOADOUT_PORT: 80 })).toContain("Choose a port above 1023");
  });
  it("leaves other failures to their own stack", () => {
    expect(listenProblem(new Error("boom"), env)).toBeNull();
  });
});
