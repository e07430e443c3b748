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

/** Requests a person watching `npm start` cares about: the API, MCP and OAuth, not the console's files. */
const HUMAN_PATHS = /^\/(?:v1\/|mcp(?:\/|$)|oauth\/|\.well-known\/)/;

const clockTime = (date: Date) => date.toISOString().slice(11, 19);

function fieldText(fields: Record<string, unknown>): string {
  return Object.entries(fields)
    .map(([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join(" ");
}

/**
 * Local mode's terminal: one short line per API or MCP request (`12:04:31 POST /v1/tokens 201 8ms`),
 * other messages with their level. Requests for the console's pages and scripts are not shown: they
 * would bury the lines that matter.
 */
export function humanLineLogger(write: (line: string, level: LogLevel) => void, now = () => new Date()): Logger {
  return {
    log(level, message, fields = {}) {
      const time = clockTime(now());
      if (message === "request") {
        const { method, path, status, ms, requestId } = fields;
        if (typeof path !== "string" || !HUMAN_PATHS.test(path)) return;
        const tail = level === "error" ? `  request ${String(requestId)}` : "";
        write(`${time} ${String(method)} ${path} ${String(status)} ${Math.round(Number(ms))}ms${tail}`, level);
        return;
      }
      const rest = fieldText(fields);
      write(`${time} ${level} ${message}${rest ? `  ${rest}` : ""}`, level);
    },
  };
}

/**
 * Prints the one-time setup link again while no account exists, each time the console asks
 * whether setup is needed (`GET /v1/auth/setup`), so the link is never lost up the scroll.
 * The link goes to the terminal only, never into an answer. Stops once an account is created.
 */
export function withSetupReminder(
  inner: Logger,
  print: (text: string) => void,
): Logger & { remind(setupUrl: string | null): void } {
  let setupUrl: string | null = null;
  return {
    remind(url) {
      setupUrl = url;
    },
    log(level, message, fields) {
      inner.log(level, message, fields);
      if (!setupUrl || message !== "request" || !fields) return;
      const { method, path, status } = fields;
      if (path !== "/v1/auth/setup" && path !== "/v1/auth/signup") return;
      if (method === "POST" && status === 201) setupUrl = null;
      else if (method === "GET")
        print(`No account exists yet. Create the first one with this one-time link:\n  ${setupUrl}`);
    },
  };
}

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
