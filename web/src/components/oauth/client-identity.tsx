import type { OAuthClient } from "@/lib/oauth/types";

// Who the client is: a metadata-document client's domain is verified (its document was fetched
// from there); a self-registered client only says where it redirects.
export function ClientIdentity({ client, short = false }: { client: OAuthClient; short?: boolean }) {
  if (short) {
    return (
      <span data-testid="client-domain">
        {client.verified ? client.domain : `redirects to ${client.domain}`}{" "}
        <span className="muted">({client.verified ? "verified" : "not verified"})</span>
      </span>
    );
  }
  return client.verified ? (
    <span data-testid="client-domain">
      From <strong>{client.domain}</strong> <span className="chip">verified</span>: its metadata document is published
      there.
    </span>
  ) : (
    <span data-testid="client-domain">
      Self-registered: it redirects to <strong>{client.domain}</strong>, which is not verified.
    </span>
  );
}
