import Link from "next/link";
import { ErrorBanner } from "@/components/error-banner";
import { ApiError } from "@/lib/api";

// The page's item could not be loaded: a missing name says so plainly, anything else can be retried.
export function SkillNotLoaded({ name, error, onRetry }: { name: string; error: unknown; onRetry: () => void }) {
  const missing = !name || (error instanceof ApiError && error.status === 404);
  return (
    <section className="card stack">
      {missing ? (
        <>
          <h1 className="page-title">Not found</h1>
          <p className="muted">
            {name ? (
              <>
                There is no skill or persona named <code>{name}</code> in this workspace.
              </>
            ) : (
              "No skill or persona was named in the address."
            )}
          </p>
        </>
      ) : (
        <>
          <ErrorBanner error={error} />
          <button type="button" className="button" onClick={onRetry}>
            Try again
          </button>
        </>
      )}
      <Link href="/skills/">Back to the list</Link>
    </section>
  );
}
