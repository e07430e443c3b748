import type { Database } from "@loadout/db";
import { sql } from "drizzle-orm";

/** Whether the database answers a trivial query (the probe behind /healthz). */
export function probeDatabase(db: Database): Promise<unknown> {
  return db.execute(sql`select 1`);
}
