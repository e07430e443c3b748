/** A console account on a running test server, driving the REST API with its session cookie. */
export interface Account {
  cookie: string;
  csrf: string;
  /** A REST call with the cookie and CSRF header; `body` is the parsed JSON (null for 204). */
  rest(
    path: string,
    init?: { method?: string; body?: unknown },
  ): Promise<{ status: number; body: Awaited<ReturnType<Response["json"]>> }>;
  /** A new API token with these scopes; returns its id and secret. */
  token(scopes: string[], extra?: { name?: string; workspace?: string }): Promise<{ id: string; secret: string }>;
}

/** How requests reach the server: `fetch`, or a host's own (Miniflare's dispatchFetch). */
export type Send = (url: string, init: RequestInit) => Promise<Response>;

export async function signUpAccount(
  url: string,
  email: string,
  password = "correct horse battery",
  send: Send = fetch,
): Promise<Account> {
  const res = await send(`${url}/v1/auth/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  if (res.status !== 201) throw new Error(`sign-up failed: ${res.status} ${await res.text()}`);
  const cookies = res.headers.getSetCookie().map((c) => c.split(";")[0] ?? "");
  const cookie = cookies.join("; ");
  const csrf = cookies.find((c) => c.startsWith("lo_csrf="))?.slice("lo_csrf=".length) ?? "";
  const rest: Account["rest"] = async (path, init = {}) => {
    const answer = await send(`${url}${path}`, {
      method: init.method ?? "GET",
      headers: {
        cookie,
        "x-csrf-token": csrf,
        ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
      },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });
    return { status: answer.status, body: answer.status === 204 ? null : await answer.json() };
  };
  return {
    cookie,
    csrf,
    rest,
    async token(scopes, extra = {}) {
      const created = await rest("/v1/tokens", {
        method: "POST",
        body: {
          name: extra.name ?? scopes.join(" "),
          scopes,
          ...(extra.workspace ? { workspace: extra.workspace } : {}),
        },
      });
      if (created.status !== 201)
        throw new Error(`token creation failed: ${created.status} ${JSON.stringify(created.body)}`);
      return { id: created.body.token.id, secret: created.body.secret };
    },
  };
}

/**
 * Adds a remote MCP server to the account's personal workspace through the REST API, tests it
 * and approves all its tools, resources, templates and prompts, as a user would in the console
 * before using them.
 */
export async function addApprovedServer(account: Account, slug: string, url: string): Promise<void> {
  const steps: [string, string, unknown][] = [
    ["/v1/workspaces/me/servers/import", "POST", { text: JSON.stringify({ mcpServers: { [slug]: { url } } }) }],
    [`/v1/workspaces/me/servers/${slug}/test`, "POST", undefined],
    [`/v1/workspaces/me/servers/${slug}/tools/approve`, "POST", {}],
    [`/v1/workspaces/me/servers/${slug}/items/approve`, "POST", {}],
  ];
  for (const [path, method, body] of steps) {
    const answer = await account.rest(path, { method, ...(body === undefined ? {} : { body }) });
    // Test answers 200 with the error it met: a server that did not connect is no approved server.
    if (answer.status !== 200 || (answer.body as { error?: unknown } | null)?.error)
      throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  }
}
