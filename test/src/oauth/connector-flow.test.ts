/**
 * The connector flow end to end, as Claude or ChatGPT would run it: the official SDK v2 client's
 * OAuth support (an `OAuthClientProvider` driven by `auth()`) discovers Loadout, registers (or
 * names its client ID metadata document), sends the user to /oauth/authorize; headless Chromium
 * signs in and consents on the console; the SDK redeems the code, calls `skills list`, refreshes,
 * and is refused once the user disconnects the app on the Connected apps page.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  auth,
  Client,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUpAccount } from "../helpers/account";
import { launchChromium } from "../helpers/browser";
import { startTestServer, type TestServer } from "../helpers/server";

const CALLBACK = "https://claude.ai/api/mcp/auth_callback";

/** A connector's OAuth state, kept in memory: what Claude keeps per user and server. */
class ConnectorProvider implements OAuthClientProvider {
  info: StoredOAuthClientInformation | undefined;
  saved: StoredOAuthTokens | undefined;
  verifier = "";
  discovery: OAuthDiscoveryState | undefined;
  authorizationUrl: URL | undefined;
  readonly redirectUrl = CALLBACK;

  constructor(readonly clientMetadataUrl?: string) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "Claude",
      redirect_uris: [CALLBACK],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state() {
    return crypto.randomUUID();
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
}

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let docServer: Server;
let docBase: string;
const callbacks: URL[] = [];
const email = "connector@example.com";

async function skillsList(provider: ConnectorProvider): Promise<string> {
  const client = new Client({ name: "claude-ai", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { authProvider: provider }));
  try {
    const result = await client.callTool({ name: "skills", arguments: { action: "list" } });
    return JSON.stringify(result.content);
  } finally {
    await client.close();
  }
}

/** The browser leg: authorize → (sign in) → consent → the connector's callback. */
async function consentInBrowser(provider: ConnectorProvider, expectDomain: RegExp): Promise<URL> {
  const before = callbacks.length;
  await page.goto(String(provider.authorizationUrl));
  const signIn = page.getByRole("button", { name: "Sign in" });
  const allow = page.getByRole("button", { name: "Allow" });
  await signIn.or(allow).waitFor();
  if (await signIn.isVisible()) {
    // Signed out: the consent page sent the browser to sign in, with the way back.
    expect(new URL(page.url()).searchParams.get("next")).toMatch(/^\/consent\/\?request=oaz_/);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("correct horse battery");
    await signIn.click();
  }
  await allow.waitFor();
  expect(page.url()).toMatch(/\/consent\/\?request=oaz_/);
  await expect.poll(() => page.getByTestId("client-domain").textContent()).toMatch(expectDomain);
  await page.getByRole("button", { name: "Allow" }).click();
  await expect.poll(() => callbacks.length).toBe(before + 1);
  const callback = callbacks[callbacks.length - 1];
  if (!callback) throw new Error("no callback");
  return callback;
}

async function connect(provider: ConnectorProvider, expectDomain: RegExp) {
  expect(await auth(provider, { serverUrl: `${server.url}/mcp` })).toBe("REDIRECT");
  const authorizationUrl = provider.authorizationUrl;
  expect(authorizationUrl?.searchParams.get("code_challenge_method")).toBe("S256");
  expect(authorizationUrl?.searchParams.get("resource")).toBe(`${server.url}/mcp`);
  const callback = await consentInBrowser(provider, expectDomain);
  expect(callback.searchParams.get("iss")).toBe(server.url);
  expect(callback.searchParams.get("state")).toBe(authorizationUrl?.searchParams.get("state"));
  const code = callback.searchParams.get("code") ?? "";
  expect(
    await auth(provider, {
      serverUrl: `${server.url}/mcp`,
      authorizationCode: code,
      iss: callback.searchParams.get("iss") ?? undefined,
    }),
  ).toBe("AUTHORIZED");
}

beforeAll(async () => {
  docServer = createServer((req, res) => {
    if (req.url !== "/claude/client.json") {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "application/json", "cache-control": "max-age=300" }).end(
      JSON.stringify({
        client_id: `${docBase}/claude/client.json`,
        client_name: "Claude",
        client_uri: "https://claude.ai",
        redirect_uris: [CALLBACK],
        token_endpoint_auth_method: "none",
      }),
    );
  });
  await new Promise<void>((resolve) => docServer.listen(0, "127.0.0.1", resolve));
  docBase = `https://127.0.0.1:${(docServer.address() as AddressInfo).port}`;
  server = await startTestServer(
    { LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1" },
    {
      // The test's metadata host is plain http on loopback: a stand-in for its https URL.
      clientMetadataFetch: (input, init) =>
        fetch(String(input instanceof Request ? input.url : input).replace(/^https:/, "http:"), init),
    },
  );
  const account = await signUpAccount(server.url, email);
  expect(
    (
      await account.rest("/v1/workspaces/me/skills", {
        method: "POST",
        body: { name: "connector-skill", description: "Seen through the connector.", instructions: "Hello." },
      })
    ).status,
  ).toBe(201);
  browser = await launchChromium();
  context = await browser.newContext();
  // The connector's callback is on the internet; the test stands in for it and keeps the URL.
  await context.route("https://claude.ai/**", async (route) => {
    callbacks.push(new URL(route.request().url()));
    await route.fulfill({ status: 200, contentType: "text/plain", body: "Connected." });
  });
  page = await context.newPage();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await new Promise((resolve) => docServer?.close(resolve));
});

describe("a connector with dynamic registration", () => {
  const provider = new ConnectorProvider();

  it("signs in, consents, lists skills, refreshes, and is refused after the app is disconnected", async () => {
    await connect(provider, /redirects to claude\.ai/);
    expect(provider.info?.client_id).toMatch(/^ocl_/);
    expect(await skillsList(provider)).toContain("connector-skill");

    const first = provider.saved;
    expect(await auth(provider, { serverUrl: `${server.url}/mcp` })).toBe("AUTHORIZED");
    expect(provider.saved?.access_token).not.toBe(first?.access_token);
    expect(provider.saved?.refresh_token).not.toBe(first?.refresh_token);
    expect(await skillsList(provider)).toContain("connector-skill");

    await page.goto(`${server.url}/apps/`);
    const row = page.getByTestId("app-row").filter({ hasText: "Claude" });
    await expect.poll(() => row.count()).toBe(1);
    await expect.poll(() => row.textContent()).toMatch(/mcp/);
    await row.getByRole("button", { name: "Disconnect" }).click();
    await row.getByRole("button", { name: "Yes, disconnect" }).click();
    await expect.poll(() => page.getByTestId("app-row").count()).toBe(0);

    const refused = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${provider.saved?.access_token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toMatch(/resource_metadata=.*error="invalid_token"/);
    await expect(skillsList(provider)).rejects.toThrow();
  });
});

describe("a connector with a client ID metadata document", () => {
  it("is named by its verified domain, and works the same", async () => {
    const provider = new ConnectorProvider(`${docBase}/claude/client.json`);
    await connect(provider, new RegExp(`from ${new URL(docBase).host.replace(/\./g, "\\.")}.*verified`, "i"));
    expect(provider.info?.client_id).toBe(`${docBase}/claude/client.json`);
    expect(await skillsList(provider)).toContain("connector-skill");
  });
});
