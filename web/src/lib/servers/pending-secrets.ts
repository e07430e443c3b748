import type { Placeholder } from "./types";

// Header values that still hold a placeholder from the paste (`${env:TOKEN}`, `<YOUR_API_KEY>`).
// Only the import answer names them, and values come back masked, so the console remembers the
// header names (never values) for this tab until the user enters the real value.

const KEY = "loadout.pending-secrets";

type Pending = Record<string, Placeholder[]>;

function read(): Pending {
  if (typeof window === "undefined") return {};
  try {
    const parsed: unknown = JSON.parse(window.sessionStorage.getItem(KEY) ?? "{}");
    return typeof parsed === "object" && parsed !== null ? (parsed as Pending) : {};
  } catch {
    return {};
  }
}

function write(pending: Pending): void {
  try {
    window.sessionStorage.setItem(KEY, JSON.stringify(pending));
  } catch {
    // Storage full or disabled: the server page then just does not flag the placeholders.
  }
}

export function pendingPlaceholders(serverId: string): Placeholder[] {
  return read()[serverId] ?? [];
}

export function rememberPlaceholders(serverId: string, placeholders: Placeholder[]): void {
  const pending = read();
  if (placeholders.length === 0) delete pending[serverId];
  else pending[serverId] = placeholders;
  write(pending);
}

// Headers given a value (or removed) no longer wait for one.
export function settlePlaceholders(serverId: string, headers: readonly string[]): Placeholder[] {
  const settled = new Set(headers.map((name) => name.toLowerCase()));
  const left = pendingPlaceholders(serverId).filter((item) => !settled.has(item.header.toLowerCase()));
  rememberPlaceholders(serverId, left);
  return left;
}
