/**
 * What the Worker bundle gets for zod's `locales` namespace (infra/wrangler.jsonc `alias`): only the
 * English messages, which zod configures itself with; the other locales (about 40 KiB gzip) are
 * never selected by Loadout, whose messages are its own. Node keeps zod whole.
 */
export { default as en } from "zod/v4/locales/en.js";
