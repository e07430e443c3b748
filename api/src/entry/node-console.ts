import { readFile } from "node:fs/promises";
import path from "node:path";
import { serveStatic } from "@hono/node-server/serve-static";
import type { AppDeps } from "../http/env";

/**
 * The built console (Next's static export in `root`) as the Node entry serves it: its files for
 * paths no route claims, and its own not-found page (`404.html`, read once) for a console address
 * that matches no file. Workers get the same from their assets config (`not_found_handling`).
 */
export function nodeConsole(root: string): Pick<AppDeps, "assets" | "notFoundPage"> {
  let page: Promise<string | null> | undefined;
  return {
    assets: serveStatic({ root: path.relative(process.cwd(), root) || "." }),
    notFoundPage: () => {
      page ??= readFile(path.join(root, "404.html"), "utf8").catch(() => null);
      return page;
    },
  };
}
