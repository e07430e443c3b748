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

/** postgres.js's own codes for a connection that failed, ended or timed out. */
const DRIVER_CODES = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/**
 * Whether an error says the database is out of reach (stopped, restarting, refusing connections,
 * a connection that broke), rather than that a query was wrong: such a request is answered
 * `unavailable`, and the same request may succeed once the database is back. SQLSTATE class 08
 * is a connection exception; 57P01-57P03 a server shutting down, crashed or starting; 53300 a
 * server out of connections.
 */
export function databaseUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === "object"; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") {
      if (DRIVER_CODES.has(code)) return true;
      if (/^(08...|57P0[123]|53300)$/.test(code)) return true;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** Whether an error is a foreign-key violation (SQLSTATE 23503): a row naming something that is gone. */
export function foreignKeyViolation(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === "object"; depth++) {
    if ((current as { code?: unknown }).code === "23503") return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
