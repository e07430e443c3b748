import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * A Worker built as wrangler builds it for deployment (`wrangler deploy --dry-run`, the config's own
 * minification and source maps), with esbuild's metafile. The deployed bundle is minified, so it
 * keeps no trace of which module a line came from: what it holds is read from the metafile.
 */

export const root = fileURLToPath(new URL("../../../", import.meta.url));
const apiDir = path.join(root, "api");

/** Our own code, as opposed to what node_modules brings. */
export const OURS = ["api/src", "db/src", "workers/src"];

export interface Metafile {
  inputs: Record<string, { bytes: number; imports: { path: string; kind: string; external?: boolean }[] }>;
  outputs: Record<string, { bytes: number; inputs: Record<string, { bytesInOutput: number }> }>;
}

export interface BuiltWorker {
  code: string;
  meta: Metafile;
  /**
   * The modules with code in the bundle, as paths from the repository root. `meta.inputs` also
   * lists modules that were imported (through a package's index, say) and then shaken off whole.
   */
  bundled: string[];
}

/** A metafile path (relative to api/, where wrangler runs) as a path from the repository root. */
export const fromRoot = (input: string) => path.relative(root, path.resolve(apiDir, input)).split(path.sep).join("/");
export const isOurs = (file: string) => OURS.some((dir) => file.startsWith(`${dir}/`));

/** Builds the Worker of `config` (relative to the repository root) into `dir`; `script` names its bundle. */
export function buildWorker(config: string, dir: string, script: string): BuiltWorker {
  const wrangler = createRequire(path.join(apiDir, "package.json")).resolve("wrangler/bin/wrangler.js");
  const metafile = path.join(dir, "meta.json");
  execFileSync(
    process.execPath,
    [wrangler, "deploy", "--dry-run", "--outdir", dir, "--metafile", metafile, "--config", path.join(root, config)],
    {
      cwd: apiDir,
      stdio: "pipe",
      env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" },
    },
  );
  const meta: Metafile = JSON.parse(readFileSync(metafile, "utf8"));
  const output = Object.entries(meta.outputs).find(([file]) => path.basename(file) === script)?.[1];
  if (!output) throw new Error(`wrangler wrote no ${script} in ${dir}`);
  return {
    code: readFileSync(path.join(dir, script), "utf8"),
    meta,
    bundled: Object.entries(output.inputs)
      .filter(([, { bytesInOutput }]) => bytesInOutput > 0)
      .map(([input]) => fromRoot(input)),
  };
}

/** A bundled module's source without its comments (which may name anything), e.g. to scan for an API it calls. */
export function sourceWithoutComments(file: string): string {
  return readFileSync(path.join(root, file), "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/^\s*\/\/.*$/gm, "");
}
