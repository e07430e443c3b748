import type { ServerEvent, ServerEventBus } from "@modelcontextprotocol/server";
import { LEGACY_STREAM_HEADERS, legacyEvent } from "./encode";

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
}

export const KEEP_ALIVE_MS = 20_000;
export const LEGACY_LISTEN_MAX_MS = 5 * 60_000;

/**
 * A 2025-era client's standalone stream (its `GET` with the session id Loadout gave it): the
 * 2025 counterpart of a 2026-07-28 `subscriptions/listen` stream, fed by the same event bus (see
 * list-changes.ts), each event told as its 2025 notification. It carries no responses and no
 * event ids: Loadout serves 2025 clients statelessly, so a stream is not resumed, and a change
 * told while none is open is not told again (the client lists again when it reconnects).
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
      const tell = (event: ServerEvent) => {
        const params = event.kind === "resource_updated" ? { ...event.params, uri: event.uri } : event.params;
        write(
          legacyEvent(
            JSON.stringify({ jsonrpc: "2.0", method: NOTIFICATIONS[event.kind], ...(params ? { params } : {}) }),
          ),
        );
      };
      // One check for the list changes told together (a change is told as three), in their order.
      let checking: Promise<boolean> | null = null;
      const stillAllowed = options.stillAllowed;
      const unsubscribe = bus.subscribe((event) => {
        if (options.accept && !options.accept(event)) return;
        if (!stillAllowed || event.kind === "resource_updated") return tell(event);
        checking ??= stillAllowed().then(
          (allowed) => {
            checking = null;
            return allowed;
          },
          () => {
            checking = null;
            return true;
          },
        );
        void checking.then((allowed) => (allowed ? tell(event) : close()));
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
      // Headers and a first byte at once: a client knows the stream is open.
      write(": open\n\n");
      if (endWhen?.aborted) close();
    },
    cancel() {
      stop?.();
    },
  });
  return new Response(body, { status: 200, headers: { ...LEGACY_STREAM_HEADERS } });
}
