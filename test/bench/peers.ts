/**
 * The peers' setup alone (`npx tsx test/bench/peers.ts`): server-everything's echo through a fresh
 * Loadout on a fresh Postgres database (DATABASE_URL's server, else 127.0.0.1:5432), both eras.
 */
import postgres from "postgres";
import { benchPeers, printEverything } from "./everything";

const base = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const admin = postgres(base, { max: 1, onnotice: () => {} });
const name = `loadout_peers_${Date.now().toString(36)}`;
await admin.unsafe(`create database "${name}"`);
try {
  const url = new URL(base);
  url.pathname = `/${name}`;
  printEverything(await benchPeers(url.toString()));
} finally {
  await admin.unsafe(`drop database if exists "${name}" with (force)`);
  await admin.end();
}
