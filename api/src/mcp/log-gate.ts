import { heard, type LogLevel } from "../domain/mcp/log-levels";

/** A notification an upstream sent during a request (only log messages are gated). */
interface Notification {
  method: string;
  params?: Record<string, unknown>;
}

export interface LogGate {
  /** Passes a notification on to `send`, a log message only at or above the session's level. */
  notify(notification: Notification): void;
  /** Resolves once everything given to notify has been passed on or dropped: await it before the answer. */
  settled(): Promise<void>;
}

/** How long messages wait for the session's level before they pass as if it set none (the database slow or away). */
export const LEVEL_WAIT_MS = 1_000;

/**
 * A 2025 session's level applied to the log messages of one request (see legacy-levels.ts). The
 * level is read when the first message comes, not before: most calls hear none, and then nothing
 * is read. Messages keep their order, and wait for that read; a level that cannot be read, or not
 * within `waitMs`, lets every message through, as a session that set none hears them, so that the
 * answer, which waits for its messages, is not held by the database.
 */
export function logGate(
  levelOf: () => Promise<LogLevel | null>,
  send: (notification: Notification) => void | Promise<void>,
  waitMs = LEVEL_WAIT_MS,
): LogGate {
  let level: Promise<LogLevel | null> | undefined;
  let queue: Promise<void> = Promise.resolve();
  return {
    notify(notification) {
      if (notification.method !== "notifications/message") {
        void send(notification);
        return;
      }
      level ??= new Promise<LogLevel | null>((resolve) => {
        const late = setTimeout(() => resolve(null), waitMs);
        levelOf()
          .then(resolve, () => resolve(null))
          .finally(() => clearTimeout(late));
      });
      const read = level;
      queue = queue.then(async () => {
        // Sent before the next (and before the answer, which waits for settled).
        if (heard(await read, notification.params?.level)) await send(notification);
      });
    },
    settled: () => queue,
  };
}
