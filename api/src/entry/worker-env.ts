import type { ProxyBinding } from "@loadout/workers";
import { z } from "zod";
import type { CallQueue } from "../services/mcp/call-queue";
import type { ChangeFeedNamespace } from "./change-feed";
import type { AssetsBinding } from "./password-dictionary-asset";
import { previousSecretKeys } from "./secret-keys-env";

/** The Worker's bindings and variables (see infra/wrangler.jsonc). Validated once per isolate. */
export const WorkerEnv = z
  .object({
    LOADOUT_SECRET_KEY: z
      .string({ error: "LOADOUT_SECRET_KEY is not set: add it with `wrangler secret put LOADOUT_SECRET_KEY`" })
      .min(32, "LOADOUT_SECRET_KEY must have at least 32 characters"),
    /** Earlier values of LOADOUT_SECRET_KEY (`wrangler secret put`), which still open what they sealed. */
    LOADOUT_PREVIOUS_SECRET_KEYS: previousSecretKeys,
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, "DATABASE_URL must be a postgres:// URL")
      .optional(),
    HYPERDRIVE: z
      .object({ connectionString: z.string().min(1) }, { error: "HYPERDRIVE must be a Hyperdrive binding" })
      .optional(),
    LOADOUT_INSECURE_COOKIES: z.enum(["0", "1"]).default("0"),
    /**
     * The console's static files (`assets` in infra/wrangler.jsonc), where sign-up reads its password
     * dictionary. Without it new passwords are refused with 503 (and the reason logged).
     */
    ASSETS: z
      .custom<AssetsBinding>(
        (value) => typeof (value as { fetch?: unknown } | null)?.fetch === "function",
        "ASSETS must be the static-assets binding (`assets.binding` in infra/wrangler.jsonc)",
      )
      .optional(),
    /**
     * The proxy Worker's entrypoint (infra/wrangler.proxy.jsonc), through which remote MCP servers
     * are reached. Without it this Worker neither lists nor calls upstream tools.
     */
    UPSTREAM: z
      .custom<ProxyBinding>(
        (value) => typeof value === "object" && value !== null,
        "UPSTREAM must be a service binding to the proxy Worker's UpstreamProxy entrypoint",
      )
      .optional(),
    /**
     * The call-log Queue's producer (`queues.producers` in infra/wrangler.jsonc): MCP calls are sent
     * there and written in batches by this Worker's `queue()` handler. Without it each call is
     * written after its answer, on the request's own connection.
     */
    CALL_LOG: z
      .custom<CallQueue>(
        (value) => typeof (value as { send?: unknown } | null)?.send === "function",
        "CALL_LOG must be a Queue producer binding (queues.producers in infra/wrangler.jsonc)",
      )
      .optional(),
    /**
     * The ChangeFeed Durable Object (`durable_objects` in infra/wrangler.jsonc), which listens on
     * Postgres for the isolates: warm MCP calls take their counters from it, not from the database.
     * Without it each MCP request reads its counters from Postgres (one statement).
     */
    CHANGES: z
      .custom<ChangeFeedNamespace>(
        (value) => typeof (value as { idFromName?: unknown } | null)?.idFromName === "function",
        "CHANGES must be a Durable Object namespace binding of the ChangeFeed class (infra/wrangler.jsonc)",
      )
      .optional(),
    /**
     * A direct Postgres URL the ChangeFeed object listens on (Hyperdrive pools transactions and
     * cannot LISTEN); DATABASE_URL when unset. Without either the object answers nothing and MCP
     * requests read their counters from Postgres.
     */
    LOADOUT_LISTEN_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, "LOADOUT_LISTEN_URL must be a postgres:// URL")
      .optional(),
    /** `0` sends every MCP request through the SDK's server, as on Node (a switch for diagnosing a client). */
    LOADOUT_MCP_FAST_LANE: z.enum(["0", "1"]).default("1"),
    /** The URL people reach: the OAuth issuer and the base of MCP URLs (otherwise taken from the request). */
    LOADOUT_PUBLIC_URL: z.url("LOADOUT_PUBLIC_URL must be a URL such as https://loadout.example.com").optional(),
    /** `1` lets upstream servers and client metadata documents sit on loopback: local runs and tests only. */
    LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: z.enum(["0", "1"]).default("0"),
    /** The DNS-over-HTTPS JSON endpoint the SSRF guard resolves with (default Cloudflare's). */
    LOADOUT_DOH_URL: z.url("LOADOUT_DOH_URL must be a URL such as https://cloudflare-dns.com/dns-query").optional(),
  })
  .refine((env) => env.HYPERDRIVE || env.DATABASE_URL, {
    message: "Bind HYPERDRIVE (production) or set DATABASE_URL: the Worker needs a Postgres database",
    path: ["HYPERDRIVE"],
  });

export type WorkerEnv = z.infer<typeof WorkerEnv>;

export function parseWorkerEnv(source: unknown): WorkerEnv {
  const result = WorkerEnv.safeParse(source);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `${i.path.join(".") || "env"}: ${i.message}`);
    throw new Error(`Loadout's Worker is misconfigured: ${lines.join("; ")}`);
  }
  return result.data;
}
