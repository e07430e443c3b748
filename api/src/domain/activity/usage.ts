import { OUTCOMES, type Outcome } from "./outcomes";

/** One group of calls, as the database counts them: a day, a client, a tool and an outcome. */
export interface CallGroup {
  day: string; // YYYY-MM-DD (UTC)
  client: string | null;
  tool: string;
  outcome: string;
  calls: number;
}

export interface Series {
  name: string;
  calls: number;
  failures: number;
  /** Calls per day, one number per day of the range. */
  days: number[];
}

export interface UsageSummary {
  from: string;
  to: string;
  days: { date: string; calls: number; errors: number; refusals: number }[];
  clients: Series[];
  tools: Series[];
  outcomes: Record<Outcome, number>;
}

/** Series kept by name before the rest are folded into one "other" series. */
export const MAX_SERIES = 12;
export const OTHER = "(other)";
export const UNKNOWN_CLIENT = "(unknown client)";

const REFUSALS: ReadonlySet<string> = new Set(["not_active", "plan_refused", "withheld"]);

/** The UTC dates of the `count` days ending with `now`'s, oldest first. */
export function dayRange(now: Date, count: number): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: count }, (_, i) =>
    new Date(today - (count - 1 - i) * 86_400_000).toISOString().slice(0, 10),
  );
}

function series(groups: readonly CallGroup[], dates: readonly string[], key: (g: CallGroup) => string): Series[] {
  const index = new Map(dates.map((d, i) => [d, i]));
  const byName = new Map<string, Series>();
  for (const group of groups) {
    const i = index.get(group.day);
    if (i === undefined) continue;
    const name = key(group);
    let entry = byName.get(name);
    if (!entry) {
      entry = { name, calls: 0, failures: 0, days: dates.map(() => 0) };
      byName.set(name, entry);
    }
    entry.calls += group.calls;
    if (group.outcome !== "ok") entry.failures += group.calls;
    entry.days[i] = (entry.days[i] ?? 0) + group.calls;
  }
  const sorted = [...byName.values()].sort((a, b) => b.calls - a.calls || (a.name < b.name ? -1 : 1));
  if (sorted.length <= MAX_SERIES) return sorted;
  const kept = sorted.slice(0, MAX_SERIES - 1);
  const other: Series = { name: OTHER, calls: 0, failures: 0, days: dates.map(() => 0) };
  for (const rest of sorted.slice(MAX_SERIES - 1)) {
    other.calls += rest.calls;
    other.failures += rest.failures;
    rest.days.forEach((n, i) => {
      other.days[i] = (other.days[i] ?? 0) + n;
    });
  }
  return [...kept, other];
}

/** Calls per day, by client and by tool, and the count of each outcome, over `dates`. */
export function summarizeUsage(groups: readonly CallGroup[], dates: readonly string[]): UsageSummary {
  const index = new Map(dates.map((d, i) => [d, i]));
  const days = dates.map((date) => ({ date, calls: 0, errors: 0, refusals: 0 }));
  const outcomes = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  for (const group of groups) {
    const i = index.get(group.day);
    const day = i === undefined ? undefined : days[i];
    if (!day) continue;
    day.calls += group.calls;
    if (REFUSALS.has(group.outcome)) day.refusals += group.calls;
    else if (group.outcome !== "ok") day.errors += group.calls;
    const outcome = (OUTCOMES as readonly string[]).includes(group.outcome) ? (group.outcome as Outcome) : "error";
    outcomes[outcome] += group.calls;
  }
  return {
    from: dates[0] ?? "",
    to: dates[dates.length - 1] ?? "",
    days,
    clients: series(groups, dates, (g) => g.client ?? UNKNOWN_CLIENT),
    tools: series(groups, dates, (g) => g.tool),
    outcomes,
  };
}
