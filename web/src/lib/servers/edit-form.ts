import { ApiError } from "@/lib/api";
import type { Server, ServerEdit, ServerTransport } from "./types";

// The server page's edit form: what is typed, turned into the PATCH body (typed by the API's
// UpdateServerInput schema). The form checks only what it must to build the body — a label and a
// URL present, the timeout a number of seconds — and leaves every other rule to the API, whose
// refusals are placed under their fields. (The schema module itself cannot be bundled into the
// console yet: api/src/schemas/skills.ts, which it imports, imports @loadout/db and its driver.)

export type EditField = "label" | "description" | "url" | "transport" | "callTimeoutMs";
export type EditErrors = Partial<Record<EditField, string>>;

export type EditDraft = {
  label: string;
  description: string;
  url: string;
  transport: ServerTransport;
  // Seconds, as typed.
  timeoutSeconds: string;
};

export function draftOf(server: Server): EditDraft {
  return {
    label: server.label,
    description: server.description,
    url: server.url,
    transport: server.transport,
    timeoutSeconds: String(server.callTimeoutMs / 1000),
  };
}

const FIELDS: readonly EditField[] = ["label", "description", "url", "transport", "callTimeoutMs"];

function seconds(text: string): number {
  const trimmed = text.trim();
  return trimmed === "" ? Number.NaN : Math.round(Number(trimmed) * 1000);
}

// The bounds of UpdateServerInput.callTimeoutMs, needed here to turn seconds into a valid body.
const MIN_TIMEOUT_MS = 1000;
const MAX_TIMEOUT_MS = 600_000;

/** The changed fields as a PATCH body, or the errors that keep it from being sent. */
export function editFromDraft(
  server: Server,
  draft: EditDraft,
): { edit: ServerEdit; changed: boolean; errors: EditErrors } {
  const timeout = seconds(draft.timeoutSeconds);
  const edit: ServerEdit = { revision: server.revision };
  const label = draft.label.trim();
  const url = draft.url.trim();
  if (label !== server.label) edit.label = label;
  if (draft.description !== server.description) edit.description = draft.description;
  if (url !== server.url) edit.url = url;
  if (draft.transport !== server.transport) edit.transport = draft.transport;
  if (timeout !== server.callTimeoutMs) edit.callTimeoutMs = timeout;
  const errors: EditErrors = {};
  if (label === "") errors.label = "Enter a label.";
  if (url === "") errors.url = "Enter the server's URL.";
  if (!Number.isFinite(timeout) || timeout < MIN_TIMEOUT_MS || timeout > MAX_TIMEOUT_MS)
    errors.callTimeoutMs = `Enter a call timeout between ${MIN_TIMEOUT_MS / 1000} and ${MAX_TIMEOUT_MS / 1000} seconds.`;
  return { edit, changed: Object.keys(edit).length > 1, errors };
}

/** The API's refusals placed under their fields; the rest stays for the banner. */
export function placeEditErrors(error: unknown): { fields: EditErrors; others: ApiError["details"] } {
  const fields: EditErrors = {};
  const others: ApiError["details"] = [];
  if (!(error instanceof ApiError)) return { fields, others };
  for (const detail of error.details) {
    const field = FIELDS.find((name) => detail.path.split(/[./[\]]/).includes(name));
    if (field && !fields[field]) fields[field] = detail.message.charAt(0).toUpperCase() + detail.message.slice(1);
    else others.push(detail);
  }
  return { fields, others };
}
