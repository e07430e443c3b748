import { customType } from "drizzle-orm/pg-core";

/** Raw bytes. postgres.js and PGlite both send and return Uint8Array (Buffer on Node). */
export const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => "bytea",
});
