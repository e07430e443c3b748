/// <reference path="./cloudflare-workers.d.ts" />
import { DurableObject, type DurableObjectState, WorkerEntrypoint } from "cloudflare:workers";
import { dohResolver } from "./doh-resolver";
import { type FetchGuard, guardedFetch } from "./guarded-fetch";
import { Mailbox } from "./mailbox";
import { type CallOptions, type RequestOptions, UpstreamPool, type UpstreamTarget, type UpstreamTool } from "./pool";
import { credentialIdentity, sessionObjectName } from "./proxy";
import type { ProxyBinding, WireCallOptions, WireRequestOptions } from "./proxy-client";
import { RunningCalls } from "./running-calls";
import { watchStream } from "./watch-stream";
import { wired } from "./wire";

/**
 * The proxy Worker: upstream MCP sessions in Durable Objects, one per server, generation and whose
 * credentials, each running the same UpstreamPool as the Node host. The api Worker reaches it
 * through an RPC service binding (ProxyClient); secrets arrive opened with each call, in the
 * target, and live only in the object's memory, never in its storage.
 */

/** The SSRF rule, judged on text (the api's domain/servers/address-policy.ts, passed in by the entry). */
export interface AddressPolicy {
  urlProblem(url: string, allowLoopback: boolean): string | null;
  addressProblem(ip: string, allowLoopback: boolean): string | null;
}

/** One Durable Object as its stub shows it: the entrypoint's methods, addressed to this object alone. */
type SessionsStub = Omit<ProxyBinding, "drop" | "cancel" | "post" | "take" | "watchResource" | "unwatch"> & {
  drop(): Promise<void>;
  cancel(callId: string): Promise<void>;
  watchResource(target: UpstreamTarget, uri: string, watchId?: string): Promise<ReadableStream<Uint8Array>>;
  unwatch(watchId: string): Promise<void>;
  openSessions(): Promise<number>;
};

interface SessionsNamespace {
  idFromName(name: string): unknown;
  get(id: unknown): SessionsStub;
}

/** A client's mailbox object as its stub shows it (see mailbox.ts). */
interface MailboxStub {
  post(key: string, message: unknown): Promise<void>;
  take(key: string, ms: number): Promise<unknown>;
}

interface MailboxNamespace {
  idFromName(name: string): unknown;
  get(id: unknown): MailboxStub;
}

/** The api Worker's entrypoint that stores a list an upstream announced (api/src/worker.ts). */
interface ToolsChangedBinding {
  toolsChanged(target: Pick<UpstreamTarget, "id" | "generation">, tools: UpstreamTool[]): Promise<void>;
  /**
   * The upstream said its prompts or resources changed: the api lists them again through this
   * object (the target as the call that opened the session sent it, secrets opened) and stores them.
   */
  itemsChanged?(target: UpstreamTarget): Promise<void>;
}

export interface ProxyEnv {
  SESSIONS: SessionsNamespace;
  /**
   * One object per 2025 client session and credentials, carrying its messages between api
   * isolates (mailbox.ts). Without it they are not carried at all: a posted message is dropped and
   * a take answers null (infra/wrangler.proxy.jsonc binds it).
   */
  MAILBOXES?: MailboxNamespace;
  LOADOUT_API?: ToolsChangedBinding;
  /** `1`: upstreams on loopback are allowed (dev:workers and tests). */
  LOADOUT_ALLOW_LOOPBACK_UPSTREAMS?: string;
  /** How long an object keeps its sessions unused before its alarm closes them (default 60 s). */
  LOADOUT_UPSTREAM_IDLE_MS?: string;
  /** The DNS-over-HTTPS endpoint of the SSRF guard (default Cloudflare's). */
  LOADOUT_DOH_URL?: string;
}

const DEFAULT_IDLE_MS = 60_000;
/** A promise from a callback stub, whose failure (the caller left) changes nothing here. */
const quietly = (value: unknown) => {
  Promise.resolve(value).catch(() => {});
};

function requestOptions(wire: WireRequestOptions, running: RunningCalls): RequestOptions {
  const { onNotification } = wire;
  return {
    ...(wire.logLevel ? { logLevel: wire.logLevel } : {}),
    ...(wire.clientCapabilities ? { clientCapabilities: wire.clientCapabilities } : {}),
    ...(onNotification ? { onNotification: (n) => quietly(onNotification(n)) } : {}),
    ...running.whenGone(wire.callId),
  };
}

