import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { safeEqual } from "../auth/secrets";

/** What a 2025-era client said of itself in its handshake. */
export interface LegacyHandshake {
  name: string;
  version: string;
  protocolVersion: string | null;
  /**
   * What the client said it can be asked for (elicitation, sampling, roots), so that an upstream's
   * server-to-client requests can be carried onto its later calls' streams (see legacy-input.ts).
   */
  capabilities?: Record<string, Record<string, unknown>>;
  /** It negotiated MCP Apps (see domain/apps/ui.ts): its tools are listed with their views. */
  apps?: true;
}

/** The client capabilities a session id carries: the ones a server may ask a client to use. */
const ASKABLE = ["elicitation", "sampling", "roots"] as const;
/** A capability's own settings are kept while they are this small; past it, only that it was declared. */
const SETTINGS_LIMIT = 256;

/** The askable capabilities of an initialize's declared ones, bounded (the id is a header). */
export function askableCapabilities(declared: unknown): Record<string, Record<string, unknown>> | undefined {
  if (!declared || typeof declared !== "object") return undefined;
  const kept: Record<string, Record<string, unknown>> = {};
  for (const name of ASKABLE) {
    const value = (declared as Record<string, unknown>)[name];
    if (!value || typeof value !== "object" || Array.isArray(value)) continue;
    kept[name] = JSON.stringify(value).length <= SETTINGS_LIMIT ? (value as Record<string, unknown>) : {};
  }
  return Object.keys(kept).length ? kept : undefined;
}

const PREFIX = "lo1.";
/** Decoded ids kept (each a few hundred bytes); any instance can decode any id again. */
const REMEMBERED = 1024;

/**
 * Loadout serves 2025-era clients statelessly, so after `initialize` a request says nothing of its
 * client. The handshake is carried instead in the `Mcp-Session-Id` Loadout answers `initialize`
 * with, which the client sends back on every request: the client's name, version and revision,
 * with a value drawn for this handshake (so that the id names one session, as MCP asks), signed
 * with a key of this deployment, so any instance reads it and nobody can forge another client's.
 * It holds no state and grants nothing: authorization stays with the bearer token.
 */
export function legacySessions(key: Uint8Array) {
  const decoded = new Map<string, LegacyHandshake | null>();
  const mac = (payload: string) => bytesToHex(hmac(sha256, key, utf8ToBytes(payload))).slice(0, 32);
  return {
    encode(handshake: LegacyHandshake): string {
      // The last field is drawn for each handshake: two clients that say the same of themselves
      // (two windows of one editor, on one token) are two sessions, whose subscriptions, log
      // level, cancellations and answers to an upstream's requests are their own. Ids made before
      // it (five fields at most) still read.
      const fields: unknown[] = [
        handshake.name,
        handshake.version,
        handshake.protocolVersion,
        handshake.capabilities ?? null,
        handshake.apps ? 1 : 0,
        bytesToHex(crypto.getRandomValues(new Uint8Array(12))),
      ];
      const payload = base64url(JSON.stringify(fields));
      return `${PREFIX}${payload}.${mac(payload)}`;
    },
    /** The handshake an id carries, or null for an id that is not one of ours (or was altered). */
    decode(id: string): LegacyHandshake | null {
      const known = decoded.get(id);
      if (known !== undefined) return known;
      const handshake = read(id, mac);
      if (decoded.size >= REMEMBERED) decoded.clear();
      decoded.set(id, handshake);
      return handshake;
    },
  };
}

export type LegacySessions = ReturnType<typeof legacySessions>;

function read(id: string, mac: (payload: string) => string): LegacyHandshake | null {
  if (!id.startsWith(PREFIX) || id.length > 1024) return null;
  const dot = id.lastIndexOf(".");
  const payload = id.slice(PREFIX.length, dot);
  if (dot <= PREFIX.length || !safeEqual(id.slice(dot + 1), mac(payload))) return null;
  try {
    const [name, version, protocolVersion, declared, apps] = JSON.parse(unbase64url(payload)) as unknown[];
    if (typeof name !== "string" || typeof version !== "string") return null;
    const capabilities = askableCapabilities(declared);
    return {
      name,
      version,
      protocolVersion: typeof protocolVersion === "string" ? protocolVersion : null,
      ...(capabilities ? { capabilities } : {}),
      ...(apps === 1 ? { apps: true as const } : {}),
    };
  } catch {
    return null;
  }
}

function base64url(text: string): string {
  let binary = "";
  for (const byte of utf8ToBytes(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function unbase64url(text: string): string {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}
