import type { Database } from "@loadout/db";
import type { UpstreamProxy } from "@loadout/workers";
import type { Context, MiddlewareHandler } from "hono";
import type { PasswordHasher } from "../auth/password";
import type { PasswordDictionary } from "../domain/accounts/password-strength";
import type { Logger } from "../logger";
import type { Freshness } from "../services/cache/freshness";
import type { ChangeFeedClient } from "../services/cache/stamps";
import type { Principal } from "../services/context";
import type { CallRecorder } from "../services/mcp/call-log";
import type { PendingAnswers } from "../services/mcp/pending-answers";

/** Hands out a database for one request. Node shares one pool; Workers open a connection per request. */
export interface DatabaseProvider {
  acquire(): { db: Database; release(): Promise<void> };
}

export interface AppDeps {
  database: DatabaseProvider;
  hasher: PasswordHasher;
  /**
   * Loads the password-strength dictionary, on the first new password: from the package on Node
   * (domain/accounts/common-password-dictionary.ts), from a static asset on Workers.
   */
  passwordDictionary: () => Promise<PasswordDictionary>;
  /** LOADOUT_SECRET_KEY: the root of every derived key (CSRF, and the key that seals server secrets). */
  secretKey: string;
  /**
   * LOADOUT_PREVIOUS_SECRET_KEYS: earlier values of LOADOUT_SECRET_KEY. They still open the server
   * secrets they sealed (until re-sealed under the current key), and seal nothing.
   */
  previousSecretKeys?: readonly string[];
  logger: Logger;
  /**
   * LOADOUT_PUBLIC_URL: the origin people and clients use. When set it is the OAuth issuer and
   * the base of the MCP URLs tokens are bound to, whatever Host or X-Forwarded-Proto say.
   */
  publicUrl?: string;
  /** Marks cookies `Secure`; on for https deployments. */
  secureCookies: boolean;
  clock?: () => Date;
  /** The caller's network address, for rate limits: the socket on Node, CF-Connecting-IP on Workers. */
  clientAddress?: (c: Context) => string | null;
  /** Runs work after the response is sent (Workers: ctx.waitUntil). */
  waitUntil?: (c: Context, work: Promise<unknown>) => void;
  /** Serves the console's static files for paths no route claims. */
  assets?: MiddlewareHandler;
  /** The console's not-found page (HTML), for a GET outside the API that nothing serves; null when there is none. */
  notFoundPage?: () => Promise<string | null>;
  version?: string;
  /**
   * Host names the MCP endpoint answers to (DNS-rebinding protection for a server bound to
   * loopback); unset means any host (a deployment behind its own domain and TLS).
   */
  allowedHosts?: readonly string[];
  /** Upstream MCP servers on loopback are allowed (LOADOUT_ALLOW_LOOPBACK_UPSTREAMS=1: local use and tests). */
  allowLoopbackUpstreams?: boolean;
  /** Resolves an upstream host to its addresses, for the SSRF guard (Node: the system resolver). */
  resolveHost?: (host: string) => Promise<string[]>;
  /**
   * Connections to users' remote MCP servers (workers/), owned by the entry that closes it: the
   * pool in-process on Node, the proxy Worker's RPC client on Workers. Absent where this host has
   * no proxy: it then neither lists nor calls upstream tools.
   */
  upstreamPool?: UpstreamProxy;
  /** The fetch under the SSRF guard for OAuth client metadata documents (tests substitute one; default: global fetch). */
  clientMetadataFetch?: typeof fetch;
  /** Where MCP calls are logged; writes after the response (default: one row per call). */
  callRecorder?: CallRecorder;
  /**
   * Changes heard from Postgres (LISTEN), which let MCP calls be served from memory. Absent where
   * the host cannot listen (Workers): every call then reads Postgres.
   */
  freshness?: Freshness;
  /**
   * Where no instance can listen (Workers): a change feed held elsewhere (the ChangeFeed Durable
   * Object), from which MCP requests take their counters instead of reading them from Postgres, and
   * which every write waits on before it answers. Without it each MCP request reads its counters.
   */
  changeFeed?: ChangeFeedClient;
  /** Aborted when the host begins to shut down: event streams that would stay open end (Node). */
  closing?: AbortSignal;
  /** The pipeline answers plain requests itself, without the SDK's per-request server (default true; see mcp/pipeline.ts). */
  mcpFastLane?: boolean;
  /**
   * Where a 2025 client's answers to Loadout's requests reach the call waiting for them, across
   * instances (see services/mcp/answer-relay.ts); absent: within this instance only.
   */
  pendingAnswers?: PendingAnswers;
}

export interface AppVariables {
  requestId: string;
  db: Database;
  now: Date;
  principal: Principal | undefined;
  deps: AppDeps;
  csrfKey: Uint8Array;
  /** A raw request body of a media type the route accepts besides JSON (an archive upload). */
  rawBody: Uint8Array | undefined;
  /** Schedules work after the response; errors are logged, never thrown at the client. */
  defer: (work: () => Promise<unknown>) => void;
  /**
   * Which path answered an MCP request, reported in Server-Timing: `fast` when the pipeline
   * answered it itself, `warm` when it did so on a memoised session and tool (see mcp/pipeline.ts).
   */
  lane: string | undefined;
  /** An MCP request that wrote (skill_edit): the instance's caches are dropped after it. */
  wrote: boolean;
}

export type AppEnv = { Variables: AppVariables };
