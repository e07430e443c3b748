/**
 * MCP's log levels (RFC 5424's severities, least severe first), as `logging/setLevel` names them and
 * `notifications/message` carries them.
 */
export const LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const isLogLevel = (value: unknown): value is LogLevel =>
  typeof value === "string" && (LOG_LEVELS as readonly string[]).includes(value);

/**
 * Whether a message at `level` is told to a client that set `least` (null: it set none, and hears
 * every message, as a server sends them until told otherwise). A message without a known level is
 * told: the level is the upstream's to give, and dropping what it sent would hide it.
 */
export function heard(least: LogLevel | null, level: unknown): boolean {
  if (least === null || !isLogLevel(level)) return true;
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(least);
}
