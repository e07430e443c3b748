import { version } from "@zxcvbn-ts/language-common/package.json";
import type { PasswordDictionary } from "../domain/accounts/password-strength";

/**
 * Where the console's static files hold the password-strength dictionary for the Worker (written
 * by password-dictionary-file.ts after the console's build). Named after the package's version, so
 * a file left from another version is never read as this one.
 */
export const PASSWORD_DICTIONARY_ASSET = `/_loadout/password-dictionary/zxcvbn-ts-language-common-${version}.json`;

/** The part of Workers' static-assets binding (env.ASSETS) read here. */
export interface AssetsBinding {
  fetch(request: Request): Promise<Response>;
}

let loading: Promise<PasswordDictionary> | undefined;

/**
 * The Worker's dictionary loader: fetched from the static assets once per isolate, on the first new
 * password, instead of being bundled (it would be about 200 KiB of the script's gzip size). A
 * failed fetch is not kept: the next sign-up tries again.
 */
export function assetPasswordDictionary(assets: AssetsBinding): () => Promise<PasswordDictionary> {
  return () => {
    loading ??= fetchDictionary(assets).catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
}

async function fetchDictionary(assets: AssetsBinding): Promise<PasswordDictionary> {
  // The binding serves by path; the origin is not looked at.
  const res = await assets.fetch(new Request(new URL(PASSWORD_DICTIONARY_ASSET, "https://assets.invalid")));
  if (!res.ok) {
    await res.body?.cancel();
    throw new Error(`${PASSWORD_DICTIONARY_ASSET} answered ${res.status}: build the console (npm run build)`);
  }
  const body = (await res.json()) as Partial<PasswordDictionary> | null;
  if (!isRecordOfArrays(body?.dictionary) || !isRecordOf(body?.graphs, (graph) => isRecordOfArrays(graph)))
    throw new Error(`${PASSWORD_DICTIONARY_ASSET} is not a password dictionary`);
  return { dictionary: body.dictionary, graphs: body.graphs };
}

const isRecordOf = <T>(value: unknown, each: (entry: unknown) => boolean): value is Record<string, T> =>
  typeof value === "object" && value !== null && !Array.isArray(value) && Object.values(value).every(each);
const isRecordOfArrays = (value: unknown): value is Record<string, never[]> =>
  isRecordOf(value, (entry) => Array.isArray(entry) && entry.length > 0);
