/**
 * Prefixed, time-ordered ids (`usr_01j…`): 48 bits of milliseconds then 80 random bits,
 * in lowercase Crockford base32, so ids sort by creation time and make stable cursors.
 */
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

export const ID_PREFIXES = {
  user: "usr",
  workspace: "ws",
  session: "ses",
  token: "tok",
  event: "evt",
  skill: "skl",
  skillVersion: "skv",
  project: "prj",
  endpoint: "mep",
  client: "mcc",
  server: "srv",
  oauthClient: "ocl",
  oauthGrant: "ogr",
  oauthAuthorization: "oaz",
  oauthToken: "otk",
  invite: "inv",
  deviceSync: "dsy",
  upstreamRegistration: "uor",
  upstreamState: "uos",
  upstreamConnection: "ucn",
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

function encodeTime(ms: number): string {
  let out = "";
  let rest = ms;
  for (let i = 0; i < 10; i++) {
    out = ALPHABET.charAt(rest % 32) + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

function encodeRandom(bytes: Uint8Array): string {
  // 10 bytes = 80 bits = 16 base32 characters, 5 bits at a time.
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET.charAt((buffer >> bits) & 31);
    }
    buffer &= (1 << bits) - 1;
  }
  return out;
}

// Random bytes are drawn 4 KiB at a time: one call per id cost more than the id (a batch of
// activity rows takes hundreds). Drawn on first use, as Workers refuse random values at load.
const POOL_BYTES = 4096;
let pool: Uint8Array | undefined;
let offset = POOL_BYTES;

function randomTen(): Uint8Array {
  if (!pool || offset + 10 > POOL_BYTES) {
    pool = crypto.getRandomValues(new Uint8Array(POOL_BYTES));
    offset = 0;
  }
  const bytes = pool.subarray(offset, offset + 10);
  offset += 10;
  return bytes;
}

export function newId(kind: IdKind, now: number = Date.now()): string {
  const random = randomTen();
  return `${ID_PREFIXES[kind]}_${encodeTime(now)}${encodeRandom(random)}`;
}

/**
 * The smallest id of `kind` made at `ms` or later: ids sort by time, so a time range is an id
 * range, and a query bounded by time can walk an index on the id.
 */
export function idFloor(kind: IdKind, ms: number): string {
  return `${ID_PREFIXES[kind]}_${encodeTime(Math.max(0, Math.floor(ms)))}`;
}

export function hasPrefix(id: string, kind: IdKind): boolean {
  return id.startsWith(`${ID_PREFIXES[kind]}_`) && /^[a-z]+_[0-9a-z]{26}$/.test(id);
}
