// Historical rule test over stored history (`BENCH=history`): 1,000,000 events (BENCH_HISTORY_EVENTS)
// spread over the last 7 days are loaded into one index pattern by SQL (INSERT … SELECT over
// generate_series from a few thousand fleet events, each copy made distinct), then a SigmaHQ rule's
// 7-day dry run (`POST /api/rules/{id}/test/historical`) is timed over HTTP while `/api/health` is
// asked every 50 ms: the test's duration and the health answers' worst latency show whether a long
// test keeps the server answering. On the embedded database the service is stopped for the load (one
// process holds the data directory). When an OpenSearch node answers at OPENSEARCH_BENCH_URL (default
// http://127.0.0.1:9200), the same test runs with SEARCH_BACKEND=opensearch over the same number of events
// written to the pattern's event indices with `_bulk` (under an index prefix unique to the run, deleted
// at the end).
import { createHash, randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fleetEvents } from './events.js';
import { BenchService, benchDatabases, type BenchDatabase } from './service.js';
import type { Queryable } from '../src/db/database.js';
import { dailyIndexName, eventIndexName } from '../src/backends/opensearch/event-days.js';
import { EVENT_INDEX_BODY } from '../src/backends/opensearch/event-mapping.js';

const EVENTS = Number(process.env.BENCH_HISTORY_EVENTS ?? 1_000_000);
const OPENSEARCH_URL = (process.env.OPENSEARCH_BENCH_URL || 'http://127.0.0.1:9200').replace(/\/+$/, '');
/** Events per `_bulk` request of the OpenSearch load. */
const BULK = 5000;
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

/** Writes `count` events over the 7 days before now into the pattern's event index of today on the cluster, as the backend stores them; answers the wall time. */
export async function loadClusterHistory(family: string, corpus: string, count: number): Promise<number> {
  const t0 = performance.now();
  const templates = fleetEvents(corpus, TEMPLATES, { seed: 21 }).map((e) => JSON.parse(e) as Record<string, unknown>);
  const now = Date.now();
  const index = dailyIndexName(family, new Date(now));
  const receivedAt = JSON.stringify(new Date(now).toISOString());
  const span = 7 * 24 * 3600_000;
  const made = await fetch(`${OPENSEARCH_URL}/${index}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(EVENT_INDEX_BODY) });
  if (!made.ok) throw new Error(`creating ${index}: ${made.status} ${await made.text()}`);
  const post = async (lines: string[]) => {
    const answer = await fetch(`${OPENSEARCH_URL}/_bulk`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: lines.join('\n') + '\n' });
    const result = (await answer.json()) as { errors: boolean };
    if (!answer.ok || result.errors) throw new Error(`_bulk failed: ${answer.status} ${JSON.stringify(result).slice(0, 300)}`);
  };
  for (let from = 0; from < count; from += BULK) {
    const lines: string[] = [];
    for (let g = from; g < Math.min(count, from + BULK); g++) {
      const event = { ...templates[g % TEMPLATES], EventRecordID: g };
      const json = JSON.stringify(event);
      const hash = createHash('sha256').update(json).digest('hex');
      const at = new Date(now - 1000 - (g * (span - 2000)) / count).toISOString();
      lines.push(JSON.stringify({ create: { _index: index, _id: hash } }), `{"event_time":"${at}","received_at":${receivedAt},"hash":"${hash}","event":${json}}`);
    }
    await post(lines);
  }
  await fetch(`${OPENSEARCH_URL}/${index}/_refresh`, { method: 'POST' });
  return performance.now() - t0;
}

async function openSearchAnswers(): Promise<boolean> {
  try {
    return (await fetch(OPENSEARCH_URL, { signal: AbortSignal.timeout(3000) })).ok;
  } catch {
    return false;
  }
}

async function benchOne(kind: BenchDatabase, corpus: string, cluster?: string): Promise<string[]> {
  const out: string[] = [];
  let service = await BenchService.start(kind, cluster ? { SEARCH_BACKEND: 'opensearch', OPENSEARCH_URL, OPENSEARCH_INDEX_PREFIX: cluster } : {});
  try {
    const pattern = await service.createPattern('bench-history', { preset: 'windows-thor' });
    const yaml = readFileSync(join(corpus, 'sigma-rules', RULE), 'utf8');
    const rule = await service.ok('POST', '/api/rules', { yaml_content: yaml, index_pattern: 'bench-history' });
    let loadMs: number;
    if (cluster) {
      loadMs = await loadClusterHistory(cluster + eventIndexName('bench-history'), corpus, EVENTS);
      out.push(`  wrote ${fmt(EVENTS)} events over 7 days to the cluster with _bulk in ${(loadMs / 1000).toFixed(1)} s (load ${load()})`);
    } else {
      ({ service, result: loadMs } = await service.load((db) => loadHistory(db, pattern.id, corpus, EVENTS)));
      out.push(`  loaded ${fmt(EVENTS)} events over 7 days by SQL in ${(loadMs / 1000).toFixed(1)} s (load ${load()})`);
    }

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
    if (cluster) await fetch(`${OPENSEARCH_URL}/${cluster}*`, { method: 'DELETE' });
  }
  return out;
}

export async function historyBench(corpus: string): Promise<void> {
  const backends = (process.env.BENCH_HISTORY_BACKENDS ?? 'embedded,opensearch').split(',');
  if (backends.includes('embedded')) {
    for (const kind of benchDatabases()) {
      process.stdout.write(`\nhistorical test — ${kind === 'pglite' ? 'embedded database (PGlite)' : 'PostgreSQL'}, load average ${load()}\n`);
      process.stdout.write((await benchOne(kind, corpus)).join('\n') + '\n');
    }
  }
  if (!backends.includes('opensearch')) return;
  if (!(await openSearchAnswers())) {
    process.stdout.write(`\nhistorical test on OpenSearch: skipped: no node at ${OPENSEARCH_URL} (start one with scripts/opensearch-up.sh or set OPENSEARCH_BENCH_URL)\n`);
    return;
  }
  process.stdout.write(`\nhistorical test — OpenSearch backend (${OPENSEARCH_URL}), embedded database (PGlite), load average ${load()}\n`);
  process.stdout.write((await benchOne('pglite', corpus, `bench-${randomBytes(4).toString('hex')}-`)).join('\n') + '\n');
}
