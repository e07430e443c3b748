import { BRIDGE_JS } from "./bridge";
import { DOM_JS } from "./dom";
import { MARKDOWN_JS } from "./markdown";
import { BASE_CSS } from "./styles";

/** What the views report as `appInfo` in `ui/initialize`. */
export const VIEWS_VERSION = "1.0.0";

/**
 * Defence in depth: the host applies its own CSP, but a view must not load anything even under a
 * host that forgets to (no `connect-src`, `frame-src`, `font-src` or remote `img-src`).
 */
export const VIEW_CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:";

export interface ViewParts {
  title: string;
  /** `appInfo.name` in the handshake. */
  appName: string;
  /** Shown until a result arrives, and for good under a host that never sends one. */
  fallback: string;
  css: string;
  script: string;
  /** Whether the script renders Markdown (only the skills view does). */
  markdown?: boolean;
}

const escapeHtml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** One self-contained view document: shared styles, DOM helpers and bridge, then the view's own script. */
export function viewDocument(parts: ViewParts): string {
  const appInfo = JSON.stringify({ name: parts.appName, version: VIEWS_VERSION });
  const script = [
    '"use strict";',
    `var APP_INFO = ${appInfo};`,
    DOM_JS,
    parts.markdown ? MARKDOWN_JS : "",
    BRIDGE_JS,
    parts.script,
  ].join("\n");
  if (/<\/script/i.test(script)) throw new Error(`The script of ${parts.appName} would close its <script> element.`);
  return [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${VIEW_CSP}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(parts.title)}</title>`,
    `<style>${BASE_CSS}${parts.css}</style>`,
    "</head>",
    "<body>",
    "<main>",
    `<p id="status" class="muted" role="status">${escapeHtml(parts.fallback)}</p>`,
    '<div id="view"></div>',
    "</main>",
    `<script>(function () {\n${script}\n})();</script>`,
    "</body>",
    "</html>",
    "",
  ].join("\n");
}
