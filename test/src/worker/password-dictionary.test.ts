import { createTestApp, type TestApp } from "@loadout/api/testing";
import { migratePostgresDatabase } from "@loadout/db/open";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWorkerIfStale, disposeAfterDatabase, type RunningWorker, scratchDatabase, startWorker } from "./harness";

/**
 * On Workers the password-strength dictionary is a static asset (web/out/_loadout/…), fetched on
 * the first new password, not part of the script: the rule must judge as on Node, and a Worker
 * that cannot read it must say so rather than accept any password.
 */

const bindings = { LOADOUT_SECRET_KEY: "dictionary-test-key-0123456789abcdefghij", LOADOUT_INSECURE_COOKIES: "1" };
const weak = [
  { email: "ada.lovelace@example.com", password: "lovelace2024", name: "Ada Lovelace" },
  { email: "grace@example.com", password: "password123" },
  { email: "alan@example.com", password: "qwertyuiop12" },
];

let database: Awaited<ReturnType<typeof scratchDatabase>> | undefined;
let withAssets: RunningWorker | undefined;
let withoutAssets: RunningWorker | undefined;
let node: TestApp | undefined;

beforeAll(async () => {
  buildWorkerIfStale();
  database = await scratchDatabase("loadout_pwd");
  await migratePostgresDatabase(database.url);
  withAssets = startWorker({ hyperdrive: database.url, bindings });
  withoutAssets = startWorker({ hyperdrive: database.url, bindings, assets: false });
  node = await createTestApp();
  await Promise.all([withAssets.mf.ready, withoutAssets.mf.ready]);
}, 60_000);

afterAll(async () => {
  await node?.close();
  const both = {
    dispose: async () => void (await Promise.all([withAssets?.mf.dispose(), withoutAssets?.mf.dispose()])),
  };
  await disposeAfterDatabase(both, async () => database?.drop(), database?.url);
});

const signUpRequest = (body: unknown) => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

/** Miniflare's Response and the global one differ only in their types. */
async function answer(res: { status: number; json(): Promise<unknown> }) {
  const body = (await res.json()) as { error?: { code: string; message: string; details?: unknown } };
  return { status: res.status, code: body.error?.code, message: body.error?.message, details: body.error?.details };
}

describe("the password rule on Workers, with its dictionary from the static assets", () => {
  it("refuses weak passwords with the same answer as Node", async () => {
    const mf = withAssets?.mf;
    if (!mf || !node) throw new Error("not started");
    for (const input of weak) {
      const onWorker = await answer(await mf.dispatchFetch("http://loadout.test/v1/auth/signup", signUpRequest(input)));
      const onNode = await answer(await node.app.request("/v1/auth/signup", signUpRequest(input)));
      expect(onWorker.status).toBe(400);
      expect(onWorker.message).toContain("password is too easy to guess");
      expect(onWorker).toEqual(onNode);
    }
  });

  it("accepts a strong one", async () => {
    const res = await withAssets?.mf.dispatchFetch(
      "http://loadout.test/v1/auth/signup",
      signUpRequest({ email: "strong@example.com", password: "correct horse battery" }),
    );
    expect(res?.status).toBe(201);
    await res?.arrayBuffer();
  });

  it("answers 503 without the ASSETS binding, and logs why", async () => {
    const worker = withoutAssets;
    if (!worker) throw new Error("not started");
    const res = await worker.mf.dispatchFetch(
      "http://loadout.test/v1/auth/signup",
      signUpRequest({ email: "nobody@example.com", password: "correct horse battery" }),
    );
    const body = await answer(res);
    expect(body.status).toBe(503);
    expect(body.code).toBe("unavailable");
    expect(body.message).toBe(
      "New passwords cannot be checked right now: the password-strength dictionary could not be loaded. Try again in a minute.",
    );
    expect(worker.logs.join("\n")).toContain("no ASSETS binding");
    // Only new passwords need it: the rest of the API answers.
    const health = await worker.mf.dispatchFetch("http://loadout.test/healthz");
    expect(health.status).toBe(200);
    await health.arrayBuffer();
  });
});
