import { scrypt } from "node:crypto";
import { type ScryptImpl, scryptMaxmem } from "./password";

/** Node only: native scrypt gives the same bytes as the portable one, computed on the thread pool. */
export const nodeScrypt: ScryptImpl = (password, salt, params) =>
  new Promise((resolve, reject) =>
    scrypt(
      password,
      salt,
      params.dkLen,
      { N: params.N, r: params.r, p: params.p, maxmem: scryptMaxmem(params) },
      (error, key) => (error ? reject(error) : resolve(new Uint8Array(key))),
    ),
  );
