/**
 * Rotating LOADOUT_SECRET_KEY: the real Node entry, started several times on one database with
 * different keys, a real upstream that records the Authorization header it receives, and the
 * official SDK client at /mcp.
 */

import { createSecretBox, deploymentKeys, SecretBoxError, sealedKeyId } from "@loadout/api/auth/secret-box";
import { resealServerSecrets } from "@loadout/api/services/servers/reseal";
import { headerAd } from "@loadout/api/services/servers/upstreams";
import { mcpServers, type OpenedDatabase } from "@loadout/db";
import { createTestDatabase } from "@loadout/db/testing";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUpAccount } from "../helpers/account";
import { startTestServer, type TestServer } from "../helpers/server";
import { type StatelessUpstream, startStatelessUpstream } from "../helpers/upstreams";

const KEY_A = "rotation-test-key-A-0123456789abcdefghijkl";
const KEY_B = "rotation-test-key-B-0123456789abcdefghijkl";
const UPSTREAM_SECRET = "Bearer upstream-secret-value-123";
const ID_A = deploymentKeys(KEY_A)[0]?.id;
const ID_B = deploymentKeys(KEY_B)[0]?.id;

let database: OpenedDatabase;
let upstream: StatelessUpstream;
let token: string;

beforeAll(async () => {
  [database, upstream] = await Promise.all([createTestDatabase(), startStatelessUpstream()]);
});

afterAll(async () => {
  await upstream?.stop();
  await database?.close();
});

/** The Node entry on the shared database, with these keys. */
const serve = (current: string, previous: string[] = []) =>
  startTestServer(
    {
      LOADOUT_SECRET_KEY: current,
      LOADOUT_PREVIOUS_SECRET_KEYS: previous.join(","),
      LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1",
    },
    { database },
  );

/** A REST call with the API token (a console session's CSRF token changes with the key). */
async function rest(server: TestServer, path: string, method = "GET") {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(method === "POST" ? { "content-type": "application/json" } : {}) },
    ...(method === "POST" ? { body: "{}" } : {}),
  });
  return { status: res.status, body: await res.json() };
}

