import { ApiError, type ErrorDetail, errorMessage } from "@/lib/api";

type ErrorBannerProps = {
  error: unknown;
  // Details already shown next to their fields are left out here.
  details?: ErrorDetail[];
};

export function ErrorBanner({ error, details }: ErrorBannerProps) {
  if (error === null || error === undefined) return null;
  const listed = details ?? (error instanceof ApiError ? error.details : []);
  const requestId = error instanceof ApiError ? error.requestId : undefined;
  // The API's message repeats every detail; when the details are shown, a short lead-in reads better.
  const hasDetails = error instanceof ApiError && error.details.length > 0;
  // Every detail is shown beside its field: a second, generic message above them says nothing more.
  if (hasDetails && listed.length === 0) return null;
  const message = hasDetails ? "Check these fields:" : errorMessage(error);
  return (
    <div className="banner banner-error" role="alert">
      <p className="banner-message">{message}</p>
      {listed.length > 0 && (
        <ul className="banner-details">
          {listed.map((detail) => (
            <li key={`${detail.path}:${detail.line ?? ""}:${detail.message}`}>
              {/* Some messages already start with their path and line; those are shown as they are. */}
              {detail.path && !detail.message.startsWith(detail.path) && (
                <>
                  <code>{detail.path}</code>
                  {detail.line !== undefined && ` (line ${detail.line})`}{" "}
                </>
              )}
              {detail.message}
            </li>
          ))}
        </ul>
      )}
      {requestId && <p className="banner-meta">Request ID: {requestId}</p>}
    </div>
  );
}
