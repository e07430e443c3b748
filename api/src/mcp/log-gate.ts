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

/**
 * A 2025 session's level applied to the log messages of one request (see legacy-levels.ts). The
 * level is read when the first message comes, not before: most calls hear none, and then nothing
 * is read. Messages keep their order, and wait for that read; a level that cannot be read lets
 * every message through, as a session that set none hears them.
 */
export function logGate(
  levelOf: () => Promise<LogLevel | null>,
  send: (notification: Notification) => void | Promise<void>,
): LogGate {
  let level: Promise<LogLevel | null> | undefined;
  let queue: Promise<void> = Promise.resolve();
  return {
    notify(notification) {
      if (notification.method !== "notifications/message") {
        void send(notification);
        return;
      }
      level ??= levelOf().catch(() => null);
      const read = level;
      queue = queue.then(async () => {
        // Sent before the next (and before the answer, which waits for settled).
        if (heard(await read, notification.params?.level)) await send(notification);
      });
    },
    settled: () => queue,
  };
}
