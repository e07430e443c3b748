import { z } from "zod";
import { previousSecretKeys } from "./secret-keys-env";

// What was wrong and what to do; never the value itself (the environment is never echoed).
const PORT_PROBLEM = "must be a whole number from 0 to 65535: set a free port such as 8788, or unset it for 8787";
const POOL_PROBLEM = "must be a whole number from 1 to 100, or unset for 4";

/** A whole number within bounds, with one message for every way it can be wrong. */
const wholeNumber = (min: number, max: number, problem: string) =>
  z.coerce.number({ error: problem }).int({ error: problem }).min(min, { error: problem }).max(max, { error: problem });

/** The Node entry's environment. Every variable is documented in the README. */
export const NodeEnv = z
  .object({
    LOADOUT_PORT: wholeNumber(0, 65_535, PORT_PROBLEM).default(8787),
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
    /** Unset: a short line per API and MCP request in local mode, JSON lines in production. */
    LOADOUT_LOG: z.preprocess(
      (value) => (value === "" ? undefined : value),
      z.enum(["human", "json", "silent"], { error: "must be `human`, `json` or `silent` (or unset)" }).optional(),
    ),
    /** `0` sends every MCP request through the SDK's server, fast-lane tool calls included. */
    LOADOUT_MCP_FAST_LANE: z.enum(["0", "1"]).default("1"),
    /** `0` sends MCP requests through Hono rather than the Node adapter (see entry/node-mcp-adapter.ts). */
    LOADOUT_MCP_NODE_ADAPTER: z.enum(["0", "1"]).default("1"),
    /** `1` lets remote MCP servers live on loopback: for local use and tests, never in production. */
    LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: z.enum(["0", "1"]).default("0"),
    /**
     * Postgres connections in the pool (DATABASE_URL only). postgres.js pipelines queries, so a
     * few connections beat many: on a 2-core database 4 served 6,400 req/s and 10 served 4,500.
     */
    LOADOUT_DB_POOL: wholeNumber(1, 100, POOL_PROBLEM).default(4),
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
  })
  .transform((env) => ({
    ...env,
    LOADOUT_LOG: env.LOADOUT_LOG ?? (env.LOADOUT_MODE === "production" ? "json" : "human"),
  }));

export type NodeEnv = z.infer<typeof NodeEnv>;

/** Parses the environment or throws one error listing every problem, so start-up fails loudly. */
export function parseNodeEnv(source: Record<string, string | undefined>): NodeEnv {
  const result = NodeEnv.safeParse(source);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  - ${i.path.join(".") || "environment"}: ${i.message}`);
    throw new Error(
      `Loadout cannot start; fix the environment:\n${lines.join("\n")}\nEach variable is described in README.md, "Configuration".`,
    );
  }
  return result.data;
}

/** What to tell the person starting Loadout when the port cannot be had, instead of Node's stack. */
export function listenProblem(error: unknown, env: Pick<NodeEnv, "LOADOUT_HOST" | "LOADOUT_PORT">): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  const where = `${env.LOADOUT_HOST}:${env.LOADOUT_PORT}`;
  const next = env.LOADOUT_PORT === 65_535 ? 8788 : env.LOADOUT_PORT + 1;
  if (code === "EADDRINUSE")
    return (
      `Loadout cannot start: ${where} is already in use (another Loadout, or another program). ` +
      `Stop that program, or choose a free port with LOADOUT_PORT, e.g. \`LOADOUT_PORT=${next} npm start\`.`
    );
  if (code === "EACCES")
    return (
      `Loadout cannot start: this user may not listen on ${where}. ` +
      "Choose a port above 1023 with LOADOUT_PORT, e.g. `LOADOUT_PORT=8787 npm start`."
    );
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND")
    return (
      `Loadout cannot start: LOADOUT_HOST=${env.LOADOUT_HOST} is not an address of this machine. ` +
      "Use 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)."
    );
  return null;
}
