import { describe, expect, it } from "vitest";
import { parseNodeEnv } from "./node-env";
import { parseWorkerEnv } from "./worker-env";

const CURRENT = "current-secret-key-0123456789abcdefghij";
const OLDER = "older-secret-key-0123456789abcdefghijkl";
const OLDEST = "oldest-secret-key-0123456789abcdefghijk";

describe("LOADOUT_PREVIOUS_SECRET_KEYS", () => {
  it.each<[string, string | undefined, string[]]>([
    ["unset", undefined, []],
    ["empty", "", []],
    ["one key", OLDER, [OLDER]],
    ["keys separated by commas, spaces and a stray comma ignored", ` ${OLDER} ,${OLDEST},`, [OLDER, OLDEST]],
  ])("reads %s", (_case, value, keys) => {
    const source = { LOADOUT_SECRET_KEY: CURRENT, LOADOUT_PREVIOUS_SECRET_KEYS: value };
    expect(parseNodeEnv(source).LOADOUT_PREVIOUS_SECRET_KEYS).toEqual(keys);
    expect(parseWorkerEnv({ ...source, DATABASE_URL: "postgres://db/x" }).LOADOUT_PREVIOUS_SECRET_KEYS).toEqual(keys);
  });

  it("refuses a key too short by its place in the list, without showing it", () => {
    const source = { LOADOUT_SECRET_KEY: CURRENT, LOADOUT_PREVIOUS_SECRET_KEYS: `${OLDER},short-old-key` };
    const node = () => parseNodeEnv(source);
    expect(node).toThrow(
      "LOADOUT_PREVIOUS_SECRET_KEYS: key 2 of 2 has 13 characters; each earlier LOADOUT_SECRET_KEY has at least 32 (separate keys with commas)",
    );
    expect(node).not.toThrow(/short-old-key/);
    const worker = () => parseWorkerEnv({ ...source, DATABASE_URL: "postgres://db/x" });
    expect(worker).toThrow("LOADOUT_PREVIOUS_SECRET_KEYS: key 2 of 2 has 13 characters");
    expect(worker).not.toThrow(/short-old-key/);
  });
});
