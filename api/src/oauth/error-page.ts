import type { OAuthError } from "./errors";

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch] ?? ch);

/**
 * What the browser shows when an authorization request cannot be sent back to its client (an
 * unknown client, a redirect URI it did not register): redirecting would make Loadout an open
 * redirector, so the error stays here.
 */
export function errorPage(error: OAuthError): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Cannot connect · Loadout</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1f2328}code{background:#f3f4f6;padding:0 .25rem;border-radius:4px}</style></head><body><h1>This app cannot connect to Loadout</h1><p>${escapeHtml(error.message)}</p><p>Error: <code>${escapeHtml(error.code)}</code>. Nothing was shared. Go back to the app and add the connector again; if this keeps happening, tell the app's developer.</p></body></html>`;
}
