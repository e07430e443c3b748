/**
 * The constraint a unique violation hit, or null. Drizzle wraps driver errors, and postgres.js
 * and PGlite name the constraint differently, so both shapes are read here, once.
 */
export function uniqueViolation(error: unknown): string | null {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === "object"; depth++) {
    const e = current as { code?: unknown; constraint?: unknown; constraint_name?: unknown; cause?: unknown };
    if (e.code === "23505") {
      const name = e.constraint_name ?? e.constraint;
      return typeof name === "string" ? name : "";
    }
    current = e.cause;
  }
  return null;
}
