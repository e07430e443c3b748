/**
 * Writes the password-strength dictionary into the console's static files, where the Worker
 * fetches it (password-dictionary-asset.ts): the package's own data, as JSON. Run after the
 * console's build (`npm run build -w @loadout/web`), and by the Worker tests before they start.
 *
 *   tsx api/src/entry/password-dictionary-file.ts <the console's out directory>
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { commonPasswordDictionary } from "../domain/accounts/common-password-dictionary";
import { PASSWORD_DICTIONARY_ASSET } from "./password-dictionary-asset";

/** Writes the file under `outDir` and returns its path. */
export function writePasswordDictionary(outDir: string): string {
  const file = path.join(outDir, ...PASSWORD_DICTIONARY_ASSET.split("/"));
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(commonPasswordDictionary));
  return file;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outDir = process.argv[2];
  if (!outDir) {
    console.error("usage: tsx api/src/entry/password-dictionary-file.ts <the console's out directory>");
    process.exit(1);
  }
  console.log(`wrote ${path.relative(process.cwd(), writePasswordDictionary(path.resolve(outDir)))}`);
}
