import { describe, expect, it } from "vitest";
import { dayRange, MAX_SERIES, OTHER, summarizeUsage, UNKNOWN_CLIENT } from "./usage";

describe("dayRange", () => {
  it("ends with today (UTC) and counts back", () => {
    expect(dayRange(new Date("2026-03-02T23:59:00Z"), 3)).toEqual(["2026-02-28", "2026-03-01", "2026-03-02"]);
    expect(dayRange(new Date("2026-11-29T00:00:00Z"), 30)).toHaveLength(30);
  });
});

describe("summarizeUsage", () => {
  const dates = ["2026-11-27", "2026-11-28", "2026-11-29"];

  it("counts calls per day, by client and by tool, and each outcome", () => {
    const summary = summarizeUsage(
      [
        { day: "2026-11-27", client: "claude-code 2.0", tool: "skills", outcome: "ok", calls: 3 },
        { day: "2026-11-29", client: "claude-code 2.0", tool: "gh_list", outcome: "not_active", calls: 2 },
        { day: "2026-11-29", client: null, tool: "gh_list", outcome: "plan_refused", calls: 1 },
        { day: "2026-11-29", client: null, tool: "gh_list", outcome: "withheld", calls: 1 },
        { day: "2026-11-28", client: "cursor 1", tool: "skills", outcome: "tool_error", calls: 4 },
        { day: "2026-10-01", client: "cursor 1", tool: "skills", outcome: "ok", calls: 99 },
      ],
      dates,
    );
    expect(summary.from).toBe("2026-11-27");
    expect(summary.to).toBe("2026-11-29");
    expect(summary.days).toEqual([
      { date: "2026-11-27", calls: 3, errors: 0, refusals: 0 },
      { date: "2026-11-28", calls: 4, errors: 4, refusals: 0 },
      { date: "2026-11-29", calls: 4, errors: 0, refusals: 4 },
    ]);
    expect(summary.outcomes).toEqual({
      ok: 3,
      error: 0,
      tool_error: 4,
      not_active: 2,
      plan_refused: 1,
      withheld: 1,
    });
    expect(summary.clients).toEqual([
      { name: "claude-code 2.0", calls: 5, failures: 2, days: [3, 0, 2] },
      { name: "cursor 1", calls: 4, failures: 4, days: [0, 4, 0] },
      { name: UNKNOWN_CLIENT, calls: 2, failures: 2, days: [0, 0, 2] },
    ]);
    expect(summary.tools.map((t) => [t.name, t.calls])).toEqual([
      ["skills", 7],
      ["gh_list", 4],
    ]);
  });

  it("folds the smallest series into one", () => {
    const groups = Array.from({ length: MAX_SERIES + 5 }, (_, i) => ({
      day: "2026-11-29",
      client: `client-${String(i).padStart(2, "0")}`,
      tool: "skills",
      outcome: "ok",
      calls: 100 - i,
    }));
    const { clients } = summarizeUsage(groups, dates);
    expect(clients).toHaveLength(MAX_SERIES);
    const other = clients[clients.length - 1];
    expect(other?.name).toBe(OTHER);
    expect(clients.reduce((n, c) => n + c.calls, 0)).toBe(groups.reduce((n, g) => n + g.calls, 0));
  });

  it("has zeros for a workspace without calls", () => {
    const summary = summarizeUsage([], dates);
    expect(summary.days.every((d) => d.calls === 0)).toBe(true);
    expect(summary.clients).toEqual([]);
  });
});
