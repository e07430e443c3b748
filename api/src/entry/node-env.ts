import { z } from "zod";
import { previousSecretKeys } from "./secret-keys-env";

/** The Node entry's environment. Every variable is documented in the README. */
export const NodeEnv = z
  .object({
    LOADOUT_PORT: z.coerce.number().int().min(0).max(65_535).default(8787),
    LOADOUT_HOST: z.string().min(1).default("127.0.0.1"),
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, "DATABASE_URL must be a postgres:// URL")
      .optional()
      .or(z.literal("").transform(() => undefined)),
    LOADOUT_DATA_DIR: z.string().min(1).default(".loadout/data"),
    LOADOUT_SECRET_KEY: z
      .string()
      .min(32, "LOADOUT_SECRET_KEY must have at least 32 characters (e.g. `openssl rand -base64 32`)")
      .optional(),
    /** Earlier values of LOADOUT_SECRET_KEY, which still open the server secrets they sealed. */
    LOADOUT_PREVIOUS_SECRET_KEYS: previousSecretKeys,
    /** `production` requires LOADOUT_SECRET_KEY and marks cookies Secure. */
    LOADOUT_MODE: z.enum(["local", "production"]).default("local"),
    /** The URL users reach; used in printed links. Defaults to http://host:port. */
    LOADOUT_PUBLIC_URL: z.url().optional(),
    /** Trust X-Forwarded-For from a reverse proxy for client addresses (rate limits). */
    LOADOUT_TRUST_PROXY: z.enum(["0", "1"]).default("0"),
    LOADOUT_LOG: z.enum(["json", "silent"]).default("json"),
    /** `0` sends every MCP request through the SDK's server, fast-lane tool calls included. */
    LOADOUT_MCP_FAST_LANE: z.enum(["0", "1"]).default("1"),
    /** `1` lets remote MCP servers live on loopback: for local use and tests, never in production. */
    LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: z.enum(["0", "1"]).default("0"),
    /**
     * Postgres connections in the pool (DATABASE_URL only). postgres.js pipelines queries, so a
     * few connections beat many: on a 2-core database 4 served 6,400 req/s and 10 served 4,500.
     */
    LOADOUT_DB_POOL: z.coerce.number().int().min(1).max(100).default(4),
  })
  .superRefine((env, ctx) => {
    if (env.LOADOUT_MODE === "production" && !env.LOADOUT_SECRET_KEY) {
      ctx.addIssue({
        code: "custom",
        path: ["LOADOUT_SECRET_KEY"],
        message:
          "LOADOUT_SECRET_KEY is required in production mode; generate one with `openssl rand -base64 32` and keep it safe",
      });
    }
  });

export type NodeEnv = z.infer<typeof NodeEnv>;

/** Parses the environment or throws one error listing every problem, so start-up fails loudly. */
export function parseNodeEnv(source: Record<string, string | undefined>): NodeEnv {
  const result = NodeEnv.safeParse(source);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  - ${i.path.join(".") || "environment"}: ${i.message}`);
    throw new Error(`Loadout cannot start; fix the environment:\n${lines.join("\n")}`);
  }
  return result.data;
}