/** `tracker_echo` through /mcp; the answer's text and whether it is an error. */
async function echo(server: TestServer, text: string) {
  const client = new Client({ name: "rotation-test", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  try {
    const result = await client.callTool({ name: "tracker_echo", arguments: { text } });
    const content = (result.content ?? []) as { text?: string }[];
    return { text: content.map((c) => c.text ?? "").join("\n"), isError: result.isError === true };
  } finally {
    await client.close();
  }
}

/** The key ids the server's sealed values name, read from the database. */
async function sealedUnder(): Promise<(string | null)[]> {
  const [row] = await database.db
    .select({ headers: mcpServers.headers, urlSealed: mcpServers.urlSealed })
    .from(mcpServers)
    .where(eq(mcpServers.slug, "tracker"));
  if (!row?.urlSealed) throw new Error("the tracker's URL was not sealed");
  return [...Object.values(row.headers), row.urlSealed].map(sealedKeyId);
}

describe("rotating LOADOUT_SECRET_KEY", () => {
  it("keeps a server's secrets usable with the old key listed, re-seals them, and then needs only the new key", async () => {
    // Under key A: a server whose header and URL hold secrets, tested, approved and called.
    let server = await serve(KEY_A);
    try {
      const account = await signUpAccount(server.url, "rotation@example.com");
      token = (await account.token(["mcp", "servers:read", "servers:write"])).secret;
      const imported = await account.rest("/v1/workspaces/me/servers/import", {
        method: "POST",
        body: {
          text: JSON.stringify({
            mcpServers: {
              tracker: {
                url: `${upstream.url}?api_key=url-secret-0123456789`,
                headers: { Authorization: UPSTREAM_SECRET },
              },
            },
          }),
        },
      });
      expect(imported.status, JSON.stringify(imported.body)).toBe(200);
      expect((await rest(server, "/v1/workspaces/me/servers/tracker/test", "POST")).body.error).toBeNull();
      expect((await rest(server, "/v1/workspaces/me/servers/tracker/tools/approve", "POST")).status).toBe(200);
      expect(await echo(server, "under A")).toEqual({ text: "under A", isError: false });
      expect(upstream.authorizations().at(-1)).toBe(UPSTREAM_SECRET);
      expect(await sealedUnder()).toEqual([ID_A, ID_A]);
    } finally {
      await server.close();
    }

    // Key B alone: the secrets cannot be opened. Every answer says so; none is a 500, nothing is sent.
    server = await serve(KEY_B);
    try {
      const listed = await rest(server, "/v1/workspaces/me/servers");
      expect(listed.status).toBe(200);
      expect(listed.body.servers[0].headers).toEqual({ Authorization: "(cannot be read: enter it again)" });
      const sent = upstream.requests();
      const refused = await echo(server, "under B alone");
      expect(refused.isError).toBe(true);
      expect(refused.text).toMatch(/tracker cannot be used: .*no longer has.*The call was not sent/);
      const tested = await rest(server, "/v1/workspaces/me/servers/tracker/test", "POST");
      expect(tested.status).toBe(200);
      expect(tested.body.error).toMatch(
        /enter the secret again, or have the operator list that key in LOADOUT_PREVIOUS_SECRET_KEYS/,
      );
      expect(tested.body.server.status).toBe("failed");
      expect(upstream.requests()).toBe(sent);
      expect(JSON.stringify([listed.body, tested.body, refused.text])).not.toContain("upstream-secret-value");
      // Nothing was re-sealed: no key this start had opens them.
      expect(await sealedUnder()).toEqual([ID_A, ID_A]);
    } finally {
      await server.close();
    }

    // Key B with A listed as previous: the start re-seals everything under B, and the server works.
    server = await serve(KEY_B, [KEY_A]);
    try {
      for (let i = 0; i < 100 && (await sealedUnder()).some((id) => id !== ID_B); i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(await sealedUnder()).toEqual([ID_B, ID_B]);
      expect(server.logs.find((l) => l.msg === "server secrets re-sealed under LOADOUT_SECRET_KEY")).toMatchObject({
        resealed: 1,
        unopenable: 0,
      });
      expect((await rest(server, "/v1/workspaces/me/servers/tracker/test", "POST")).body.error).toBeNull();
      expect(await echo(server, "under B, A listed")).toEqual({ text: "under B, A listed", isError: false });
      expect(upstream.authorizations().at(-1)).toBe(UPSTREAM_SECRET);
    } finally {
      await server.close();
    }

    // Key B alone again: the re-sealed secrets open without A.
    server = await serve(KEY_B);
    try {
      const listed = await rest(server, "/v1/workspaces/me/servers");
      expect(listed.body.servers[0].headers.Authorization).toBe("(set)");
      expect(await echo(server, "under B again")).toEqual({ text: "under B again", isError: false });
      expect(upstream.authorizations().at(-1)).toBe(UPSTREAM_SECRET);
    } finally {
      await server.close();
    }
  });

  it("re-seals a row only while it holds what was read: an edit made meanwhile wins", async () => {
    const underA = createSecretBox(deploymentKeys(KEY_A), { purpose: "server-headers" });
    const [row] = await database.db.select().from(mcpServers).where(eq(mcpServers.slug, "tracker"));
    if (!row) throw new Error("no tracker row");
    const edited = await underA.seal("Bearer edited-meanwhile-0001", headerAd(row.id, "Authorization"));
    await database.db
      .update(mcpServers)
      .set({ headers: { Authorization: await underA.seal(UPSTREAM_SECRET, headerAd(row.id, "Authorization")) } })
      .where(eq(mcpServers.id, row.id));
    // The box the re-seal uses: its first opening stands for a user's edit landing meanwhile.
    const rotated = createSecretBox(deploymentKeys(KEY_B, [KEY_A]), { purpose: "server-headers" });
    let edits = 0;
    const racing = {
      keyId: rotated.keyId,
      seal: rotated.seal,
      async open(sealed: string, associatedData: string) {
        if (edits++ === 0)
          await database.db
            .update(mcpServers)
            .set({ headers: sql`${JSON.stringify({ Authorization: edited })}::jsonb` })
            .where(eq(mcpServers.id, row.id));
        return rotated.open(sealed, associatedData);
      },
    };
    expect(await resealServerSecrets(database.db, racing)).toEqual({ resealed: 0, unopenable: 0 });
    const [after] = await database.db.select().from(mcpServers).where(eq(mcpServers.id, row.id));
    expect(after?.headers).toEqual({ Authorization: edited });
    // The next pass takes the edited value; a value no key opens is counted and left alone.
    expect(await resealServerSecrets(database.db, rotated)).toEqual({ resealed: 1, unopenable: 0 });
    const withoutA = createSecretBox(deploymentKeys(KEY_B), { purpose: "server-headers" });
    expect(await withoutA.open((await sealedHeader(row.id)) ?? "", headerAd(row.id, "Authorization"))).toBe(
      "Bearer edited-meanwhile-0001",
    );
    const strayKey = "rotation-test-key-C-0123456789abcdefghijkl";
    const stray = createSecretBox(deploymentKeys(strayKey), { purpose: "server-headers" });
    await database.db
      .update(mcpServers)
      .set({ headers: { Authorization: await stray.seal("Bearer stray", headerAd(row.id, "Authorization")) } })
      .where(eq(mcpServers.id, row.id));
    expect(await resealServerSecrets(database.db, rotated)).toEqual({ resealed: 0, unopenable: 1 });
    await expect(rotated.open((await sealedHeader(row.id)) ?? "", headerAd(row.id, "Authorization"))).rejects.toThrow(
      SecretBoxError,
    );
  });
});

async function sealedHeader(id: string): Promise<string | undefined> {
  const [row] = await database.db.select({ headers: mcpServers.headers }).from(mcpServers).where(eq(mcpServers.id, id));
  return row?.headers.Authorization;
}
