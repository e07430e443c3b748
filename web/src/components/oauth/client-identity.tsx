import type { OAuthClient } from "@/lib/oauth/types";

// Who the client is: a metadata-document client's domain is verified (its document was fetched
// from there); a self-registered client only says where it redirects.
export function ClientIdentity({ client }: { client: OAuthClient }) {
  return client.verified ? (
    <span data-testid="client-domain">
      from <strong>{client.domain}</strong> <span className="chip">verified</span>
    </span>
  ) : (
    <span data-testid="client-domain">
      redirects to <strong>{client.domain}</strong> <span className="muted">(self-registered, not verified)</span>
    </span>
  );
}
