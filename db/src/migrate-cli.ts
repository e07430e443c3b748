import { migratePostgresDatabase } from "./open";

// Applies migrations to DATABASE_URL: the deploy step for Workers, which cannot read migration files.
const url = process.env.DATABASE_URL;
if (!url) {
  console.error("DATABASE_URL is not set: point it at the Postgres database to migrate.");
  process.exit(1);
}
await migratePostgresDatabase(url);
console.log("migrations applied");
