import type { CallToolResult } from "@modelcontextprotocol/client";
import type {
  CallOptions,
  DirectTool,
  PoolOptions,
  RequestOptions,
  ResourceUpdated,
  UpstreamTarget,
  UpstreamTool,
} from "./pool";

/** A server's tools as the upstream listed them (at most 64), and the protocol era it spoke. */
export interface ToolListing {
  tools: UpstreamTool[];
  truncated: boolean;
  era: string;
}

/**
 * What the api needs of the upstream proxy, whichever host runs it: the pool itself in-process on
 * Node (UpstreamPool), or an RPC client over the proxy Worker's service binding on Workers
 * (ProxyClient), whose Durable Objects run the same pool.
 */
export interface UpstreamProxy {
  /** Lists a server's tools; `fresh` opens a new upstream session first (Test). */
  listTools(target: UpstreamTarget, options?: { fresh?: boolean }): Promise<ToolListing>;
  callTool(
    target: UpstreamTarget,
    tool: string,
    args: Record<string, unknown> | undefined,
    options: CallOptions,
  ): Promise<CallToolResult>;
  request(
    target: UpstreamTarget,
    method: string,
    params: Record<string, unknown> | undefined,
    options?: RequestOptions,
  ): Promise<Record<string, unknown>>;
  capabilities(target: UpstreamTarget): Promise<Record<string, unknown>>;
  /**
   * Closes a server's upstream sessions (it was removed or changed what it is), or only those on one
   * owner's credentials. `generation`, where the caller knows it, lets a host that keeps sessions
   * per generation (Workers) reach them; sessions of a generation nobody addresses again close
   * themselves after idling there.
   */
  drop(serverId: string, owner?: string, generation?: number): void;
  /** Who hears that an upstream's tools changed (set once by the app that stores them). */
  setToolsChangedHandler(handler: NonNullable<PoolOptions["onToolsChanged"]>): void;
  /**
   * Who hears that an upstream's prompts or resources changed, where the pool runs in-process
   * (Node). On Workers the session object calls the api Worker's `itemsChanged` instead, as it
   * calls `toolsChanged` for tools.
   */
  setItemsChangedHandler?(handler: NonNullable<PoolOptions["onItemsChanged"]>): void;
  /**
   * Subscribes to one of a target's resources for as long as the returned function is not called
   * (see UpstreamPool.watchResource): in-process on Node; on Workers in the session object, whose
   * updates come back on a stream the watching request reads (ProxyClient, watch-stream.ts).
   */
  watchResource?(target: UpstreamTarget, uri: string, onUpdated: ResourceUpdated): Promise<() => void>;
  /** A prepared warm call, where the host holds the connection in-process (Node only). */
  directTool?(target: UpstreamTarget, tool: string): DirectTool | null;
}

/** Whose credentials an upstream session rides: the user's for a per-user OAuth connection, else the team's. */
export const credentialIdentity = (owner: string | undefined): string => owner ?? "shared";

/**
 * The name of the Durable Object that holds a target's upstream sessions: server id, generation and
 * whose credentials. An edit (a new generation) names a fresh object; the old one idles and closes.
 */
export const sessionObjectName = (serverId: string, generation: number, identity: string): string =>
  `${serverId}#${generation}#${identity}`;
