import { z } from "zod";

/** At least this long, like LOADOUT_SECRET_KEY itself. */
const MIN_LENGTH = 32;

/**
 * LOADOUT_PREVIOUS_SECRET_KEYS, for both hosts: earlier values of LOADOUT_SECRET_KEY, separated by
 * commas (a base64 key has none). Unset or empty is no key. A key too short is refused by its
 * place in the list, never by its value.
 */
export const previousSecretKeys = z
  .string()
  .optional()
  .transform((text, ctx) => {
    const keys = (text ?? "")
      .split(",")
      .map((key) => key.trim())
      .filter((key) => key !== "");
    keys.forEach((key, i) => {
      if (key.length < MIN_LENGTH)
        ctx.addIssue({
          code: "custom",
          message: `key ${i + 1} of ${keys.length} has ${key.length} characters; each earlier LOADOUT_SECRET_KEY has at least ${MIN_LENGTH} (separate keys with commas)`,
        });
    });
    return keys;
  });
