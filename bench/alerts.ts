// Alert list, groups and stats latencies (`BENCH=alerts`): 1,000,000 alerts (BENCH_ALERTS) over 30 days
// are loaded by SQL (INSERT … SELECT over generate_series: 500 rules, fleet events with their hosts and
// users, 5 severities, 4 statuses, two index patterns), the alerts table's secondary indexes dropped
// for the load and built again after it (as a restore would), then each request is timed over HTTP
// BENCH_ALERT_ROUNDS times: the default page, every single filter, every sort in both directions,
// search and GET /api/stats; and BENCH_GROUP_ROUNDS times GET /api/alerts/groups by each key, alone
// and under a status, a severity and a time-range filter. Prints p50 and p99 per request against the
// targets. BENCH_ALERT_SEARCH=false leaves the trigram search index unbuilt (its build dominates the
// load: minutes per 100,000 alerts on PGlite) and the searches out.
import { loadavg } from 'node:os';
import { fleetEvents } from './events.js';
import { BenchService, benchDatabases, type BenchDatabase } from './service.js';
import type { Queryable } from '../src/db/database.js';

const ALERTS = Number(process.env.BENCH_ALERTS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ALERT_ROUNDS ?? 30);
const GROUP_ROUNDS = Number(process.env.BENCH_GROUP_ROUNDS ?? 10);
const SEARCH = process.env.BENCH_ALERT_SEARCH !== 'false';
/** The index `search` reads; left unbuilt with BENCH_ALERT_SEARCH=false. */
const SEARCH_INDEX = 'alert_search_text_idx';
const TEMPLATES = 2000;
const RULES = 500;
const CHUNK = 100_000;
const DAYS = 30;

const load = (): string => loadavg().map((x) => x.toFixed(2)).join(' ');

interface Loaded {
  ms: number;
  indexMs: number;
  /** The slowest index builds, slowest first. */
  slowest: { name: string; ms: number }[];
  ruleId: string;
  host: string;
  user: string;
}

export interface LoadOptions {
  /** Build the trigram search index again after the load (default true). */
  searchIndex?: boolean;
  /** The statuses the alerts take in turn (default: 60% new, 20% acknowledged, 10% resolved, 10% false positive). */
  statuses?: string[];
}

const STATUSES = ['new', 'new', 'new', 'new', 'new', 'new', 'acknowledged', 'acknowledged', 'resolved', 'false_positive'];

