import { guardedFetch, UpstreamRefused } from "@loadout/workers";
import { cacheLifetimeSeconds } from "../../domain/oauth/cache-lifetime";
import { upstreamAddressProblem, upstreamUrlProblem } from "../../domain/servers/address-policy";
import { OAuthError } from "../../oauth/errors";
import { ClientMetadataDocument } from "../../schemas/oauth";
import type { OAuthDeps } from "./deps";

/** The document could not be fetched right now (timeout, network, 5xx): a cached copy may stand in. */
export class MetadataUnavailable extends OAuthError {}

export const METADATA_MAX_BYTES = 10 * 1024;
export const METADATA_TIMEOUT_MS = 5000;

/**
 * Fetches a client ID metadata document through the same SSRF guard as upstream MCP servers
 * (https, public addresses only, every redirect checked), within 10 KB and 5 s, and checks that
 * it names itself: its `client_id` must be the URL it was fetched from.
 */
export async function fetchClientMetadata(
  url: string,
  deps: OAuthDeps,
  now: Date,
): Promise<{ document: ClientMetadataDocument; lifetimeSeconds: number }> {
  const refuse = (why: string) => new OAuthError("invalid_client", `The client metadata document at ${url} ${why}.`);
  const unavailable = (why: string) =>
    new MetadataUnavailable("invalid_client", `The client metadata document at ${url} ${why}.`);
  const resolveHost = deps.resolveHost;
  if (!resolveHost) throw refuse("cannot be fetched: this deployment has no resolver for the SSRF guard");
  const options = { allowLoopback: deps.allowLoopback };
  const guarded = guardedFetch(
    {
      urlProblem: (u) => upstreamUrlProblem(u, options),
      addressProblem: (ip) => upstreamAddressProblem(ip, options),
      resolve: resolveHost,
    },
    deps.fetch ?? fetch,
  );
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), METADATA_TIMEOUT_MS);
  let text: string;
  let response: Response;
  try {
    response = await guarded(url, { headers: { accept: "application/json" }, signal: controller.signal });
    if (response.status >= 500 || response.status === 429) throw unavailable(`answered HTTP ${response.status}`);
    if (!response.ok) throw refuse(`answered HTTP ${response.status}`);
    text = await readCapped(response, METADATA_MAX_BYTES, refuse);
  } catch (error) {
    if (error instanceof OAuthError) throw error;
    if (error instanceof UpstreamRefused) throw refuse(`may not be fetched: ${error.message}`);
    if (controller.signal.aborted) throw unavailable(`did not answer within ${METADATA_TIMEOUT_MS / 1000} s`);
    throw unavailable(`could not be fetched (${(error as Error).message})`);
  } finally {
    clearTimeout(timer);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw refuse("is not JSON");
  }
  const parsed = ClientMetadataDocument.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "document"}: ${i.message}`).join("; ");
    throw refuse(`is not a valid client metadata document (${problems})`);
  }
  if (parsed.data.client_id !== url) {
    throw refuse(`names client_id ${JSON.stringify(parsed.data.client_id)}, not its own URL`);
  }
  return {
    document: parsed.data,
    lifetimeSeconds: cacheLifetimeSeconds(response.headers.get("cache-control"), response.headers.get("expires"), now),
  };
}

async function readCapped(response: Response, limit: number, refuse: (why: string) => OAuthError): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > limit) throw refuse(`is larger than ${limit / 1024} KB`);
  const reader = response.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw refuse(`is larger than ${limit / 1024} KB`);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}