function callOptions(wire: WireCallOptions, running: RunningCalls): CallOptions {
  const { onProgress } = wire;
  return {
    ...requestOptions(wire, running),
    planSafeActions: Array.isArray(wire.planSafeActions) ? wire.planSafeActions : null,
    ...(wire.inputRequired ? { inputRequired: wire.inputRequired } : {}),
    ...(onProgress ? { onProgress: (p) => quietly(onProgress(p)) } : {}),
  };
}

/** A target as the api sends it; anything else is refused before a session is opened. */
function checkedTarget(target: UpstreamTarget): UpstreamTarget {
  if (
    !target ||
    typeof target.id !== "string" ||
    !Number.isInteger(target.generation) ||
    typeof target.url !== "string" ||
    typeof target.headers !== "object"
  )
    throw new Error("the upstream proxy was sent a target it cannot read");
  return target;
}

/** The Durable Object and the entrypoint, bound to the SSRF rule the entry passes in. */
export function proxyWorker(policy: AddressPolicy) {
  /** The upstream sessions of one server, at one generation, on one identity's credentials. */
  class UpstreamSessions extends DurableObject<ProxyEnv> implements SessionsStub {
    private readonly pool: UpstreamPool;
    private readonly idleMs: number;
    private readonly running = new RunningCalls();
    /** Resource watches open on this object's sessions: they keep it from closing them as idle. */
    private watching = 0;
    /** How to stop each watch that was given an id (see unwatch). */
    private readonly watches = new Map<string, () => void>();
    private lastUsed = 0;
    private armed = false;

    constructor(ctx: DurableObjectState, env: ProxyEnv) {
      super(ctx, env);
      const allowLoopback = env.LOADOUT_ALLOW_LOOPBACK_UPSTREAMS === "1";
      const idle = Number(env.LOADOUT_UPSTREAM_IDLE_MS);
      this.idleMs = Number.isInteger(idle) && idle > 0 ? idle : DEFAULT_IDLE_MS;
      const guard: FetchGuard = {
        urlProblem: (url) => policy.urlProblem(url, allowLoopback),
        addressProblem: (ip) => policy.addressProblem(ip, allowLoopback),
        // The same resolver as the api Worker's (answers kept for their TTL); its endpoint is settable for tests.
        resolve: dohResolver(env.LOADOUT_DOH_URL ? { url: env.LOADOUT_DOH_URL } : {}),
      };
      const upstreamFetch = guardedFetch(guard, (input, init) => fetch(input, init));
      this.pool = new UpstreamPool({
        fetchFor: () => upstreamFetch,
        // The object's alarm closes idle sessions; the pool's own sweep is only a backstop.
        idleMs: this.idleMs * 2,
        onToolsChanged: (target, tools) => {
          const api = env.LOADOUT_API;
          if (api) quietly(api.toolsChanged({ id: target.id, generation: target.generation }, tools));
        },
        onItemsChanged: (target) => {
          const api = env.LOADOUT_API;
          if (api?.itemsChanged) quietly(api.itemsChanged(target));
        },
      });
    }

    /** Marks the object used, and arms its idle alarm if none is set. */
    private used() {
      this.lastUsed = Date.now();
      if (this.armed) return;
      this.armed = true;
      quietly(this.ctx.storage.setAlarm(this.lastUsed + this.idleMs));
    }

    /** Closes the sessions once nothing used them for the idle time; else waits the rest of it. */
    async alarm(): Promise<void> {
      const due = this.lastUsed + this.idleMs;
      if (this.watching > 0) {
        await this.ctx.storage.setAlarm(Date.now() + this.idleMs);
        return;
      }
      if (this.lastUsed && due > Date.now()) {
        await this.ctx.storage.setAlarm(due);
        return;
      }
      this.armed = false;
      await this.pool.close();
    }

    listTools(target: UpstreamTarget, fresh: boolean) {
      this.used();
      return wired(() => this.pool.listTools(checkedTarget(target), { fresh: fresh === true }));
    }

    callTool(
      target: UpstreamTarget,
      tool: string,
      args: Record<string, unknown> | undefined,
      options: WireCallOptions,
    ) {
      this.used();
      // The pool checks plan safety again here (the third layer), whatever the api decided.
      return wired(() =>
        this.running.run(options.callId, () =>
          this.pool.callTool(checkedTarget(target), String(tool), args, callOptions(options, this.running)),
        ),
      );
    }

    request(
      target: UpstreamTarget,
      method: string,
      params: Record<string, unknown> | undefined,
      options: WireRequestOptions,
    ) {
      this.used();
      return wired(() =>
        this.running.run(options.callId, () =>
          this.pool.request(checkedTarget(target), String(method), params, requestOptions(options, this.running)),
        ),
      );
    }

    capabilities(target: UpstreamTarget) {
      this.used();
      return wired(() => this.pool.capabilities(checkedTarget(target)));
    }

    /**
     * A resource subscription held while the returned stream is read (see watch-stream.ts), or
     * until `unwatch` names its id: a reader's cancel does not always reach the object across RPC
     * (local workerd never passes it on), and a subscription the client let go must not be held.
     */
    async watchResource(target: UpstreamTarget, uri: string, watchId?: string): Promise<ReadableStream<Uint8Array>> {
      this.used();
      this.watching++;
      const id = typeof watchId === "string" ? watchId : undefined;
      return watchStream(
        (onUpdated) => this.pool.watchResource(checkedTarget(target), String(uri), onUpdated),
        () => {
          this.watching--;
          if (id) this.watches.delete(id);
          this.used();
        },
        (stop) => {
          if (id) this.watches.set(id, stop);
        },
      );
    }

    async unwatch(watchId: string): Promise<void> {
      this.watches.get(String(watchId))?.();
    }

    async drop(): Promise<void> {
      await this.pool.close();
    }

    async cancel(callId: string): Promise<void> {
      this.running.cancel(String(callId));
    }

    /** Open upstream sessions (for operators and tests: an edit leaves the old object to close). */
    async openSessions(): Promise<number> {
      return this.pool.size;
    }
  }

  /** The RPC surface the api Worker's service binding calls: each call goes to its target's object. */
  class UpstreamProxyEntrypoint extends WorkerEntrypoint<ProxyEnv> implements ProxyBinding {
    private objectFor(serverId: string, generation: number, identity: string): SessionsStub {
      const namespace = this.env.SESSIONS;
      return namespace.get(namespace.idFromName(sessionObjectName(serverId, generation, identity)));
    }

    private objectOf(target: UpstreamTarget): SessionsStub {
      const checked = checkedTarget(target);
      return this.objectFor(checked.id, checked.generation, credentialIdentity(checked.credential?.owner));
    }

    listTools(target: UpstreamTarget, fresh: boolean) {
      return this.objectOf(target).listTools(target, fresh);
    }

    callTool(
      target: UpstreamTarget,
      tool: string,
      args: Record<string, unknown> | undefined,
      options: WireCallOptions,
    ) {
      return this.objectOf(target).callTool(target, tool, args, options);
    }

    request(
      target: UpstreamTarget,
      method: string,
      params: Record<string, unknown> | undefined,
      options: WireRequestOptions,
    ) {
      return this.objectOf(target).request(target, method, params, options);
    }

    capabilities(target: UpstreamTarget) {
      return this.objectOf(target).capabilities(target);
    }

    drop(serverId: string, generation: number, identity: string) {
      return this.objectFor(serverId, generation, identity).drop();
    }

    cancel(target: UpstreamTarget, callId: string) {
      return this.objectOf(target).cancel(callId);
    }

    watchResource(target: UpstreamTarget, uri: string, watchId?: string) {
      return this.objectOf(target).watchResource(target, uri, watchId);
    }

    unwatch(target: UpstreamTarget, watchId: string) {
      return this.objectOf(target).unwatch(watchId);
    }

    openSessions(serverId: string, generation: number, identity: string) {
      return this.objectFor(serverId, generation, identity).openSessions();
    }

    private mailboxOf(owner: string): MailboxStub | undefined {
      if (typeof owner !== "string" || !owner) throw new Error("a mailbox is addressed by its owner");
      const namespace = this.env.MAILBOXES;
      return namespace?.get(namespace.idFromName(owner));
    }

    async post(owner: string, key: string, message: unknown): Promise<void> {
      await this.mailboxOf(owner)?.post(String(key), message);
    }

    async take(owner: string, key: string, ms: number): Promise<unknown> {
      const mailbox = this.mailboxOf(owner);
      return mailbox ? mailbox.take(String(key), Number(ms) || 0) : null;
    }
  }

  /** A 2025 client session's messages between api isolates (mailbox.ts), in memory. */
  class ClientMailbox extends DurableObject<ProxyEnv> implements MailboxStub {
    private readonly mailbox = new Mailbox<unknown>();

    async post(key: string, message: unknown): Promise<void> {
      this.mailbox.post(key, message);
    }

    take(key: string, ms: number): Promise<unknown> {
      return this.mailbox.take(key, ms);
    }
  }

  return {
    UpstreamSessions,
    ClientMailbox,
    UpstreamProxyEntrypoint,
    /** The proxy has no public HTTP surface: it is reached through its service binding only. */
    fetch: () =>
      Response.json(
        {
          error: {
            code: "not_found",
            message: "Loadout's upstream proxy is reached through a service binding, not over HTTP.",
          },
        },
        { status: 404 },
      ),
  };
}
