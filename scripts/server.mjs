// Loadout's Node entry as `npm start` runs it, for the start script and for every test or bench
// that starts Loadout as a process: api/src/node.ts bundled by esbuild (our code only; packages
// stay in node_modules), run by a plain node. Running the sources under tsx instead costs about
// 120 MiB resident (tsx's module hooks run in a second V8 isolate); see docs/memory.md.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { ROOT } from "./lib.mjs";

export const SERVER_BUNDLE = path.join(ROOT, ".loadout/server/node.mjs");
const INPUTS = `${SERVER_BUNDLE}.inputs.json`;
const ENTRY = path.join(ROOT, "api/src/node.ts");

/** Whether the bundle is older than any file it was built from (or than this script, or the lock file). */
function stale() {
  let built;
  let inputs;
  try {
    built = statSync(SERVER_BUNDLE).mtimeMs;
    inputs = JSON.parse(readFileSync(INPUTS, "utf8"));
  } catch {
    return true;
  }
  // The lock file too: an install can move a package, and the bundle imports packages by path.
  const sources = [...inputs, fileURLToPath(import.meta.url), path.join(ROOT, "package-lock.json")];
  try {
    return sources.some((file) => statSync(path.resolve(ROOT, file)).mtimeMs > built);
  } catch {
    return true; // a source was moved or deleted
  }
}

/**
 * Packages stay external, imported by the file they resolve to from their importer (so a package
 * installed under a workspace's own node_modules is found from the bundle too), relative to the
 * bundle so that the folder can move.
 */
const packagesFromNodeModules = {
  name: "packages-from-node-modules",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === "external" || args.path.startsWith("@loadout/") || isBuiltin(args.path)) return undefined;
      const resolved = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: "external",
      });
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      const relative = path.relative(path.dirname(SERVER_BUNDLE), resolved.path).split(path.sep).join("/");
      return { path: relative.startsWith(".") ? relative : `./${relative}`, external: true };
    });
  },
};

/**
 * Bundles the Node entry unless the bundle is newer than all its sources (about 0.3 s when it
 * builds). Workspace packages (@loadout/*, TypeScript sources) are bundled; every other package is
 * imported from node_modules at run time. Files are written whole and renamed into place, so
 * processes starting at once never read half a bundle.
 */
export async function buildServer() {
  if (!stale()) return SERVER_BUNDLE;
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: [ENTRY],
    outfile: SERVER_BUNDLE,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    sourcemap: "linked",
    metafile: true,
    write: false,
    logLevel: "silent",
    // Node's own conditions only: esbuild's extra `module` condition could pick another file of a
    // package than Node picks for the packages that import it, and load that package twice.
    conditions: ["node"],
    plugins: [packagesFromNodeModules],
  });
  for (const warning of result.warnings) console.warn(`esbuild: ${warning.text}`);
  mkdirSync(path.dirname(SERVER_BUNDLE), { recursive: true });
  const outputs = [
    ...result.outputFiles.map((file) => ({ file: file.path, contents: file.contents })),
    { file: INPUTS, contents: JSON.stringify(Object.keys(result.metafile.inputs)) },
  ];
  // The bundle last: its mtime is what says the rest is current.
  outputs.sort((a, b) => Number(a.file === SERVER_BUNDLE) - Number(b.file === SERVER_BUNDLE));
  for (const { file, contents } of outputs) {
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, contents);
    renameSync(temporary, file);
  }
  return SERVER_BUNDLE;
}

/**
 * V8's young generation held to semi-spaces of 4 MiB (its default maximum is 16): under load both
 * are committed whatever lives in them, and a call's garbage dies young either way. Measured on the
 * peers' setup (docs/memory.md): RSS after the 20-client load 126–129 MiB against 154–173, idle
 * 120 against 135–139, for about 0.02 ms more gateway CPU a call under steady load (more frequent
 * young collections). NODE_OPTIONS may set it otherwise, and a caller's `nodeArgs` come after it.
 */
const HEAP_FLAGS = ["--max-semi-space-size=4"];

/** Node's flags for the server process: HEAP_FLAGS unless NODE_OPTIONS sets the size, the caller's, source maps. */
export function nodeFlags(env, nodeArgs = []) {
  const heap = /--max-semi-space-size/.test(env.NODE_OPTIONS ?? "") ? [] : HEAP_FLAGS;
  return [...heap, ...nodeArgs, "--enable-source-maps"];
}

/**
 * Builds (if needed) and starts the server process: `--enable-source-maps` so logged stack traces
 * point at the sources, the young generation's size (HEAP_FLAGS), and glibc told to give large
 * freed blocks back (scrypt's 16 MiB buffers otherwise stay resident in each thread-pool thread's
 * arena) unless the caller chose otherwise.
 */
export async function spawnServer({ env = process.env, nodeArgs = [], stdio = "inherit" } = {}) {
  const bundle = await buildServer();
  return spawn(process.execPath, [...nodeFlags(env, nodeArgs), bundle], {
    cwd: ROOT,
    stdio,
    env: { MALLOC_MMAP_THRESHOLD_: "131072", ...env },
  });
}
