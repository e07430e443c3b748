import type { UsageSeries } from "@/lib/teams/types";

// Distinguishable in light and dark themes; the last one is for "(other)".
const COLORS = [
  "#4f46e5",
  "#0ea5e9",
  "#16a34a",
  "#f59e0b",
  "#db2777",
  "#7c3aed",
  "#0d9488",
  "#dc2626",
  "#65a30d",
  "#ea580c",
  "#2563eb",
  "#9ca3af",
];

const WIDTH = 720;
const HEIGHT = 200;
const LEFT = 36;
/** Room for the last date's label, centred on the last bar. */
const RIGHT = 20;
const BOTTOM = 20;

// Calls per day as stacked bars, one colour per series: plain SVG, no chart library.
export function UsageChart({ dates, series, label }: { dates: string[]; series: UsageSeries[]; label: string }) {
  const totals = dates.map((_, i) => series.reduce((sum, s) => sum + (s.days[i] ?? 0), 0));
  const max = Math.max(1, ...totals);
  const plotHeight = HEIGHT - BOTTOM - 8;
  const step = (WIDTH - LEFT - RIGHT) / Math.max(1, dates.length);
  const barWidth = Math.max(2, step * 0.7);
  const y = (value: number) => 8 + plotHeight - (value / max) * plotHeight;
  const ticks = [0, Math.round(max / 2), max];

  return (
    <figure className="stack chart-figure">
      <svg
        className="chart"
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-label={`${label}: ${totals.reduce((a, b) => a + b, 0)} calls over ${dates.length} days`}
        data-testid="usage-chart"
      >
        {ticks.map((tick) => (
          <g key={tick}>
            <line x1={LEFT} x2={WIDTH - RIGHT} y1={y(tick)} y2={y(tick)} stroke="currentColor" strokeOpacity="0.12" />
            <text x={LEFT - 6} y={y(tick) + 4} fontSize="10" textAnchor="end" fill="currentColor" fillOpacity="0.6">
              {tick}
            </text>
          </g>
        ))}
        {dates.map((date, i) => {
          let top = 0;
          const x = LEFT + i * step + (step - barWidth) / 2;
          return (
            <g key={date}>
              <title>{`${date}: ${totals[i]} calls`}</title>
              {series.map((s, k) => {
                const value = s.days[i] ?? 0;
                if (value === 0) return null;
                const rect = (
                  <rect
                    key={s.name}
                    x={x}
                    width={barWidth}
                    y={y(top + value)}
                    height={y(top) - y(top + value)}
                    fill={COLORS[k % COLORS.length]}
                  />
                );
                top += value;
                return rect;
              })}
              {(i === 0 || i === dates.length - 1 || (i % 7 === 0 && dates.length - 1 - i >= 4)) && (
                <text
                  x={x + barWidth / 2}
                  y={HEIGHT - 6}
                  fontSize="10"
                  textAnchor="middle"
                  fill="currentColor"
                  fillOpacity="0.6"
                >
                  {date.slice(5)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption>
        <ul className="chart-legend">
          {series.map((s, k) => (
            <li key={s.name}>
              <span className="chart-swatch" style={{ background: COLORS[k % COLORS.length] }} />
              {s.name} ({s.calls}
              {s.failures ? `, ${s.failures} failed` : ""})
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}
