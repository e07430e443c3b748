import type { CallToolResult } from "@modelcontextprotocol/client";
import type { CallOptions, RelatedNotification, RequestOptions, UpstreamTarget } from "./pool";
import { credentialIdentity, type ToolListing, type UpstreamProxy } from "./proxy";
import { unwired, type Wired } from "./wire";

/**
 * A call's options as they cross Workers RPC: callbacks go as function stubs, and cancellation
 * (an AbortSignal cannot cross) as `untilGone`, whose answer settles when the client went away.
 */
export interface WireCallOptions {
  planSafeActions: readonly string[] | null;
  logLevel?: string;
  inputRequired?: CallOptions["inputRequired"];
  clientCapabilities?: Record<string, unknown>;
  onProgress?: CallOptions["onProgress"];
  onNotification?: (notification: RelatedNotification) => void;
  untilGone?: () => Promise<void>;
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
}

/** Cancellation as a callback the other side can await (see WireCallOptions.untilGone). */
function untilGoneOf(options: Pick<CallOptions, "signal" | "whenGone">): (() => Promise<void>) | undefined {
  const { signal, whenGone } = options;
  if (!signal && !whenGone) return undefined;
  const gone = new Promise<void>((resolve) => {
    if (signal?.aborted) resolve();
    signal?.addEventListener("abort", () => resolve(), { once: true });
    whenGone?.(resolve);
  });
  return () => gone;
}

/** The options every relayed call may carry, without the absent ones (RPC sends what it is given). */
function wireOptions(options: RequestOptions): WireRequestOptions {
  const untilGone = untilGoneOf(options);
  return {
    ...(options.logLevel ? { logLevel: options.logLevel } : {}),
    ...(options.clientCapabilities ? { clientCapabilities: options.clientCapabilities } : {}),
    ...(options.onNotification ? { onNotification: options.onNotification } : {}),
    ...(untilGone ? { untilGone } : {}),
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
      ...wireOptions(options),
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
    return unwired(await this.binding.request(target, method, params, wireOptions(options)));
  }

  async capabilities(target: UpstreamTarget): Promise<Record<string, unknown>> {
    return unwired(await this.binding.capabilities(target));
  }

  /**
   * Reaches the one object a known generation and owner name (for a server without OAuth, the
   * shared one). Without a generation (the server was removed or edited) nothing is sent: no call
   * names those objects again, and each closes its sessions on its idle alarm.
   */
  drop(serverId: string, owner?: string, generation?: number): void {
    if (generation === undefined) return;
    const identity = credentialIdentity(owner ? { credential: { owner, version: 0 } } : {});
    this.binding.drop(serverId, generation, identity).catch(() => {
      // The object closes its sessions on its idle alarm anyway.
    });
  }

  /**
   * On Workers the proxy Worker announces a changed list to the api Worker's ToolsChanged
   * entrypoint itself (a callback cannot outlive the RPC call that would carry it).
   */
  setToolsChangedHandler(): void {}
}
