/**
 * OAuth protocol errors. The authorization server's endpoints answer with the RFC 6749 §5.2
 * body `{ error, error_description }` (and, at /oauth/authorize, a redirect carrying them),
 * not Loadout's REST error body, because that is what OAuth clients parse.
 */
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "unsupported_response_type"
  | "invalid_scope"
  | "invalid_target"
  | "access_denied"
  | "invalid_redirect_uri"
  | "invalid_client_metadata"
  | "temporarily_unavailable"
  | "server_error";

export class OAuthError extends Error {
  readonly code: OAuthErrorCode;
  readonly status: 400 | 401 | 403 | 429 | 500 | 503;
  readonly headers: Record<string, string>;

  constructor(
    code: OAuthErrorCode,
    description: string,
    options: { status?: OAuthError["status"]; headers?: Record<string, string> } = {},
  ) {
    super(description);
    this.name = "OAuthError";
    this.code = code;
    this.status = options.status ?? (code === "invalid_client" ? 401 : 400);
    this.headers = options.headers ?? {};
  }

  body(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.code, error_description: this.message };
  }
}
