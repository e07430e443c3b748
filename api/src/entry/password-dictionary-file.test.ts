import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import languageCommon from "@zxcvbn-ts/language-common/package.json";
import { afterAll, describe, expect, it } from "vitest";
import { commonPasswordDictionary } from "../domain/accounts/common-password-dictionary";
import { PASSWORD_DICTIONARY_ASSET } from "./password-dictionary-asset";
import { writePasswordDictionary } from "./password-dictionary-file";

const outDir = mkdtempSync(path.join(tmpdir(), "loadout-password-dictionary-"));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe("the password dictionary asset", () => {
  it("is the package's data, under a path named after the package's version", () => {
    expect(PASSWORD_DICTIONARY_ASSET).toBe(
      `/_loadout/password-dictionary/zxcvbn-ts-language-common-${languageCommon.version}.json`,
    );
    const file = writePasswordDictionary(outDir);
    expect(file).toBe(path.join(outDir, "_loadout/password-dictionary", path.basename(PASSWORD_DICTIONARY_ASSET)));
    const written = JSON.parse(readFileSync(file, "utf8"));
    expect(written).toEqual(commonPasswordDictionary);
    expect(written.dictionary["passwords-common"].length).toBeGreaterThan(10_000);
  });
});
