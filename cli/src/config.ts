import { randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";

/**
 * The CLI's config folder: `LOADOUT_CONFIG_DIR`, else `$XDG_CONFIG_HOME/loadout`, else
 * `~/.config/loadout` (`%APPDATA%\loadout` on Windows), as `gh` keeps `~/.config/gh`.
 */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.LOADOUT_CONFIG_DIR) return path.resolve(env.LOADOUT_CONFIG_DIR);
  if (process.platform === "win32" && env.APPDATA) return path.join(env.APPDATA, "loadout");
  return path.join(env.XDG_CONFIG_HOME || path.join(homedir(), ".config"), "loadout");
}

/** Writes a file only its owner can read (0600), atomically: a crash never leaves half a file. */
export async function writePrivate(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, text, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, file);
}

export async function readJson<T>(file: string): Promise<T | null> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new CliError(`${file} is not valid JSON. Fix it or remove it, then run the command again.`, 2);
  }
}

/** A failure to report as one sentence, with the exit code for CI (see main.ts). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

export type Credentials =
  | { kind: "token"; token: string }
  | {
      kind: "oauth";
      accessToken: string;
      refreshToken: string;
      /** ISO time the access token expires. */
      expiresAt: string;
      clientId: string;
      tokenEndpoint: string;
    };

interface CredentialsFile {
  /** The server `loadout` talks to unless `--url` or `LOADOUT_URL` names another. */
  current?: string;
  servers: Record<string, Credentials>;
}

const credentialsFile = () => path.join(configDir(), "credentials.json");

export async function loadCredentials(): Promise<CredentialsFile> {
  return (await readJson<CredentialsFile>(credentialsFile())) ?? { servers: {} };
}

export async function saveCredentials(origin: string, credentials: Credentials): Promise<void> {
  const file = await loadCredentials();
  file.servers[origin] = credentials;
  file.current = origin;
  await writePrivate(credentialsFile(), `${JSON.stringify(file, null, 2)}\n`);
}

export async function forgetCredentials(origin: string): Promise<boolean> {
  const file = await loadCredentials();
  if (!file.servers[origin]) return false;
  delete file.servers[origin];
  if (file.current === origin) delete file.current;
  await writePrivate(credentialsFile(), `${JSON.stringify(file, null, 2)}\n`);
  return true;
}

/**
 * This device's id, sent as `X-Loadout-Device` by the clients `loadout mcp add` configures and
 * named in each sync report: random, made once, kept in the config folder.
 */
export async function deviceId(): Promise<string> {
  const file = path.join(configDir(), "device.json");
  const stored = await readJson<{ id?: unknown }>(file);
  if (typeof stored?.id === "string" && /^dev_[a-z0-9]{26}$/.test(stored.id)) return stored.id;
  const id = `dev_${randomBytes(16).toString("hex").slice(0, 26)}`;
  await writePrivate(file, `${JSON.stringify({ id }, null, 2)}\n`);
  return id;
}

/** The origin of a Loadout URL as typed (`127.0.0.1:8787`, `https://loadout.example/`). */
export function originOf(raw: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new CliError(`${raw} is not a URL. Give Loadout's address, like https://loadout.example.`, 2);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new CliError(`${raw} is not an http(s) URL. Give Loadout's address, like https://loadout.example.`, 2);
  return url.origin;
}
