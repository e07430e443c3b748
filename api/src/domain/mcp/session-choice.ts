import { AppError } from "../../errors";
import { normalizeProjectPath } from "../activation";

export type SessionMode = "agent" | "plan" | "goal";
const MODES: readonly string[] = ["agent", "plan", "goal"];

/** Where a session's mode and project can come from, most binding first. */
export interface SessionSources {
  /** Chosen on an OAuth consent page: what the user consented to, so it wins. */
  consent: { project: string | null; mode: SessionMode | null } | null;
  /** A saved endpoint (`/mcp/e/{id}`): its settings, a project of null included, bind the URL. */
  endpoint: { project: string | null; mode: SessionMode } | null;
  /** The request's own: `?mode=`/`?project=`, else the `X-Loadout-Mode`/`X-Loadout-Project` headers. */
  request: { mode: string | null; project: string | null };
}

export interface SessionChoice {
  mode: SessionMode;
  project: string | null;
  /**
   * Whether the client's MCP roots may still name the project (the third source): nothing else
   * named one and no endpoint fixed it.
   */
  rootsMayName: boolean;
}

/**
 * The order a session's mode and project come from: the consent's pins, then the saved endpoint's,
 * then the request's (query before header); the mode defaults to agent. A project path is
 * normalised as everywhere; an unknown mode is refused with what to use.
 */
export function chooseSession({ consent, endpoint, request }: SessionSources): SessionChoice {
  const mode = consent?.mode ?? endpoint?.mode ?? request.mode ?? "agent";
  if (!MODES.includes(mode)) throw new AppError("invalid_request", `Unknown mode "${mode}": use agent, plan or goal.`);
  const raw = consent?.project ?? (endpoint ? endpoint.project : request.project);
  const project = raw ? normalizeProjectPath(raw) || null : null;
  return { mode: mode as SessionMode, project, rootsMayName: !endpoint && project === null };
}
