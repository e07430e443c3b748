import type { Database } from "@loadout/db";
import { schemaState } from "@loadout/db/schema-version";
import { describeError } from "../errors";

/**
 * The Worker cannot migrate (it reads no files, and Hyperdrive is no place for DDL): migrations
 * are a deploy step (docs/operations.md). Until they have run, every request is answered 503 with
 * what to do, rather than failing on a missing column halfway through a write. The check runs once
 * per isolate once it has passed; while the database is behind, each request checks again (on its
 * own connection: I/O objects and their promises cannot be shared between requests).
 */
let current = false;

export const SCHEMA_BEHIND_MESSAGE =
  "The database is behind this Worker's schema: run the migrations (npm run db:migrate on a direct database URL), see docs/operations.md.";

export async function schemaBehindAnswer(
  open: () => { db: Database; release: () => Promise<void> },
  log: (message: string) => void,
): Promise<Response | null> {
  if (current) return null;
  const { db, release } = open();
  try {
    const state = await schemaState(db);
    if (state.kind === "current") {
      current = true;
      return null;
    }
    log(`schema behind: ${state.applied} of ${state.expected} migrations applied; run npm run db:migrate`);
  } catch (error) {
    // The database cannot be reached: the app answers that in its own words (and this checks again next time).
    log(`schema check failed: ${describeError(error)}`);
    return null;
  } finally {
    await release();
  }
  return Response.json(
    { error: { code: "unavailable", message: SCHEMA_BEHIND_MESSAGE, requestId: "none" } },
    { status: 503, headers: { "retry-after": "30", "cache-control": "no-store" } },
  );
}
