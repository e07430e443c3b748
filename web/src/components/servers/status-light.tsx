import { formatDateTime } from "@/lib/format";
import type { ServerStatus } from "@/lib/servers/types";

const LABEL: Record<ServerStatus | "testing", string> = {
  unknown: "Not tested",
  ok: "Connected",
  failed: "Failed",
  testing: "Testing…",
};

type StatusLightProps = {
  status: ServerStatus;
  lastError: string | null;
  checkedAt: string | null;
  testing?: boolean;
  // Under the light, in full (the server page); the list shows it on hover and in a line below.
  showError?: boolean;
};

// The connection light: grey until tested, green when the last Test or connection worked, red with the reason.
export function StatusLight({ status, lastError, checkedAt, testing, showError }: StatusLightProps) {
  const shown = testing ? "testing" : status;
  const when = checkedAt ? `checked ${formatDateTime(checkedAt)}` : "never checked";
  const title = [LABEL[shown], status === "failed" && lastError ? lastError : null, when].filter(Boolean).join(" · ");
  return (
    <span className="status-light-wrap">
      <span
        className={`status-light status-light-${shown}`}
        title={title}
        data-testid="status-light"
        data-status={shown}
      >
        <span className="status-dot" aria-hidden="true" />
        {LABEL[shown]}
      </span>
      {showError && !testing && status === "failed" && lastError && (
        <span className="status-error" data-testid="status-error">
          {lastError}
        </span>
      )}
    </span>
  );
}
