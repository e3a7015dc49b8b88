// What a PostgreSQL server on this machine spends while a bench runs against one of its databases
// (bench/scale.ts): the CPU of its processes read from /proc (Linux; the server must run on the bench's
// machine), and the backends waiting on locks, sampled from pg_stat_activity.
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';

/** The server's own processes that serve every database (the postmaster's own time included). */
const SHARED = /^postgres: (?:[^:]+: )?(checkpointer|background writer|walwriter|autovacuum launcher|logical replication launcher|archiver)\b/;

function procCpuMs(pid: string): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    if (!stat.includes('(postgres)')) return undefined;
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return undefined; // gone meanwhile
  }
}

function cmdline(pid: string): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return '';
  }
}

/**
 * CPU time of the server's processes that work for one database: its backends and autovacuum workers
 * (their process title names the database), parallel workers of those backends, and the shared ones
 * (postmaster, checkpointer, writers, launchers), which also work for any other database in use on the
 * server meanwhile. Backends of other databases are left out. Sample it now and then: a backend that
 * exits between two samples loses its CPU since the last one.
 */
export class PostgresCpu {
  private readonly first = new Map<string, number>();
  private readonly last = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  /** `ignore`: backend pids not to count (the bench's own probing connections). */
  constructor(
    private readonly database: string,
    private readonly ignore: Set<number> = new Set(),
  ) {}

  private read(): Map<string, number> {
    const out = new Map<string, number>();
    const ours = new Set<string>();
    const parallel: [string, string, number][] = [];
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid) || this.ignore.has(Number(pid))) continue;
      const ms = procCpuMs(pid);
      if (ms === undefined) continue;
      const line = cmdline(pid);
      const leader = /parallel worker for PID (\d+)/.exec(line);
      if (leader) parallel.push([pid, leader[1], ms]);
      else if (!line.startsWith('postgres:') || SHARED.test(line) || line.split(' ').includes(this.database)) {
        out.set(pid, ms);
        ours.add(pid);
      }
    }
    for (const [pid, leader, ms] of parallel) if (ours.has(leader)) out.set(pid, ms);
    return out;
  }

  /** Takes the baseline and samples every `everyMs` until stop(). */
  start(everyMs = 200): void {
    this.first.clear();
    this.last.clear();
    for (const [pid, ms] of this.read()) this.first.set(pid, ms);
    this.timer = setInterval(() => this.sample(), everyMs).unref();
  }

  private sample(): void {
    for (const [pid, ms] of this.read()) this.last.set(pid, ms);
  }

  /** Stops sampling; answers the CPU ms spent since start(). */
  stop(): number {
    clearInterval(this.timer);
    this.sample();
    let total = 0;
    for (const [pid, ms] of this.last) total += ms - (this.first.get(pid) ?? 0);
    return total;
  }
}

export interface LockSample {
  samples: number;
  /** Sum over samples of the active backends (the probe's own left out), of the backends in a
   * transaction (active or idle in one), and of those waiting on a lock. */
  active: number;
  inTransaction: number;
  lockWaits: number;
  /** Lock waits by wait event and the waiting statement's start; by the start of the statement blocking them. */
  waits: Map<string, number>;
  blockers: Map<string, number>;
  /** Every wait of active backends by type:event (Lock, LWLock, IO, Client…), for context. */
  allWaits: Map<string, number>;
}

const ACTIVITY_SQL = `SELECT a.state, a.wait_event_type AS type, a.wait_event AS event, left(regexp_replace(a.query, '\\s+', ' ', 'g'), 90) AS query,
  CASE WHEN a.wait_event_type = 'Lock' THEN (SELECT left(regexp_replace(b.query, '\\s+', ' ', 'g'), 90) FROM pg_stat_activity b
    WHERE b.pid = (pg_blocking_pids(a.pid))[1]) END AS blocker
  FROM pg_stat_activity a WHERE a.datname = current_database() AND a.pid <> pg_backend_pid()
    AND a.state IN ('active', 'idle in transaction')`;

const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);

/** Samples pg_stat_activity of `databaseUrl`'s database every `everyMs` from its own connection until stop(). */
export class LockSampler {
  private running = false;
  private loop: Promise<void> = Promise.resolve();
  readonly result: LockSample = { samples: 0, active: 0, inTransaction: 0, lockWaits: 0, waits: new Map(), blockers: new Map(), allWaits: new Map() };

  private constructor(private readonly client: pg.Client) {}

  static async open(databaseUrl: string): Promise<LockSampler> {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    return new LockSampler(client);
  }

  /** The probe connection's backend, to leave out of the server's CPU. */
  async backendPid(): Promise<number> {
    return (await this.client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
  }

  start(everyMs = 20): void {
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        const rows = (await this.client.query(ACTIVITY_SQL)).rows as { state: string; type: string | null; event: string | null; query: string; blocker: string | null }[];
        const r = this.result;
        r.samples++;
        r.inTransaction += rows.length;
        for (const row of rows) {
          if (row.state !== 'active') continue;
          r.active++;
          if (row.type) bump(r.allWaits, `${row.type}:${row.event}`);
          if (row.type !== 'Lock') continue;
          r.lockWaits++;
          bump(r.waits, `${row.event} — ${row.query}`);
          bump(r.blockers, row.blocker ?? '(blocker gone)');
        }
        await new Promise((ok) => setTimeout(ok, everyMs));
      }
    })();
    this.loop.catch(() => {}); // a failure is thrown by stop()
  }

  async stop(): Promise<LockSample> {
    this.running = false;
    await this.loop;
    await this.client.end();
    return this.result;
  }
}

/** The `n` most frequent keys with their counts. */
export function top(m: Map<string, number>, n = 3): [string, number][] {
  return [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, n);
}
