import type { ServerEvent, ServerEventBus } from "@modelcontextprotocol/server";
import { LEGACY_STREAM_HEADERS, legacyEvent } from "./encode";
import { CHANGE_EVENTS } from "./list-changes";

/** The 2025 notification each change event is told as. */
const NOTIFICATIONS: Record<ServerEvent["kind"], string> = {
  tools_list_changed: "notifications/tools/list_changed",
  prompts_list_changed: "notifications/prompts/list_changed",
  resources_list_changed: "notifications/resources/list_changed",
  resource_updated: "notifications/resources/updated",
};

export interface LegacyListenOptions {
  /** A comment is written this often, so that proxies and load balancers keep an idle stream. */
  keepAliveMs?: number;
  /**
   * The stream ends after this long, and the client opens it again (the SDK's clients reconnect a
   * GET stream that ends). It bounds what a stream whose client vanished unnoticed costs: local
   * workerd never tells a Worker that its client left.
   */
  maxMs?: number;
  /** Only the events this accepts are told (a resource update the session subscribed to, say). */
  accept?: (event: ServerEvent) => boolean;
  /** The stream ends when this aborts (the host shutting down). */
  endWhen?: AbortSignal;
  /**
   * Whether the stream's credentials still hold, asked before a list change is told (a token's
   * revocation is one): when they no longer do, the stream ends without telling it.
   */
  stillAllowed?: () => Promise<boolean>;
  /**
   * Where the client's lists stand now (a cursor over its counters, services/cache/stamps.ts),
   * given as the id of the event that brings the client up to date: the priming event, or the
   * last of the list changes told. A client that reconnects sends the last it heard as
   * `Last-Event-ID`. Rejects (or is absent) when it cannot say: events then go without an id.
   */
  cursor?: () => Promise<string>;
  /** The client's `Last-Event-ID`: when it differs from the cursor now, its lists changed while no stream was open. */
  resumedFrom?: string;
  /**
   * Whether the stream opens with a `retry` field and a priming event (an id and no data), which
   * MCP asks of servers since 2025-11-25 (SEP-1699). A client of an earlier revision may read an
   * event without data as a malformed message, so it gets neither: the ids of the changes told
   * still let it resume.
   */
  primes?: boolean;
}

/** The first revision whose clients expect a priming event and `retry` (SEP-1699). */
export const PRIMING_REVISION = "2025-11-25";

export const KEEP_ALIVE_MS = 20_000;
export const LEGACY_LISTEN_MAX_MS = 5 * 60_000;
/** How long a client waits before it opens a stream that ended again (the SSE `retry` field). */
export const LEGACY_RETRY_MS = 1_000;

/**
 * A 2025-era client's standalone stream (its `GET` with the session id Loadout gave it): the
 * 2025 counterpart of a 2026-07-28 `subscriptions/listen` stream, fed by the same event bus (see
 * list-changes.ts), each event told as its 2025 notification. It carries no responses.
 *
 * It is resumed by state, not by replay: Loadout serves 2025 clients statelessly and keeps no
 * events. The id of the event that brings the client up to date is a cursor over the counters
 * its lists depend on; a client that reconnects with a `Last-Event-ID` other than the cursor now
 * is told at once that its lists changed, which is all the events it missed would have said. An
 * upstream's resource update told while no stream was open is not told again.
 */
export function legacyListenStream(bus: ServerEventBus, options: LegacyListenOptions = {}): Response {
  const encoder = new TextEncoder();
  let stop: (() => void) | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let open = true;
      const write = (text: string) => {
        if (!open) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          end();
        }
      };
      const keepAlive = setInterval(() => write(": keep-alive\n\n"), options.keepAliveMs ?? KEEP_ALIVE_MS);
      const close = () => {
        end();
        try {
          controller.close();
        } catch {
          // Already closed by its reader.
        }
      };
      const ends = setTimeout(close, options.maxMs ?? LEGACY_LISTEN_MAX_MS);
      const endWhen = options.endWhen;
      endWhen?.addEventListener("abort", close, { once: true });
      const tell = (event: ServerEvent, id: string | null) => {
        const params = event.kind === "resource_updated" ? { ...event.params, uri: event.uri } : event.params;
        const message = JSON.stringify({
          jsonrpc: "2.0",
          method: NOTIFICATIONS[event.kind],
          ...(params ? { params } : {}),
        });
        write(id === null ? legacyEvent(message) : `id: ${id}\n${legacyEvent(message)}`);
      };
      const { stillAllowed, cursor } = options;
      const cursorNow = () => (cursor ? cursor().catch(() => null) : Promise.resolve(null));
      // The list changes told together (a change is told as three), the last with the cursor.
      const tellChanges = (events: readonly ServerEvent[], id: string | null) => {
        events.forEach((event, i) => {
          tell(event, i === events.length - 1 ? id : null);
        });
      };
      // List changes are told one batch after another, in order: each is checked, then the cursor
      // read, before it is told.
      let told: Promise<void> = Promise.resolve();
      let batch: ServerEvent[] | null = null;
      const unsubscribe = bus.subscribe((event) => {
        if (options.accept && !options.accept(event)) return;
        if (event.kind === "resource_updated") return tell(event, null);
        if (batch) {
          // A change heard while the batch waits joins it, told once.
          if (!batch.some((waiting) => waiting.kind === event.kind)) batch.push(event);
          return;
        }
        const events = [event];
        batch = events;
        told = told.then(async () => {
          // The batch's other events are published in the same turn as its first.
          batch = null;
          if (!open) return;
          const allowed = stillAllowed ? await stillAllowed().catch(() => true) : true;
          if (!allowed) return close();
          tellChanges(events, await cursorNow());
        });
      });
      const end = () => {
        if (!open) return;
        open = false;
        clearInterval(keepAlive);
        clearTimeout(ends);
        endWhen?.removeEventListener("abort", close);
        unsubscribe();
      };
      stop = end;
      // Headers and a first byte at once: a client knows the stream is open, and how long to
      // wait before opening it again.
      const primes = options.primes ?? true;
      write(primes ? `: open\nretry: ${LEGACY_RETRY_MS}\n\n` : ": open\n\n");
      if (endWhen?.aborted) return close();
      // Where the client stands: a priming event (its id, no data), or, when its lists changed
      // while it had no stream open, their changes, told at once.
      told = told.then(async () => {
        if (!open) return;
        const now = await cursorNow();
        const resumed = options.resumedFrom;
        if (resumed !== undefined && resumed !== now) tellChanges(CHANGE_EVENTS, now);
        else if (now !== null && primes) write(`id: ${now}\ndata: \n\n`);
      });
    },
    cancel() {
      stop?.();
    },
  });
  return new Response(body, { status: 200, headers: { ...LEGACY_STREAM_HEADERS } });
}
