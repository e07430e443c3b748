import type { ChildProcess, StdioOptions } from "node:child_process";

/** Where the bundled Node entry is written (`.loadout/server/node.mjs`). */
export const SERVER_BUNDLE: string;
/** Bundles api/src/node.ts unless the bundle is newer than all its sources; its path. */
export function buildServer(): Promise<string>;
/** Node's flags for the server process, before the bundle's path (the young generation's size unless NODE_OPTIONS sets it). */
export function nodeFlags(env: NodeJS.ProcessEnv, nodeArgs?: string[]): string[];
/** Builds (if needed) and starts Loadout's Node entry the way `npm start` does. */
export function spawnServer(options?: {
  env?: NodeJS.ProcessEnv;
  nodeArgs?: string[];
  stdio?: StdioOptions;
}): Promise<ChildProcess>;
