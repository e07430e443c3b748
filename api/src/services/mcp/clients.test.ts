import { users } from "@loadout/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp, TestUser } from "../../testing";
import type { Principal } from "../context";
import { type ClientSighting, listClients, recordClient } from "./clients";

let t: TestApp;
let principal: Principal;

beforeAll(async () => {
  t = await createTestApp();
  await TestUser.signUp(t.app, "counted@example.com");
  const [user] = await t.database.db.select().from(users).where(eq(users.email, "counted@example.com"));
  principal = { kind: "session", userId: user?.id ?? "", sessionId: "ses_test", scopes: ["mcp"], workspaceId: null };
});
afterAll(() => t.close());

const sighting: ClientSighting = {
  clientName: "counting-client",
  clientVersion: "1.0.0",
  era: "modern",
  protocolVersion: "2026-07-28",
  project: null,
  mode: "agent",
  endpointId: null,
};

describe("recordClient", () => {
  it("counts every request, though it writes at most once a minute", async () => {
    const start = Date.parse("2026-12-01T10:00:00Z");
    for (const seconds of [0, 5, 10, 20])
      await recordClient(t.database.db, principal, sighting, new Date(start + seconds * 1000));
    const first = await listClients(t.database.db, principal.userId);
    // One write so far; the three requests after it wait for the next one.
    expect(first.map((c) => c.requests)).toEqual([1]);
    await recordClient(t.database.db, principal, sighting, new Date(start + 61_000));
    const second = await listClients(t.database.db, principal.userId);
    expect(second.map((c) => c.requests)).toEqual([5]);
  });
});
