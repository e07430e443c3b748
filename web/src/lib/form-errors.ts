import { ApiError, type ErrorDetail } from "./api";

export type FieldErrors<F extends string> = Partial<Record<F, string>>;

// Splits an error's details into messages for the form's own fields and the rest, shown in the banner.
// A detail's path may be `email`, `body.email` or `scopes.0`: any segment naming a field claims it.
export function splitErrorDetails<F extends string>(
  error: unknown,
  fields: readonly F[],
): { fields: FieldErrors<F>; others: ErrorDetail[] } {
  const byField: FieldErrors<F> = {};
  const others: ErrorDetail[] = [];
  if (!(error instanceof ApiError)) return { fields: byField, others };
  for (const detail of error.details) {
    const segments = detail.path.split(/[./[\]]/);
    const field = fields.find((name) => segments.includes(name));
    if (field && byField[field] === undefined) byField[field] = detail.message;
    else others.push(detail);
  }
  return { fields: byField, others };
}
