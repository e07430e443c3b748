export type LogLevel = "debug" | "info" | "warn" | "error";

export interface Logger {
  log(level: LogLevel, message: string, fields?: Record<string, unknown>): void;
}

/** One JSON object per line: what log collectors on every platform read. Callers never pass secrets. */
export function jsonLineLogger(write: (line: string, level: LogLevel) => void): Logger {
  return {
    log(level, message, fields) {
      write(JSON.stringify({ time: new Date().toISOString(), level, msg: message, ...fields }), level);
    },
  };
}

/** JSON lines through the console: Workers' log pipeline reads it. */
export const jsonLogger: Logger = jsonLineLogger((line, level) =>
  level === "error" ? console.error(line) : console.log(line),
);

export const silentLogger: Logger = { log() {} };

/** Keeps entries in memory: for tests that assert what was (and was not) logged. */
export function memoryLogger(): Logger & { entries: Array<Record<string, unknown>> } {
  const entries: Array<Record<string, unknown>> = [];
  return {
    entries,
    log(level, message, fields) {
      entries.push({ level, msg: message, ...fields });
    },
  };
}
