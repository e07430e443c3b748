import { EXTENSION_ID, getUiCapability, RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/server";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { canonicalJson } from "../servers/tools";

/** The MCP Apps extension (2026-01-26) and the one view type Loadout serves and passes through. */
export const UI_EXTENSION = EXTENSION_ID;
export const VIEW_MIME_TYPE = RESOURCE_MIME_TYPE;
const UI_SCHEME = "ui://";
/** The legacy flat key of a tool's view, still written beside `_meta.ui` (as the ext-apps helpers do). */
const LEGACY_URI_KEY = "ui/resourceUri";
const VISIBILITIES = new Set(["model", "app"]);

/**
 * Whether a client negotiated MCP Apps: it declared the extension (in `initialize` on 2025, in a
 * request's client capabilities on 2026-07-28) with the view type among its `mimeTypes`, which the
 * spec requires. Anything else gets undecorated tools and no views.
 */
export function uiNegotiated(capabilities: unknown): boolean {
  if (!capabilities || typeof capabilities !== "object") return false;
  const declared = getUiCapability(capabilities as Parameters<typeof getUiCapability>[0]) as
    | { mimeTypes?: unknown }
    | undefined;
  return Array.isArray(declared?.mimeTypes) && declared.mimeTypes.includes(VIEW_MIME_TYPE);
}

export const isViewUri = (uri: unknown): uri is string => typeof uri === "string" && uri.startsWith(UI_SCHEME);

/** A tool's link to its view, as kept for an upstream tool and listed to clients that negotiated Apps. */
export interface ToolView {
  resourceUri: string;
  /** Who may call the tool: the agent ("model"), the view ("app"); both when absent. */
  visibility?: ("model" | "app")[];
}

/**
 * The view an upstream tool links to, from its `_meta` (`ui.resourceUri`, or the deprecated flat
 * `ui/resourceUri`): null when it links none or the link is not a `ui://` URI of sane length.
 */
export function toolViewOf(meta: unknown): ToolView | null {
  if (!meta || typeof meta !== "object") return null;
  const record = meta as Record<string, unknown>;
  const ui = record.ui as { resourceUri?: unknown; visibility?: unknown } | undefined;
  const uri = ui?.resourceUri ?? record[LEGACY_URI_KEY];
  if (!isViewUri(uri) || uri.length > 2048) return null;
  const visibility = Array.isArray(ui?.visibility)
    ? (ui.visibility.filter((v) => typeof v === "string" && VISIBILITIES.has(v)) as ToolView["visibility"])
    : undefined;
  return { resourceUri: uri, ...(visibility?.length ? { visibility } : {}) };
}

/** The `_meta` a tool is listed with for a client that negotiated Apps: `ui` and the legacy key, as registerAppTool writes them. */
export function toolViewMeta(view: ToolView): Record<string, unknown> {
  return { ui: { ...view }, [LEGACY_URI_KEY]: view.resourceUri };
}

/** Why a view is not served to this client: it did not negotiate the extension. */
export function viewRefusal(uri: string): string {
  return `${JSON.stringify(uri)} is an MCP Apps view, served only to clients that negotiate the ${UI_EXTENSION} extension: declare it in the client's capabilities with mimeTypes ["${VIEW_MIME_TYPE}"].`;
}

/** The listing fields that can hold views (a resource's `uri`, a template's `uriTemplate`). */
const VIEW_LISTINGS: Record<string, { field: string; key: string }> = {
  "resources/list": { field: "resources", key: "uri" },
  "resources/templates/list": { field: "resourceTemplates", key: "uriTemplate" },
};

/** A listing as a client that did not negotiate Apps gets it: without `ui://` views; any other result unchanged. */
export function withoutViews(method: string, result: Record<string, unknown>): Record<string, unknown> {
  const listing = VIEW_LISTINGS[method];
  const entries = listing ? result[listing.field] : undefined;
  if (!listing || !Array.isArray(entries)) return result;
  return {
    ...result,
    [listing.field]: entries.filter((e) => !isViewUri((e as Record<string, unknown>)?.[listing.key])),
  };
}

/**
 * The entry a tool is listed with: with its view for a client that negotiated Apps; without it for
 * any other, and not at all when only views may call it (`visibility: ["app"]`), as an Apps host
 * would hide it from the agent.
 */
export function listedFor<T>(apps: boolean, tool: { view?: ToolView; definition: T; appDefinition?: T }): T[] {
  if (apps) return [tool.appDefinition ?? tool.definition];
  const visibility = tool.view?.visibility;
  return visibility && !visibility.includes("model") ? [] : [tool.definition];
}

/**
 * Where an upstream view's content digest is kept in its stored resource definition (recorded when
 * the server's items are listed, part of the item's pin): a key no upstream field can be.
 */
export const VIEW_DIGEST_KEY = "loadout/viewDigest";

/** The digest of a view's content as a `resources/read` served it: each entry's type and text or bytes. */
export function viewContentDigest(result: Record<string, unknown>): string {
  const contents = Array.isArray(result.contents) ? (result.contents as Record<string, unknown>[]) : [];
  const served = contents.map((c) => ({ mimeType: c?.mimeType, text: c?.text, blob: c?.blob }));
  return `sha256:${bytesToHex(sha256(new TextEncoder().encode(canonicalJson(served))))}`;
}

/**
 * Why a view read may not be passed on, or null: its content must be what was recorded when the
 * server's items were last listed, which is what the user approved (the digest is in the pin).
 */
export function viewContentProblem(recorded: unknown, result: Record<string, unknown>): string | null {
  if (typeof recorded !== "string")
    return "not checked yet: press Test on the server's page in the Loadout console, then review it";
  if (viewContentDigest(result) !== recorded)
    return "changed since it was approved: press Test on the server's page in the Loadout console and review the change";
  return null;
}
