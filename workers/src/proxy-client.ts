import type { CallToolResult } from "@modelcontextprotocol/client";
import type { CallOptions, RelatedNotification, RequestOptions, ResourceUpdated, UpstreamTarget } from "./pool";
import { credentialIdentity, type ToolListing, type UpstreamProxy } from "./proxy";
import { readWatch } from "./watch-stream";
import { unwired, type Wired } from "./wire";

/**
 * A call's options as they cross Workers RPC: callbacks go as function stubs. An AbortSignal
 * cannot cross, and neither can a promise settled later: on Workers the client's cancellation
 * often arrives in another request (a 2025 client's notifications/cancelled), which may not
 * answer an RPC of the call's request. So a cancellable call carries a `callId`, and cancelling
 * it is an RPC of its own (ProxyBinding.cancel), made from whichever request heard it.
 */
export interface WireCallOptions {
  planSafeActions: readonly string[] | null;
  logLevel?: string;
  inputRequired?: CallOptions["inputRequired"];
  clientCapabilities?: Record<string, unknown>;
  onProgress?: CallOptions["onProgress"];
  onNotification?: (notification: RelatedNotification) => void;
  callId?: string;
}

export type WireRequestOptions = Omit<WireCallOptions, "planSafeActions" | "inputRequired" | "onProgress">;

/** The proxy Worker's entrypoint as its service binding shows it (see proxy-worker.ts). */
export interface ProxyBinding {
  listTools(target: UpstreamTarget, fresh: boolean): Promise<Wired<ToolListing>>;
  callTool(
    target: UpstreamTarget,
    tool: string,
    args: Record<string, unknown> | undefined,
    options: WireCallOptions,
  ): Promise<Wired<CallToolResult>>;
  request(
    target: UpstreamTarget,
    method: string,
    params: Record<string, unknown> | undefined,
    options: WireRequestOptions,
  ): Promise<Wired<Record<string, unknown>>>;
  capabilities(target: UpstreamTarget): Promise<Wired<Record<string, unknown>>>;
  drop(serverId: string, generation: number, identity: string): Promise<void>;
  /** Cancels the call of this id on the target's object, if it is still running. */
  cancel(target: UpstreamTarget, callId: string): Promise<void>;
  /** Watches one of the target's resources in its object: a stream of updates (see watch-stream.ts). */
  watchResource(target: UpstreamTarget, uri: string, watchId: string): Promise<ReadableStream<Uint8Array>>;
  /** Stops the watch of this id in the target's object (its stream's cancel may not reach it). */
  unwatch(target: UpstreamTarget, watchId: string): Promise<void>;
  /** Posts a message for a running call of this owner's, wherever it runs (mailbox.ts). */
  post(owner: string, key: string, message: unknown): Promise<void>;
  /** The message posted for `key` of this owner's, once it is; null after `ms` without one. */
  take(owner: string, key: string, ms: number): Promise<unknown>;
}

/**
 * The options every relayed call may carry, without the absent ones (RPC sends what it is given);
 * a cancellable call gets an id, and its cancellation is sent as `cancel` once the client went away.
 */
function wireOptions(
  binding: ProxyBinding,
  target: UpstreamTarget,
  options: Pick<CallOptions, "signal" | "whenGone"> & RequestOptions,
): WireRequestOptions {
  const { signal, whenGone } = options;
  let callId: string | undefined;
  if (signal || whenGone) {
    const id = crypto.randomUUID();
    callId = id;
    let sent = false;
    const cancel = () => {
      if (sent) return;
      sent = true;
      binding.cancel(target, id).catch(() => {
        // The call ended meanwhile, or the proxy is gone: nothing is left to cancel.
      });
    };
    if (signal?.aborted) cancel();
    signal?.addEventListener("abort", cancel, { once: true });
    whenGone?.(cancel);
  }
  return {
    ...(options.logLevel ? { logLevel: options.logLevel } : {}),
    ...(options.clientCapabilities ? { clientCapabilities: options.clientCapabilities } : {}),
    ...(options.onNotification ? { onNotification: options.onNotification } : {}),
    ...(callId ? { callId } : {}),
  };
}

/**
 * The upstream proxy on Workers: each method one RPC to the proxy Worker, whose Durable Object for
 * the target's server, generation and credentials runs the pool. Outcomes come back as data and are
 * thrown again as the pool's own errors, so the api reads them as on Node.
 */
export class ProxyClient implements UpstreamProxy {
  constructor(private readonly binding: ProxyBinding) {}

  async listTools(target: UpstreamTarget, options: { fresh?: boolean } = {}): Promise<ToolListing> {
    return unwired(await this.binding.listTools(target, options.fresh === true));
  }

  async callTool(
    target: UpstreamTarget,
    tool: string,
    args: Record<string, unknown> | undefined,
    options: CallOptions,
  ): Promise<CallToolResult> {
    const wire: WireCallOptions = {
      ...wireOptions(this.binding, target, options),
      planSafeActions: options.planSafeActions,
      ...(options.inputRequired ? { inputRequired: options.inputRequired } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    };
    return unwired(await this.binding.callTool(target, tool, args, wire));
  }

  async request(
    target: UpstreamTarget,
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions = {},
  ): Promise<Record<string, unknown>> {
    return unwired(await this.binding.request(target, method, params, wireOptions(this.binding, target, options)));
  }

  async capabilities(target: UpstreamTarget): Promise<Record<string, unknown>> {
    return unwired(await this.binding.capabilities(target));
  }

  /**
   * Subscribes in the target's object for as long as the returned function is not called; the
   * updates come back on a stream this request reads (a callback could not be called back later).
   */
  async watchResource(target: UpstreamTarget, uri: string, onUpdated: ResourceUpdated): Promise<() => void> {
    const id = crypto.randomUUID();
    const stop = await readWatch(await this.binding.watchResource(target, uri, id), onUpdated);
    return () => {
      stop();
      this.binding.unwatch(target, id).catch(() => {
        // The object is gone, and its watches with it.
      });
    };
  }

  /**
   * Reaches the one object a known generation and owner name (for a server without OAuth, the
   * shared one). Without a generation (the server was removed or edited) nothing is sent: no call
   * names those objects again, and each closes its sessions on its idle alarm.
   */
  drop(serverId: string, owner?: string, generation?: number): void {
    if (generation === undefined) return;
    this.binding.drop(serverId, generation, credentialIdentity(owner)).catch(() => {
      // The object closes its sessions on its idle alarm anyway.
    });
  }

  /**
   * On Workers the proxy Worker announces a changed list to the api Worker's ToolsChanged
   * entrypoint itself (a callback cannot outlive the RPC call that would carry it).
   */
  setToolsChangedHandler(): void {}
}
