import postgres from "postgres";
import { benchEverything, printEverything } from "./everything";
import { startServerProcess } from "./server-process";

const base = "postgres://postgres@127.0.0.1:5432/postgres";
const admin = postgres(base, { max: 1, onnotice: () => {} });
const name = `loadout_prof_${Date.now().toString(36)}`;
await admin.unsafe(`create database "${name}"`);
try {
  const url = new URL(base);
  url.pathname = `/${name}`;
  const server = await startServerProcess(
    { DATABASE_URL: url.toString(), LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1", LOADOUT_LOG: "json" },
    ["--cpu-prof", "--cpu-prof-dir=/tmp/prof"],
  );
  try {
    printEverything(await benchEverything(server));
  } finally {
    await server.stop();
  }
} finally {
  await admin.unsafe(`drop database if exists "${name}" with (force)`);
  await admin.end();
}
