import { newId, oauthClients } from "@loadout/db";
import { eq } from "drizzle-orm";
import { clientIdUrlProblem, looksLikeClientIdUrl } from "../../domain/oauth/client-id-url";
import { type ApplicationType, redirectHost, redirectUriProblem } from "../../domain/oauth/redirect-uris";
import { OAuthError } from "../../oauth/errors";
import type { RegisterClientInput } from "../../schemas/oauth";
import type { AnonymousContext } from "../context";
import { hitRateLimit, type RateLimitRule } from "../rate-limit";
import { fetchClientMetadata, MetadataUnavailable } from "./client-metadata";
import type { OAuthDeps } from "./deps";

/** Dynamic registration is anonymous: an address may register this many clients an hour. */
export const REGISTER_PER_ADDRESS: RateLimitRule = { limit: 20, windowSeconds: 60 * 60 };

/** How long past its cache lifetime a metadata document may stand in while its host cannot be reached. */
export const STALE_IF_ERROR_MS = 24 * 60 * 60 * 1000;

export interface OAuthClient {
  id: string;
  clientId: string;
  kind: "dynamic" | "metadata";
  name: string;
  clientUri: string | null;
  redirectUris: string[];
  applicationType: ApplicationType;
}

const columns = {
  id: oauthClients.id,
  clientId: oauthClients.clientId,
  kind: oauthClients.kind,
  name: oauthClients.name,
  clientUri: oauthClients.clientUri,
  redirectUris: oauthClients.redirectUris,
  applicationType: oauthClients.applicationType,
  expiresAt: oauthClients.expiresAt,
};

/** Without an explicit type, a client whose redirects are all on loopback is a native app (RFC 8252). */
function applicationTypeOf(input: { application_type?: ApplicationType | undefined; redirect_uris: string[] }) {
  if (input.application_type) return input.application_type;
  return input.redirect_uris.every((u) => /^http:\/\/(127\.0\.0\.1|\[::1\]|localhost)[:/]/.test(u)) ? "native" : "web";
}

function checkRedirectUris(uris: string[], type: ApplicationType, code: "invalid_redirect_uri" | "invalid_client") {
  for (const uri of uris) {
    const problem = redirectUriProblem(uri, type);
    if (problem) throw new OAuthError(code, problem);
  }
}

/** RFC 7591 dynamic registration: a public client (no secret), rate-limited per address. */
export async function registerClient({
  ctx,
  input,
  address,
}: {
  ctx: AnonymousContext;
  input: RegisterClientInput;
  address: string | null;
}) {
  const limit = await hitRateLimit(ctx.db, `oauth-register:${address ?? "unknown"}`, REGISTER_PER_ADDRESS, ctx.now);
  if (!limit.allowed) {
    throw new OAuthError(
      "temporarily_unavailable",
      `Too many client registrations from this address; try again in ${limit.retryAfter} s.`,
      { status: 429, headers: { "Retry-After": String(limit.retryAfter) } },
    );
  }
  const applicationType = applicationTypeOf(input);
  checkRedirectUris(input.redirect_uris, applicationType, "invalid_redirect_uri");
  if (input.grant_types?.some((g) => g !== "authorization_code" && g !== "refresh_token")) {
    throw new OAuthError("invalid_client_metadata", "grant_types may hold only authorization_code and refresh_token.");
  }
  if (input.response_types?.some((r) => r !== "code")) {
    throw new OAuthError("invalid_client_metadata", 'response_types may hold only "code".');
  }
  const id = newId("oauthClient", ctx.now.getTime());
  const name = input.client_name ?? redirectHost(input.redirect_uris[0] ?? "");
  await ctx.db.insert(oauthClients).values({
    id,
    clientId: id,
    kind: "dynamic",
    name,
    clientUri: input.client_uri ?? null,
    logoUri: input.logo_uri ?? null,
    redirectUris: input.redirect_uris,
    applicationType,
    createdAt: ctx.now,
  });
  return {
    client_id: id,
    client_id_issued_at: Math.floor(ctx.now.getTime() / 1000),
    client_name: name,
    redirect_uris: input.redirect_uris,
    application_type: applicationType,
    token_endpoint_auth_method: "none",
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    ...(input.client_uri ? { client_uri: input.client_uri } : {}),
  };
}

/**
 * The client a `client_id` names, or an `invalid_client` error: a registered `ocl_…` id, or an
 * https URL whose metadata document is fetched (and cached for as long as its headers allow).
 */
export async function findClient(ctx: AnonymousContext, clientId: string, deps: OAuthDeps): Promise<OAuthClient> {
  const unknown = () =>
    new OAuthError(
      "invalid_client",
      `Client ${JSON.stringify(clientId.slice(0, 200))} is not registered here; register again.`,
    );
  if (!clientId || clientId.length > 2000) throw unknown();
  const [row] = await ctx.db.select(columns).from(oauthClients).where(eq(oauthClients.clientId, clientId)).limit(1);
  if (!looksLikeClientIdUrl(clientId, deps.allowLoopback)) {
    if (row?.kind !== "dynamic") throw unknown();
    return row;
  }
  if (row?.expiresAt && row.expiresAt > ctx.now) return row;
  const problem = clientIdUrlProblem(clientId, deps.allowLoopback);
  if (problem) throw new OAuthError("invalid_client", `${problem}.`);
  let fetched: Awaited<ReturnType<typeof fetchClientMetadata>>;
  try {
    fetched = await fetchClientMetadata(clientId, deps, ctx.now);
  } catch (error) {
    // A host that is briefly down must not log every user of its app out (a failed refresh
    // means consenting again): the last good copy serves for a while. A document that is gone
    // or invalid is not papered over.
    if (
      error instanceof MetadataUnavailable &&
      row?.expiresAt &&
      ctx.now.getTime() - row.expiresAt.getTime() < STALE_IF_ERROR_MS
    ) {
      return row;
    }
    throw error;
  }
  const { document, lifetimeSeconds } = fetched;
  const applicationType = applicationTypeOf(document);
  checkRedirectUris(document.redirect_uris, applicationType, "invalid_client");
  const values = {
    name: document.client_name,
    clientUri: document.client_uri ?? null,
    logoUri: document.logo_uri ?? null,
    redirectUris: document.redirect_uris,
    applicationType,
    expiresAt: new Date(ctx.now.getTime() + lifetimeSeconds * 1000),
  };
  const [saved] = await ctx.db
    .insert(oauthClients)
    .values({ id: newId("oauthClient", ctx.now.getTime()), clientId, kind: "metadata", createdAt: ctx.now, ...values })
    .onConflictDoUpdate({ target: oauthClients.clientId, set: values })
    .returning(columns);
  if (!saved) throw unknown();
  return saved;
}

/** How the consent page and the Connected apps page name a client's origin. */
export function clientDomain(client: Pick<OAuthClient, "kind" | "clientId" | "redirectUris">): {
  domain: string;
  verified: boolean;
} {
  if (client.kind === "metadata") return { domain: new URL(client.clientId).host, verified: true };
  return { domain: redirectHost(client.redirectUris[0] ?? ""), verified: false };
}
