// Preloaded by the bench only (`--import`, with `--expose-gc`), never by `npm start`: on SIGUSR2
// the server process writes its memory breakdown, as JSON, to LOADOUT_BENCH_MEMORY_FILE.
import { readFileSync, renameSync, writeFileSync } from "node:fs";

const file = process.env.LOADOUT_BENCH_MEMORY_FILE;
const MiB = 1024 * 1024;

function statusMiB(status, field) {
  const kb = Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1]);
  return Number.isFinite(kb) ? kb / 1024 : null;
}

if (file) {
  process.on("SIGUSR2", () => {
    const status = readFileSync("/proc/self/status", "utf8");
    const before = process.memoryUsage();
    globalThis.gc?.();
    const after = process.memoryUsage();
    const figures = {
      rss: statusMiB(status, "VmRSS"),
      rssAnon: statusMiB(status, "RssAnon"),
      rssFile: statusMiB(status, "RssFile"),
      heapUsed: before.heapUsed / MiB,
      heapTotal: before.heapTotal / MiB,
      heapUsedAfterGc: after.heapUsed / MiB,
      external: before.external / MiB,
      arrayBuffers: before.arrayBuffers / MiB,
    };
    writeFileSync(`${file}.tmp`, JSON.stringify(figures));
    renameSync(`${file}.tmp`, file);
  });
}
