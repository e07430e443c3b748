/**
 * `loadout login` through the loopback flow, driven by headless Chromium: the CLI (a child
 * process) registers as a native client with its 127.0.0.1 redirect, prints the authorization
 * URL; the browser signs in and consents; the CLI takes the code on loopback, redeems it with PKCE
 * for a token bound to the REST API, keeps it with 0600, and uses (and refreshes) it. The token
 * opens no MCP URL; a denial ends the login with exit code 3.
 */
import type { ChildProcess } from "node:child_process";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Account, signUpAccount } from "../helpers/account";
import { launchChromium } from "../helpers/browser";
import { cliEnv, runCli, spawnCli, tempHome } from "../helpers/cli";
import { startTestServer, type TestServer } from "../helpers/server";

let server: TestServer;
let account: Account;
let browser: Browser;
let page: Page;
let home: ReturnType<typeof tempHome>;
let env: NodeJS.ProcessEnv;
const email = "cli-login@example.com";

/** Starts `loadout login`, and resolves with the authorization URL it prints and its end. */
function startLogin(): Promise<{
  url: string;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}> {
  const child: ChildProcess = spawnCli(["login", server.url, "--no-browser"], { env });
  let stdout = "";
  let stderr = "";
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr })),
  );
  return new Promise((resolve, reject) => {
    child.stderr?.on("data", (chunk) => {
      stderr += chunk;
    });
    child.stdout?.on("data", (chunk) => {
      stdout += chunk;
      const url = /(http:\/\/\S+\/oauth\/authorize\?\S+)/.exec(stdout)?.[1];
      if (url) resolve({ url, done });
    });
    child.on("close", (code) => reject(new Error(`login ended (${code}) before printing a URL: ${stdout} ${stderr}`)));
  });
}

const credentials = () =>
  JSON.parse(readFileSync(path.join(home.home, ".config", "loadout", "credentials.json"), "utf8")).servers[server.url];

beforeAll(async () => {
  server = await startTestServer();
  account = await signUpAccount(server.url, email);
  const body = { name: "from-the-cli", description: "Listed through the OAuth token.", instructions: "x\n" };
  expect((await account.rest("/v1/workspaces/me/skills", { method: "POST", body })).status).toBe(201);
  browser = await launchChromium();
  page = await (await browser.newContext()).newPage();
  home = tempHome();
  env = cliEnv(home.home, server.url);
});
afterAll(async () => {
  await browser?.close();
  home?.remove();
  await server?.close();
});

describe("loadout login (OAuth with PKCE, loopback redirect)", () => {
  it("signs in through the browser and keeps the tokens, readable by their owner only", async () => {
    const { url, done } = await startLogin();
    const authorize = new URL(url);
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorize.searchParams.get("resource")).toBe(`${server.url}/v1`);
    expect(authorize.searchParams.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);

    await page.goto(url);
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("correct horse battery");
    await page.getByRole("button", { name: "Sign in" }).click();
    const allow = page.getByRole("button", { name: "Allow" });
    await allow.waitFor();
    // The consent page names what the CLI will reach.
    for (const scope of ["skills:read", "skills:write", "admin", "mcp"])
      await page.getByText(scope, { exact: true }).first().waitFor();
    await allow.click();
    await page.waitForURL(/^http:\/\/127\.0\.0\.1:\d+\/callback\?/);
    expect(await page.textContent("body")).toContain("Signed in. You can close this tab");

    const result = await done;
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Signed in to ${server.url} as ${email}.`);
    const file = path.join(home.home, ".config", "loadout", "credentials.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(credentials()).toMatchObject({
      kind: "oauth",
      accessToken: expect.stringMatching(/^loa_/),
      refreshToken: expect.stringMatching(/^lor_/),
    });
  });

  it("uses the token at the REST API, which no MCP URL accepts", async () => {
    const list = await runCli(["skills", "list"], { env });
    expect(list.stderr).toBe("");
    expect(list.code).toBe(0);
    expect(list.stdout).toContain("from-the-cli");
    const mcp = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${credentials().accessToken}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(mcp.status).toBe(401);
    // What the CLI does with it: a token for a client (it may grant mcp), and a sync's report.
    const added = await runCli(["mcp", "add", "cursor"], { env });
    expect(added.stderr).toBe("");
    expect(added.code).toBe(0);
    const entry = JSON.parse(readFileSync(path.join(home.home, ".cursor", "mcp.json"), "utf8")).mcpServers.loadout;
    expect(entry.headers.Authorization).toMatch(/^Bearer lo_/);
    const synced = await runCli(["sync", "--clients", "claude-code"], { env });
    expect(synced.code, synced.stderr).toBe(0);
    expect((await account.rest("/v1/devices")).body.devices).toHaveLength(1);
    const apps = (await account.rest("/v1/connected-apps")).body.apps;
    expect(apps).toHaveLength(1);
    expect(apps[0]).toMatchObject({
      client: { name: expect.stringMatching(/^Loadout CLI on /) },
      resource: `${server.url}/v1`,
      scopes: ["mcp", "skills:read", "skills:write", "admin"],
    });
  });

  it("refreshes an expired access token, rotating the refresh token", async () => {
    const before = credentials();
    const file = path.join(home.home, ".config", "loadout", "credentials.json");
    const stored = JSON.parse(readFileSync(file, "utf8"));
    stored.servers[server.url].expiresAt = new Date(Date.now() - 1000).toISOString();
    writeFileSync(file, JSON.stringify(stored));
    const list = await runCli(["skills", "list"], { env });
    expect(list.code).toBe(0);
    const after = credentials();
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(after.refreshToken).not.toBe(before.refreshToken);
    expect(Date.parse(after.expiresAt)).toBeGreaterThan(Date.now());
  });

  it("ends with exit code 3 when the user denies, keeping the earlier sign-in", async () => {
    const before = credentials();
    const { url, done } = await startLogin();
    await page.goto(url);
    await page.getByRole("button", { name: "Deny" }).click();
    await page.waitForURL(/^http:\/\/127\.0\.0\.1:\d+\/callback\?/);
    const result = await done;
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("Sign-in was declined in the browser.");
    expect(credentials()).toEqual(before);
  });

  it("signs out", async () => {
    const out = await runCli(["logout"], { env });
    expect(out.code).toBe(0);
    expect(credentials()).toBeUndefined();
    expect((await runCli(["skills", "list"], { env })).code).toBe(3);
  });
});
