export type LogLevel = "debug" | "info" | "warn" | "error";

export interface Logger {
  log(level: LogLevel, message: string, fields?: Record<string, unknown>): void;
}

/** One JSON object per line on stdout: what log collectors on every platform read. Callers never pass secrets. */
export const jsonLogger: Logger = {
  log(level, message, fields) {
    const line = JSON.stringify({ time: new Date().toISOString(), level, msg: message, ...fields });
    if (level === "error") console.error(line);
    else console.log(line);
  },
};

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
