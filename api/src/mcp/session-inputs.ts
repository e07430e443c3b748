import type { SessionInputs } from "../services/mcp/session";
import type { McpContext } from "./exchange";

/** A request's session inputs (see SessionInputs), read from the request once. */
export function readSessionInputs(c: McpContext, bearer: string): SessionInputs {
  const header = (name: string) => c.req.header(name) ?? "";
  return {
    bearer,
    url: c.req.url,
    host: header("host"),
    scheme: header("x-forwarded-proto"),
    origin: header("origin"),
    mode: header("x-loadout-mode"),
    project: header("x-loadout-project"),
  };
}
