/**
 * Activity figures (Postgres): the first page of a workspace's activity over 1,000,000 events
 * (server time, from the Server-Timing header), with and without filters, and the 30-day usage
 * summary. Events go straight into the table: 80 % MCP calls, 20 % skill changes, spread over
 * 60 days, with ids made like the app's (time first), so time bounds walk the same index.
 */
import postgres from "postgres";
import type { ServerProcess } from "./server-process";

export interface ActivityFigures {
  events: number;
  seedSeconds: number;
  firstP50: number;
  firstP99: number;
  filtered: { label: string; p50: number }[];
  usageP50: number;
}

export const ACTIVITY_EVENTS = 1_000_000;

const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? 0;

async function serverTimes(url: string, headers: Record<string, string>, runs: number, warm = 10): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs + warm; i++) {
    const res = await fetch(url, { headers });
    const body = (await res.json()) as { events?: unknown[]; days?: unknown[] };
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
    if (i >= warm) times.push(Number(/dur=([\d.]+)/.exec(res.headers.get("server-timing") ?? "")?.[1]));
  }
  return times;
}

export async function benchActivity(
  server: ServerProcess,
  databaseUrl: string,
  token: string,
): Promise<ActivityFigures> {
  const headers = { authorization: `Bearer ${token}` };
  const me = (await (await fetch(`${server.url}/v1/me`, { headers })).json()) as {
    user: { id: string };
    workspaces: { id: string; kind: string }[];
  };
  const workspace = me.workspaces.find((w) => w.kind === "personal")?.id;
  if (!workspace) throw new Error("no personal workspace");

  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const started = performance.now();
  const end = Date.now() - 60_000;
  // Crockford base32 of the milliseconds, as db/src/ids.ts makes it, then a unique tail.
  await sql`
    insert into audit_events (id, workspace_id, actor_user_id, action, target_type, target_id, data, created_at)
    select 'evt_' || (
             select string_agg(substr('0123456789abcdefghjkmnpqrstvwxyz', (floor(e.ms / power(32, 9 - i))::bigint % 32)::int + 1, 1), '' order by i)
             from generate_series(0, 9) i
           ) || lpad(e.g::text, 16, '0'),
           ${workspace},
           ${me.user.id},
           case when e.g % 5 = 0 then 'skill.updated' else 'mcp.call' end,
           case when e.g % 5 = 0 then 'skill' else 'tools/call' end,
           case when e.g % 5 = 0 then 'skl_bench' || (e.g % 500) else 'tool_' || (e.g % 40) end,
           case when e.g % 5 = 0
             then jsonb_build_object('name', 'skill-' || (e.g % 500), 'version', e.g % 50)
             else jsonb_build_object('item', null, 'outcome', case when e.g % 23 = 0 then 'not_active' when e.g % 17 = 0 then 'tool_error' else 'ok' end,
                                     'ms', (e.g % 900) / 10.0, 'client', 'client-' || (e.g % 6) || ' 1.0', 'mode', 'agent', 'project', null)
           end,
           to_timestamp(e.ms / 1000.0)
    from (select g, (${end}::bigint - (${ACTIVITY_EVENTS}::bigint - g) * 5184) as ms
          from generate_series(1, ${ACTIVITY_EVENTS}) g) e`;
  await sql`analyze audit_events`;
  await sql.end();
  const seedSeconds = (performance.now() - started) / 1000;

  const base = `${server.url}/v1/workspaces/me/activity`;
  const first = await serverTimes(`${base}?limit=50`, headers, 200);
  const filtered: { label: string; p50: number }[] = [];
  for (const [label, query] of [
    ["kind=change", "kind=change"],
    ["kind=skill", "kind=skill"],
    ["item=skill-42", "item=skill-42"],
    [`actor (email)`, "actor=bench%40example.com"],
    ["from 7 days ago", `from=${new Date(end - 7 * 86_400_000).toISOString()}`],
  ] as const) {
    filtered.push({ label, p50: percentile(await serverTimes(`${base}?limit=50&${query}`, headers, 50), 0.5) });
  }
  const usage = await serverTimes(`${base}/usage?days=30`, headers, 5, 1);
  return {
    events: ACTIVITY_EVENTS,
    seedSeconds,
    firstP50: percentile(first, 0.5),
    firstP99: percentile(first, 0.99),
    filtered,
    usageP50: percentile(usage, 0.5),
  };
}

export function printActivity(figures: ActivityFigures) {
  console.log(
    `\nActivity (Postgres), ${figures.events.toLocaleString("en")} events in one workspace (seeded in ${figures.seedSeconds.toFixed(0)} s)   measured     target`,
  );
  console.log(
    `first page (50), server p50                ${figures.firstP50.toFixed(2).padStart(7)} ms   ≤ 20 ms (${(figures.firstP50 / 20).toFixed(2)}×)   p99 ${figures.firstP99.toFixed(2)} ms`,
  );
  for (const f of figures.filtered) console.log(`first page, ${f.label.padEnd(30)} ${f.p50.toFixed(2).padStart(7)} ms`);
  console.log(`usage, 30 days (~400k calls), server p50   ${figures.usageP50.toFixed(0).padStart(7)} ms`);
}
