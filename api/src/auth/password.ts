import { scryptAsync } from "@noble/hashes/scrypt.js";
import { bytesToHex, hexToBytes, randomBytes, utf8ToBytes } from "@noble/hashes/utils.js";

/**
 * Password hashing: scrypt at OWASP's N=2^14, r=8, p=5 (16 MiB per hash).
 *
 * Why scrypt and these parameters: the hash must run the same on Node and on Workers.
 * PBKDF2 through WebCrypto is capped at 100,000 iterations on Cloudflare's production runtime
 * (OWASP asks 600,000), and WebAssembly argon2 cannot be compiled from bytes there. scrypt from
 * @noble/hashes is plain JavaScript; of OWASP's equivalent scrypt settings this one needs the
 * least memory (Workers isolates have 128 MB) and the least CPU. The Node entry passes Node's
 * native scrypt, which gives identical bytes off the event loop; a test holds the two equal.
 *
 * Each stored hash carries its scheme and parameters (`scrypt$ln=14,r=8,p=5$salt$hash`), so the
 * parameters can be raised later and old hashes still verify (`needsRehash` tells when).
 */
export interface ScryptParams {
  N: number;
  r: number;
  p: number;
  dkLen: number;
}

export type ScryptImpl = (password: Uint8Array, salt: Uint8Array, params: ScryptParams) => Promise<Uint8Array>;

export const OWASP_SCRYPT: ScryptParams = { N: 2 ** 14, r: 8, p: 5, dkLen: 32 };

/** scrypt needs 128·N·r bytes (plus 128·r·p); both implementations refuse less than this ceiling. */
export const scryptMaxmem = (params: ScryptParams) => 256 * params.N * params.r * params.p + 1024 * 1024;

export const nobleScrypt: ScryptImpl = (password, salt, params) =>
  scryptAsync(password, salt, { ...params, maxmem: scryptMaxmem(params), asyncTick: 20 });

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, stored: string): Promise<{ ok: boolean; needsRehash: boolean }>;
  /** Spends the same work as a verify, for unknown accounts, so that timing does not tell. */
  burn(password: string): Promise<void>;
}

interface Parsed {
  params: ScryptParams;
  salt: Uint8Array;
  hash: Uint8Array;
}

function parse(stored: string): Parsed | null {
  const parts = stored.split("$");
  if (parts.length !== 4 || parts[0] !== "scrypt") return null;
  const [, paramText = "", saltHex = "", hashHex = ""] = parts;
  const fields = new Map(paramText.split(",").map((kv) => kv.split("=") as [string, string]));
  const ln = Number(fields.get("ln"));
  const r = Number(fields.get("r"));
  const p = Number(fields.get("p"));
  if (![ln, r, p].every((n) => Number.isInteger(n) && n > 0) || ln > 20) return null;
  if (!/^[0-9a-f]+$/.test(saltHex) || !/^[0-9a-f]+$/.test(hashHex)) return null;
  const hash = hexToBytes(hashHex);
  return { params: { N: 2 ** ln, r, p, dkLen: hash.length }, salt: hexToBytes(saltHex), hash };
}

function format(params: ScryptParams, salt: Uint8Array, hash: Uint8Array): string {
  return `scrypt$ln=${Math.log2(params.N)},r=${params.r},p=${params.p}$${bytesToHex(salt)}$${bytesToHex(hash)}`;
}

function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}

export function createPasswordHasher(
  impl: ScryptImpl = nobleScrypt,
  params: ScryptParams = OWASP_SCRYPT,
): PasswordHasher {
  const dummySalt = randomBytes(16);
  return {
    async hash(password) {
      const salt = randomBytes(16);
      return format(params, salt, await impl(utf8ToBytes(password), salt, params));
    },
    async verify(password, stored) {
      const parsed = parse(stored);
      if (!parsed) return { ok: false, needsRehash: true };
      const actual = await impl(utf8ToBytes(password), parsed.salt, parsed.params);
      const ok = constantTimeEqual(actual, parsed.hash);
      const same = parsed.params.N === params.N && parsed.params.r === params.r && parsed.params.p === params.p;
      return { ok, needsRehash: ok && !same };
    },
    async burn(password) {
      await impl(utf8ToBytes(password), dummySalt, params);
    },
  };
}