/** Loads `count` alerts by SQL; answers the time it took and values to filter by. */
export async function loadAlerts(
  db: Queryable,
  patterns: { id: string; name: string }[],
  corpus: string,
  count: number,
  options: LoadOptions = {},
): Promise<Loaded> {
  const statuses = options.statuses ?? STATUSES;
  const t0 = performance.now();
  const events = fleetEvents(corpus, TEMPLATES, { seed: 31, matchingShare: 0.2 });
  await db.query(`CREATE TABLE bench_templates (n integer PRIMARY KEY, event jsonb NOT NULL, host text, "user" text)`);
  await db.query(
    `INSERT INTO bench_templates (n, event, host, "user")
     SELECT n - 1, e::jsonb, e::jsonb->>'Computer', e::jsonb->>'User' FROM unnest($1::text[]) WITH ORDINALITY AS u(e, n)`,
    [events],
  );
  await db.query(`CREATE TABLE bench_rules (n integer PRIMARY KEY, id uuid NOT NULL, title text NOT NULL, severity text NOT NULL, rank smallint NOT NULL)`);
  await db.query(
    `INSERT INTO bench_rules (n, id, title, severity, rank)
     SELECT n, gen_random_uuid(), 'Suspicious activity pattern ' || n, (ARRAY['critical','high','medium','low','informational'])[1 + (n * 7) % 5], 4 - (n * 7) % 5
       FROM generate_series(0, ${RULES - 1}) AS n`,
  );
  // Secondary indexes are built once after the load, as a restore builds them.
  const indexes = await db.query<{ name: string; def: string }>(
    `SELECT indexname AS name, indexdef AS def FROM pg_indexes WHERE schemaname = 'public' AND tablename IN ('alerts', 'alert_search') AND indexname NOT IN ('alerts_pkey', 'alert_search_pkey')`,
  );
  for (const index of indexes) await db.query(`DROP INDEX ${index.name}`);
  const [a, b] = patterns;
  for (let from = 1; from <= count; from += CHUNK) {
    const to = Math.min(count, from + CHUNK - 1);
    await db.query(
      `INSERT INTO alerts (id, rule_id, rule_title, rule_version, severity, severity_rank, level, tags, status, index_pattern_id, index_pattern,
          event_hash, event_time, event, matched_conditions, source_ip, "user", host, created_at, updated_at)
       SELECT gen_random_uuid(), r.id, r.title, 1, r.severity, r.rank, r.severity, '["attack.execution"]'::jsonb,
              ($8::text[])[1 + g % ${statuses.length}],
              CASE WHEN g % 10 = 3 THEN $3::uuid ELSE $1::uuid END, CASE WHEN g % 10 = 3 THEN $4 ELSE $2 END,
              encode(sha256(convert_to(g::text, 'UTF8')), 'hex'), c.at, t.event || jsonb_build_object('EventRecordID', g), '[]'::jsonb,
              '10.' || (g % 250) || '.' || (g / 250 % 250) || '.' || (g % 7 + 1), t."user", t.host, c.at, c.at
         FROM generate_series($5::integer, $6::integer) AS g
         JOIN bench_rules r ON r.n = (g::int8 * 7919) % ${RULES}
         JOIN bench_templates t ON t.n = g % ${TEMPLATES}
         CROSS JOIN LATERAL (SELECT now() - make_interval(secs => (g::float8 * ${DAYS * 86400}) / $7::float8) AS at) c`,
      [a.id, a.name, b.id, b.name, from, to, count, statuses],
    );
  }
  const i0 = performance.now();
  const built: { name: string; ms: number }[] = [];
  for (const index of indexes) {
    if (options.searchIndex === false && index.name === SEARCH_INDEX) continue;
    const b0 = performance.now();
    await db.query(index.def);
    built.push({ name: index.name, ms: performance.now() - b0 });
  }
  built.sort((x, y) => y.ms - x.ms);
  await db.query('ANALYZE alerts');
  await db.query('ANALYZE alert_search');
  const indexMs = performance.now() - i0;
  const [pick] = await db.query<{ rule_id: string; host: string; user: string }>(
    `SELECT (SELECT id FROM bench_rules WHERE n = 17) AS rule_id, (SELECT host FROM bench_templates WHERE n = 5) AS host, (SELECT "user" FROM bench_templates WHERE n = 9) AS user`,
  );
  await db.query('DROP TABLE bench_templates');
  await db.query('DROP TABLE bench_rules');
  return { ms: performance.now() - t0, indexMs, slowest: built.slice(0, 3), ruleId: pick.rule_id, host: pick.host, user: pick.user };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((sorted.length * p) / 100) - 1)];
}

const SORTS = ['created_at', 'updated_at', 'event_time', 'severity', 'status', 'rule_title', 'host', 'user', 'source_ip', 'risk_score'];
const GROUP_KEYS = ['rule_id', 'host', 'user', 'source_ip'];

/** A timed request: its name, path, target p99 (ms) and rounds. */
interface Timed {
  name: string;
  path: string;
  target: number;
  rounds: number;
}

