// Historical rule test over stored history (`BENCH=history`): 1,000,000 events (BENCH_HISTORY_EVENTS)
// spread over the last 7 days are loaded into one index pattern by SQL (INSERT … SELECT over
// generate_series from a few thousand fleet events, each copy made distinct), then a SigmaHQ rule's
// 7-day dry run (`POST /api/rules/{id}/test/historical`) is timed over HTTP while `/api/health` is
// asked every 50 ms: the test's duration and the health answers' worst latency show whether a long
// test keeps the server answering. On the embedded database the service is stopped for the load (one
// process holds the data directory).
import { loadavg } from 'node:os';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fleetEvents } from './events.js';
import { BenchService, benchDatabases, type BenchDatabase } from './service.js';
import type { Queryable } from '../src/db/database.js';

const EVENTS = Number(process.env.BENCH_HISTORY_EVENTS ?? 1_000_000);
const TEMPLATES = 4000;
const CHUNK = 100_000;
/** A rule of the corpus that matches a share of the fleet events (as a rule being tuned would). */
const RULE = 'rules/windows/process_access/proc_access_win_lsass_memdump.yml';

const fmt = (x: number): string => Math.round(x).toLocaleString('en-US');
const load = (): string => loadavg().map((x) => x.toFixed(2)).join(' ');

/** Loads `count` events over the 7 days before now into the pattern, by SQL, in blocks of 1,000 as ingest stores them; answers the wall time. */
export async function loadHistory(db: Queryable, patternId: string, corpus: string, count: number): Promise<number> {
  const t0 = performance.now();
  const templates = fleetEvents(corpus, TEMPLATES, { seed: 21 });
  await db.query('CREATE TABLE IF NOT EXISTS bench_templates (n integer PRIMARY KEY, event jsonb NOT NULL)');
  await db.query('DELETE FROM bench_templates');
  await db.query('INSERT INTO bench_templates (n, event) SELECT n - 1, e::jsonb FROM unnest($1::text[]) WITH ORDINALITY AS u(e, n)', [templates]);
  const span = 7 * 24 * 3600;
  for (let from = 1; from <= count; from += CHUNK) {
    const to = Math.min(count, from + CHUNK - 1);
    // Event g: template g mod TEMPLATES with its own record id, at now - g/count of 7 days (1 s inside the range).
    await db.query(
      `WITH e AS (
         SELECT g, now() - make_interval(secs => 1 + (g::float8 * ($4::float8 - 2)) / $5::float8) AS at,
                encode(sha256(convert_to($1::text || ':' || g, 'UTF8')), 'hex') AS hash,
                t.event || jsonb_build_object('EventRecordID', g) AS event
           FROM generate_series($2::integer, $3::integer) AS g JOIN bench_templates t ON t.n = g % ${TEMPLATES}),
       hashes AS (INSERT INTO event_hashes (index_pattern_id, event_hash) SELECT $1::uuid, hash FROM e)
       INSERT INTO event_blocks (index_pattern_id, first_time, last_time, event_count, times, hashes, events)
       SELECT $1::uuid, min(at), max(at), count(*), json_agg((extract(epoch FROM at) * 1000)::float8 ORDER BY at DESC),
              json_agg(hash ORDER BY at DESC), json_agg(event ORDER BY at DESC)
         FROM e GROUP BY g / 1000`,
      [patternId, from, to, span, count],
    );
  }
  await db.query('DROP TABLE bench_templates');
  return performance.now() - t0;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;
}

async function benchOne(kind: BenchDatabase, corpus: string): Promise<string[]> {
  const out: string[] = [];
  let service = await BenchService.start(kind);
  try {
    const pattern = await service.createPattern('bench-history', { preset: 'windows-thor' });
    const yaml = readFileSync(join(corpus, 'sigma-rules', RULE), 'utf8');
    const rule = await service.ok('POST', '/api/rules', { yaml_content: yaml, index_pattern: 'bench-history' });
    let loadMs: number;
    ({ service, result: loadMs } = await service.load((db) => loadHistory(db, pattern.id, corpus, EVENTS)));
    out.push(`  loaded ${fmt(EVENTS)} events over 7 days by SQL in ${(loadMs / 1000).toFixed(1)} s (load ${load()})`);

    for (const round of ['first', 'second']) {
      const latencies: number[] = [];
      let testing = true;
      const probe = (async () => {
        while (testing) {
          const t0 = performance.now();
          const answer = await service.request('GET', '/api/health');
          latencies.push(performance.now() - t0);
          if (answer.status !== 200) throw new Error(`health answered ${answer.status}`);
          await new Promise((ok) => setTimeout(ok, 50));
        }
      })();
      const cpu0 = service.cpuMs();
      const t0 = performance.now();
      const result = await service.ok('POST', `/api/rules/${rule.id}/test/historical`, { time_range: '7d', limit: 10 });
      const ms = performance.now() - t0;
      const cpuMs = service.cpuMs() - cpu0;
      testing = false;
      await probe;
      latencies.sort((a, b) => a - b);
      const check = (ok: boolean) => (ok ? 'OK  ' : 'MISS');
      out.push(
        `  ${check(ms < 30_000)} ${round} 7-day test: ${(ms / 1000).toFixed(1)} s wall (${(cpuMs / 1000).toFixed(1)} s service CPU) for ${fmt(result.events_scanned)} events scanned, ` +
          `${fmt(result.matches)} matches${result.truncated ? ', truncated' : ''} (target < 30 s; load ${load()})`,
        `  ${check(latencies[latencies.length - 1] < 1000)} /api/health meanwhile: ${latencies.length} answers, p50 ${percentile(latencies, 50).toFixed(0)} ms, ` +
          `p99 ${percentile(latencies, 99).toFixed(0)} ms, max ${latencies[latencies.length - 1].toFixed(0)} ms`,
      );
    }
  } finally {
    await service.drop();
  }
  return out;
}

export async function historyBench(corpus: string): Promise<void> {
  for (const kind of benchDatabases()) {
    process.stdout.write(`\nhistorical test — ${kind === 'pglite' ? 'embedded database (PGlite)' : 'PostgreSQL'}, load average ${load()}\n`);
    process.stdout.write((await benchOne(kind, corpus)).join('\n') + '\n');
  }
}
