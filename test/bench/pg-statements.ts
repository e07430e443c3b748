/**
 * SQL statements sent to one database, counted by Postgres itself (no pg_stat_statements here: it
 * needs a server restart to preload). Method: `xact_commit + xact_rollback` of the database in
 * pg_stat_database, whose delta is one per autocommit statement (each is its own transaction; an
 * explicit transaction of several statements would count once, so this is a floor), minus one per
 * new backend in the same delta (`sessions`): a backend's start-up commits a catalog transaction of
 * its own, measured here rather than assumed (`calibrate`).
 *
 * On PG15 a backend flushes its counters when it exits, but while it is idle only every ~10 s
 * (PGSTAT_IDLE_INTERVAL; pg_stat_force_next_flush() works for the calling backend only). So `read`
 * first waits until no client backend is connected to the database, and the counters are read over
 * a connection to another database: the counting queries add nothing to what they count.
 *
 * The Workers topology's ChangeFeed object stays connected (its LISTEN and its pool, named
 * FEED_APPLICATION_NAME): its backends are not waited for, and what they run is counted with the
 * rest when they flush, which is its heartbeat, one statement every 5 s whatever the calls.
 */
import postgres from "postgres";

/** FEED_APPLICATION_NAME of api/src/entry/change-feed.ts (which only workerd can import). */
const FEED_APPLICATION_NAME = "loadout-change-feed";

export interface Counters {
  transactions: number;
  sessions: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class StatementCounter {
  private readonly sql: postgres.Sql;
  /** Transactions a new backend commits before its first statement (measured by `calibrate`). */
  startupTransactions = 1;

  constructor(
    adminUrl: string,
    private readonly databaseUrl: string,
  ) {
    this.sql = postgres(adminUrl, { max: 1, onnotice: () => {} });
  }

  private get name(): string {
    return new URL(this.databaseUrl).pathname.slice(1);
  }

  /** The database's counters, once every backend on it has gone and flushed (at most `ms`). */
  async read(ms = 20_000): Promise<Counters> {
    for (const until = Date.now() + ms; ; ) {
      const [row] = await this.sql<{ backends: number; transactions: string; sessions: string }[]>`
        select (select count(*)::int from pg_stat_activity
                where datname = ${this.name} and backend_type = 'client backend'
                  and application_name <> ${FEED_APPLICATION_NAME}) as backends,
               xact_commit + xact_rollback as transactions, sessions
        from pg_stat_database where datname = ${this.name}`;
      if (!row) throw new Error(`no database ${this.name}`);
      if (row.backends === 0) {
        // A backend's last flush may land just after it leaves pg_stat_activity: read until stable.
        await sleep(200);
        const again = await this.sql<{ transactions: string }[]>`
          select xact_commit + xact_rollback as transactions from pg_stat_database where datname = ${this.name}`;
        if (again[0]?.transactions === row.transactions)
          return { transactions: Number(row.transactions), sessions: Number(row.sessions) };
      } else if (Date.now() > until) {
        throw new Error(
          `${row.backends} connection(s) to ${this.name} stayed open: their statements cannot be counted`,
        );
      }
      await sleep(50);
    }
  }

  /** SQL statements between two readings. */
  statements(before: Counters, after: Counters): number {
    return after.transactions - before.transactions - this.startupTransactions * (after.sessions - before.sessions);
  }

  /** Measures what a new backend costs in transactions: one connection, three statements. */
  async calibrate(): Promise<void> {
    const before = await this.read();
    const probe = postgres(this.databaseUrl, { max: 1, fetch_types: false, onnotice: () => {} });
    for (let i = 0; i < 3; i++) await probe`select ${i}::int`;
    await probe.end({ timeout: 5 });
    const after = await this.read();
    const sessions = after.sessions - before.sessions;
    if (sessions !== 1) throw new Error(`calibration saw ${sessions} sessions, not 1`);
    this.startupTransactions = after.transactions - before.transactions - 3;
  }

  end(): Promise<void> {
    return this.sql.end({ timeout: 5 });
  }
}