function requestsOf(kind: BenchDatabase, loaded: Loaded): Timed[] {
  const [list, search, stats, groups] = kind === 'postgres' ? [100, 500, 250, 500] : [250, 500, 250, 500];
  const day = encodeURIComponent(new Date(Date.now() - 86400e3).toISOString());
  const old = encodeURIComponent(new Date(Date.now() - (DAYS - 1) * 86400e3).toISOString());
  const week = encodeURIComponent(new Date(Date.now() - 7 * 86400e3).toISOString());
  const listed = (name: string, path: string, target = list): Timed => ({ name, path, target, rounds: ROUNDS });
  const grouped = (name: string, query: string): Timed => ({ name, path: `/api/alerts/groups?${query}`, target: groups, rounds: GROUP_ROUNDS });
  return [
    listed('default page', '/api/alerts'),
    listed('status=acknowledged', '/api/alerts?status=acknowledged'),
    listed('severity=critical', '/api/alerts?severity=critical'),
    listed('rule_id', `/api/alerts?rule_id=${loaded.ruleId}`),
    listed('created_after (1 day)', `/api/alerts?created_after=${day}`),
    listed('created_before (29 days)', `/api/alerts?created_before=${old}`),
    listed('event_after (1 day)', `/api/alerts?event_after=${day}`),
    listed('event_before (29 days)', `/api/alerts?event_before=${old}`),
    listed('index_pattern (10%)', '/api/alerts?index_pattern=bench-other'),
    listed('host', `/api/alerts?host=${encodeURIComponent(loaded.host)}`),
    listed('user', `/api/alerts?user=${encodeURIComponent(loaded.user)}`),
    listed('source_ip', '/api/alerts?source_ip=10.17.3.4'),
    listed('assignee=none (all)', '/api/alerts?assignee=none'),
    listed('assignee=none&status=new', '/api/alerts?assignee=none&status=new'),
    ...SORTS.flatMap((s) => [
      listed(`sort_by=${s} desc`, `/api/alerts?sort_by=${s}&sort_order=desc`),
      listed(`sort_by=${s} asc`, `/api/alerts?sort_by=${s}&sort_order=asc`),
    ]),
    ...(SEARCH
      ? [
          listed('search (a host name)', `/api/alerts?search=${encodeURIComponent(loaded.host)}`, search),
          listed('search (a word in every event)', '/api/alerts?search=Windows', search),
          listed('search (absent word)', '/api/alerts?search=zqxjvwk', search),
        ]
      : []),
    listed('GET /api/stats', '/api/stats', stats),
    ...GROUP_KEYS.flatMap((by) => [
      grouped(`groups by=${by}`, `by=${by}`),
      grouped(`groups by=${by}&status=new`, `by=${by}&status=new`),
      grouped(`groups by=${by}&severity=high`, `by=${by}&severity=high`),
      grouped(`groups by=${by}&event_after (7 days)`, `by=${by}&event_after=${week}`),
    ]),
  ];
}

async function benchOne(kind: BenchDatabase, corpus: string): Promise<string[]> {
  const out: string[] = [];
  let service = await BenchService.start(kind);
  try {
    const patterns = [
      { ...(await service.createPattern('bench-alerts')), name: 'bench-alerts' },
      { ...(await service.createPattern('bench-other')), name: 'bench-other' },
    ];
    let loaded: Loaded;
    ({ service, result: loaded } = await service.load((db) => loadAlerts(db, patterns, corpus, ALERTS, { searchIndex: SEARCH })));
    out.push(
      `  loaded ${ALERTS.toLocaleString('en-US')} alerts by SQL in ${(loaded.ms / 1000).toFixed(1)} s, of which ${(loaded.indexMs / 1000).toFixed(1)} s building the indexes (slowest: ${loaded.slowest.map((b) => `${b.name} ${(b.ms / 1000).toFixed(1)} s`).join(', ')}; load ${load()})`,
    );
    if (!SEARCH) out.push(`  BENCH_ALERT_SEARCH=false: ${SEARCH_INDEX} not built, searches not timed`);
    const misses: string[] = [];
    out.push(`  ${'request'.padEnd(40)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)}  target`);
    for (const { name, path, target, rounds } of requestsOf(kind, loaded)) {
      const times: number[] = [];
      let total = 0;
      for (let i = 0; i < rounds + 2; i++) {
        const t0 = performance.now();
        const data = await service.ok('GET', path);
        if (i >= 2) times.push(performance.now() - t0);
        total = data.total ?? 0;
      }
      times.sort((x, y) => x - y);
      const p99 = percentile(times, 99);
      if (p99 >= target) misses.push(name);
      const counted = path.startsWith('/api/alerts/groups') ? `   (${total.toLocaleString('en-US')} groups)` : path.startsWith('/api/alerts') ? `   (total ${total.toLocaleString('en-US')})` : '';
      out.push(`  ${p99 < target ? 'OK  ' : 'MISS'} ${name.padEnd(40)}${percentile(times, 50).toFixed(1).padStart(8)} ${p99.toFixed(1).padStart(8)}  < ${target}${counted}`);
    }
    out.push(`  ${ROUNDS} rounds per list request, ${GROUP_ROUNDS} per groups request (p99 of ${GROUP_ROUNDS} is the slowest); ${misses.length} over target${misses.length ? `: ${misses.join(', ')}` : ''}; load average after: ${load()}`);
  } finally {
    await service.drop();
  }
  return out;
}

export async function alertsBench(corpus: string): Promise<void> {
  for (const kind of benchDatabases()) {
    process.stdout.write(`\nalerts list, groups and stats — ${kind === 'pglite' ? 'embedded database (PGlite)' : 'PostgreSQL'}, ${ALERTS.toLocaleString('en-US')} alerts, load average ${load()}\n`);
    process.stdout.write((await benchOne(kind, corpus)).join('\n') + '\n');
  }
}
