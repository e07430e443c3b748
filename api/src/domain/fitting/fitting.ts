/**
 * Client fitting (seed 003, DESIGN.md "The CLI"): a client that loads skills or personas from the
 * folders `loadout sync` wrote on its device is not given them again in the handshake's
 * instructions. A kind of item is left out only when all three hold:
 * 1. the client's handshake name is one whose client reads those folders;
 * 2. the request's device id had a sync that reported that client as a reader of that kind;
 * 3. that sync is at most 7 days old.
 * Any other client, and one that names itself in neither exchange, gets the whole list. A wrong
 * or changed name therefore only means a client gets a list it already has, never loses one.
 */
export type ItemKind = "skill" | "persona";

/** The clients `loadout sync` writes folders for, by the CLI's name. */
export const FOLDER_CLIENTS = ["claude-code", "codex", "cursor", "opencode"] as const;
export type FolderClient = (typeof FOLDER_CLIENTS)[number];

/** The name each of those clients sends in its handshake (clientInfo.name), to the CLI's name. */
const HANDSHAKE_NAMES: Readonly<Record<string, FolderClient>> = {
  "claude-code": "claude-code",
  "codex-mcp-client": "codex",
  "cursor-vscode": "cursor",
  opencode: "opencode",
};

export const FITTING_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;

export function folderClientOf(handshakeName: string | null | undefined): FolderClient | null {
  if (!handshakeName) return null;
  return Object.hasOwn(HANDSHAKE_NAMES, handshakeName) ? (HANDSHAKE_NAMES[handshakeName] ?? null) : null;
}

/** A sync counts for 7 days; one dated more than a minute ahead (a skewed clock) does not count. */
export function isSyncFresh(syncedAt: Date, now: Date): boolean {
  const age = now.getTime() - syncedAt.getTime();
  return age <= FITTING_MAX_AGE_MS && age >= -60_000;
}

export interface DeviceSyncFacts {
  readers: ReadonlyArray<{ client: string; kinds: readonly string[] }>;
  syncedAt: Date;
}

/**
 * The kinds of item to leave out of the instructions for this client, given its device's last
 * sync (null when the request named no device, or the device never synced for this user).
 */
export function kindsReadFromFolders(
  handshakeName: string | null | undefined,
  sync: DeviceSyncFacts | null,
  now: Date,
): ReadonlySet<ItemKind> {
  const client = folderClientOf(handshakeName);
  if (!client || !sync || !isSyncFresh(sync.syncedAt, now)) return NONE;
  const kinds = new Set<ItemKind>();
  for (const reader of sync.readers) {
    if (reader.client !== client) continue;
    for (const kind of reader.kinds) if (kind === "skill" || kind === "persona") kinds.add(kind);
  }
  return kinds;
}

const NONE: ReadonlySet<ItemKind> = new Set();

/** A device id: the random id the CLI keeps in its config folder (`dev_` and 26 characters). */
export const DEVICE_ID_PATTERN = /^[A-Za-z0-9_-]{8,64}$/;

/** The device id a client sends in `X-Loadout-Device`, or null when it sends none usable. */
export function deviceIdOf(header: string | null | undefined): string | null {
  const value = header?.trim();
  return value && DEVICE_ID_PATTERN.test(value) ? value : null;
}
