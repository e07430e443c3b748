import type { OpenedDatabase } from "@loadout/db";
import { createTestDatabase } from "@loadout/db/testing";
import { UpstreamPool } from "@loadout/workers";
import { type AppDeps, createApp } from "./app";
import { createPasswordHasher, nobleScrypt } from "./auth/password";
import { memoryLogger } from "./logger";
import { startDatabaseFreshness } from "./services/cache/freshness";
import { upstreamFetch } from "./services/servers/upstreams";

/** Cheap scrypt parameters for tests only: the production parameters are tested in password.test.ts. */
export const TEST_SCRYPT = { N: 1024, r: 8, p: 1, dkLen: 32 };

export interface TestApp {
  app: ReturnType<typeof createApp>;
  database: OpenedDatabase;
  logs: ReturnType<typeof memoryLogger>["entries"];
  secretKey: string;
  close(): Promise<void>;
}

/** The real app on a fresh database (PGlite, or Postgres when DATABASE_URL is set). */
export async function createTestApp(
  options: { clock?: () => Date; upstreams?: boolean; deps?: Partial<Omit<AppDeps, "database">> } = {},
): Promise<TestApp> {
  const database = await createTestDatabase();
  // Upstreams started by tests listen on 127.0.0.1, which the guard allows only in this mode.
  const pool = options.upstreams
    ? new UpstreamPool({ fetchFor: () => upstreamFetch(async () => ["127.0.0.1"], true) })
    : undefined;
  const logger = memoryLogger();
  // As in production: MCP calls are served from memory while Postgres's change feed is live.
  const feed = await startDatabaseFreshness(database, logger);
  const secretKey = "test-secret-key-0123456789abcdefghijklmnop";
  const app = createApp({
    database: { acquire: () => ({ db: database.db, release: async () => {} }) },
    hasher: createPasswordHasher(nobleScrypt, TEST_SCRYPT),
    passwordDictionary: async () =>
      (await import("./domain/accounts/common-password-dictionary")).commonPasswordDictionary,
    secretKey,
    logger,
    secureCookies: false,
    clientAddress: (c) => c.req.header("x-test-address") ?? "127.0.0.1",
    ...(options.clock ? { clock: options.clock } : {}),
    ...(pool ? { upstreamPool: pool, allowLoopbackUpstreams: true } : {}),
    ...(feed ? { freshness: feed.freshness } : {}),
    ...options.deps,
  });
  return {
    app,
    database,
    logs: logger.entries,
    secretKey,
    close: async () => {
      await pool?.close();
      await feed?.close();
      await database.close();
    },
  };
}

/** A signed-up user driving the app through `app.request`, with its session cookies. */
export class TestUser {
  cookie = "";
  csrf = "";
  constructor(
    readonly app: TestApp["app"],
    readonly email: string,
    readonly password = "correct horse battery",
  ) {}

  static async signUp(app: TestApp["app"], email: string, name?: string): Promise<TestUser> {
    const user = new TestUser(app, email);
    const res = await app.request("/v1/auth/signup", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password: user.password, ...(name ? { name } : {}) }),
    });
    if (res.status !== 201) throw new Error(`sign-up failed: ${res.status} ${await res.text()}`);
    user.takeCookies(res);
    return user;
  }

  takeCookies(res: Response) {
    const cookies = res.headers.getSetCookie().map((c) => c.split(";")[0] ?? "");
    this.cookie = cookies.join("; ");
    this.csrf = cookies.find((c) => c.startsWith("lo_csrf="))?.slice("lo_csrf=".length) ?? "";
  }

  /** A request with the session cookie and the CSRF header. */
  request(path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) {
    return this.app.request(path, {
      method: init.method ?? "GET",
      headers: {
        cookie: this.cookie,
        "x-csrf-token": this.csrf,
        ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
        ...init.headers,
      },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });
  }

  async createToken(body: { name: string; scopes: string[]; expiresInDays?: number; workspace?: string }) {
    const res = await this.request("/v1/tokens", { method: "POST", body });
    if (res.status !== 201) throw new Error(`token creation failed: ${res.status} ${await res.text()}`);
    return (await res.json()) as { token: { id: string; name: string }; secret: string };
  }
}

export function bearer(secret: string, init: { method?: string; body?: unknown } = {}): RequestInit {
  return {
    method: init.method ?? "GET",
    headers: {
      authorization: `Bearer ${secret}`,
      ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  };
}
