// Ingest end to end (`BENCH=ingest`): the real service over HTTP, on the embedded database and on
// PostgreSQL. Two index patterns with preset windows-thor and the log-source scope `product: windows`:
// one with the whole SigmaHQ `rules/` folder imported and deployed (the rules its scope admits), one
// with no rule. NDJSON batches of fleet events (bench/events.ts
// fleetEvents: thousands of images, command lines, users and hosts) are posted over a few concurrent
// connections to each pattern in turn, the same events to both, halves interleaved so table growth
// weighs on both alike. Prints events/s by wall time and per CPU second of the service process, the
// ratio with rules ÷ without, the service's CPU per event (all its threads: with the embedded database,
// the database's work too) against the targets, and storage per event against the events' JSON size.
// A third pattern, with one rule every event matches, gives the cost of an alert: its CPU per event
// less that of the pattern without rules.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { loadavg } from 'node:os';
import { zipSync } from 'fflate';
import { fleetEvents } from './events.js';
import { BenchService, benchDatabases, type BenchDatabase } from './service.js';
import { buildCatalog, buildPipeline, eventShaperOf, getPreset, type RuleCatalog } from '../src/sigma/index.js';
import { openPglite } from '../src/db/pglite.js';

const EVENTS = Number(process.env.BENCH_INGEST_EVENTS ?? 60_000);
const BATCH = Number(process.env.BENCH_INGEST_BATCH ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_INGEST_CONCURRENCY ?? 4);
/** Events sent to the pattern whose rule every event matches (each raises an alert). */
const ALERTING = Number(process.env.BENCH_INGEST_ALERTING ?? 10_000);
/** A Windows rule every event matches: its only selection names a field no event has, negated. */
const EVERY_EVENT_RULE = `title: Bench every event
logsource:
  product: windows
detection:
  absent:
    VigilBenchAbsentField: never
  condition: not absent
level: low
`;
/** The log sources of the bench patterns: a Windows fleet. */
const SCOPE = [{ product: 'windows' }];

const fmt = (x: number): string => Math.round(x).toLocaleString('en-US');
const load = (): string => loadavg().map((x) => x.toFixed(2)).join(' ');

function ruleFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((n) => {
      const p = join(dir, n);
      return statSync(p).isDirectory() ? ruleFiles(p) : /\.ya?ml$/.test(n) ? [p] : [];
    });
}

/**
 * The rules folder as a zip upload, without the rules that match an event holding none of their fields
 * under `preset` (a Zeek rule made only of `not …` matches every Windows event: deployed on a Windows
 * pattern, it raises an alert per event, which no one deploys). Answers the zip, the left-out titles, and
 * the deployed rules as a catalog with the preset's event shaping, to tell which rules an event matches.
 */
export function rulesZip(
  rulesDir: string,
  preset = 'windows-thor',
): { zip: Uint8Array; left: string[]; alerts: (event: Record<string, unknown>) => boolean; catalog: RuleCatalog; shape: (event: Record<string, unknown>) => object } {
  const sources = ruleFiles(rulesDir).map((path) => ({ path, text: readFileSync(path, 'utf8') }));
  const catalog = buildCatalog(sources, getPreset(preset)!);
  const vacuous = new Set(catalog.index.match({}));
  const left = catalog.rules.filter((_, i) => vacuous.has(i));
  const leftOut = new Set(left.map((r) => r.path));
  const entries: Record<string, Uint8Array> = {};
  for (const { path, text } of sources) if (!leftOut.has(path)) entries[relative(rulesDir, path)] = Buffer.from(text);
  // Whether an event would raise an alert on the bench pattern (same preset and scope, the same rules).
  const scoped = buildCatalog(
    sources.filter((s) => !leftOut.has(s.path)),
    buildPipeline({ defaultMapping: 'identity', fieldMappings: [], preset, logsourceScope: SCOPE }),
  );
  const shaper = eventShaperOf(getPreset(preset)!);
  const shape = (event: Record<string, unknown>): object => (shaper ? shaper(event) : event);
  const alerts = (event: Record<string, unknown>) => scoped.index.match(shape(event)).length > 0;
  return { zip: zipSync(entries, { level: 1 }), left: left.map((r) => r.title), alerts, catalog: scoped, shape };
}

/** Imports and deploys the rules into `pattern`; answers the import's counts and its wall time. */
export async function importRules(service: BenchService, pattern: string, zip: Uint8Array): Promise<{ created: number; deployed: number; failed: number; ms: number }> {
  const t0 = performance.now();
  const data = await service.ok('POST', `/api/rules/import?deploy=true&index_pattern=${encodeURIComponent(pattern)}`, zip, { 'content-type': 'application/zip' });
  return { created: data.created, deployed: data.deployed, failed: data.failed.length, ms: performance.now() - t0 };
}

/** NDJSON request bodies of `size` lines each. */
export function ndjsonBodies(lines: string[], size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < lines.length; i += size) out.push(Buffer.from(lines.slice(i, i + size).join('\n') + '\n'));
  return out;
}

/** Posts the bodies to /api/logs/{pattern} over `connections` connections; answers events accepted and alerts created. */
export async function postBodies(service: BenchService, pattern: string, token: string, bodies: Buffer[], connections: number): Promise<{ events: number; alerts: number }> {
  let next = 0;
  let events = 0;
  let alerts = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++];
        const data = await service.ok('POST', `/api/logs/${pattern}`, body, { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' });
        if (data.rejected) throw new Error(`events rejected: ${JSON.stringify(data.errors.slice(0, 3))}`);
        events += data.accepted;
        alerts += data.alerts_created;
      }
    }),
  );
  return { events, alerts };
}

/** One or more posting passes: events, wall and service CPU time, alerts raised. */
export interface Pass {
  events: number;
  wallMs: number;
  cpuMs: number;
  alerts: number;
}

/** Posts the bodies over CONCURRENCY connections; answers wall and service CPU time. */
export async function post(service: BenchService, pattern: string, token: string, bodies: Buffer[]): Promise<Pass> {
  const cpu0 = service.cpuMs();
  const t0 = performance.now();
  const { events, alerts } = await postBodies(service, pattern, token, bodies, CONCURRENCY);
  return { events, wallMs: performance.now() - t0, cpuMs: service.cpuMs() - cpu0, alerts };
}

export function add(a: Pass, b: Pass): Pass {
  return { events: a.events + b.events, wallMs: a.wallMs + b.wallMs, cpuMs: a.cpuMs + b.cpuMs, alerts: a.alerts + b.alerts };
}

/** Bytes the stored events take in the database: their blocks (with TOAST and indexes) and their keys. */
const STORAGE_SQL = `SELECT (pg_total_relation_size('event_blocks') + pg_total_relation_size('event_hashes'))::bigint AS events,
  (pg_total_relation_size('event_blocks') - pg_indexes_size('event_blocks'))::bigint AS heap,
  pg_total_relation_size('event_hashes')::bigint AS indexes, (SELECT coalesce(sum(event_count), 0) FROM event_blocks)::bigint AS n,
  pg_total_relation_size('alerts')::bigint AS alerts, (SELECT count(*) FROM alerts)::bigint AS alert_count`;

interface Storage {
  events: number;
  heap: number;
  indexes: number;
  n: number;
  /** The alerts table with its indexes, and its rows. */
  alerts: number;
  alert_count: number;
}

async function storageOf(service: BenchService): Promise<Storage> {
  if (service.kind === 'postgres') {
    const client = await service.sql();
    try {
      const row = (await client.query(STORAGE_SQL)).rows[0];
      return {
        events: Number(row.events),
        heap: Number(row.heap),
        indexes: Number(row.indexes),
        n: Number(row.n),
        alerts: Number(row.alerts),
        alert_count: Number(row.alert_count),
      };
    } finally {
      await client.end();
    }
  }
  await service.stop();
  const db = await openPglite({ dataDir: service.pgdata });
  try {
    const [row] = await db.query<Storage & { [key: string]: unknown }>(STORAGE_SQL);
    return row;
  } finally {
    await db.close();
  }
}

async function benchOne(kind: BenchDatabase, zip: Uint8Array, lines: string[], warm: string[]): Promise<string[]> {
  const out: string[] = [];
  const service = await BenchService.start(kind);
  try {
    // A Windows fleet's pattern says so: rules of other log sources (Zeek, Cisco, Linux, cloud) are refused
    // at deploy, as they would only fire on fields Windows events lack.
    const settings = { preset: 'windows-thor', logsource_scope: SCOPE };
    const rules = await service.createPattern('bench-rules', settings);
    const none = await service.createPattern('bench-none', settings);
    const every = await service.createPattern('bench-every', settings);
    await service.ok('POST', '/api/rules', { yaml_content: EVERY_EVENT_RULE, index_pattern: 'bench-every', deploy: true });
    const imported = await importRules(service, 'bench-rules', zip);
    out.push(`  rules: ${imported.created} imported, ${imported.deployed} deployed, ${imported.failed} refused (outside the scope or not deployable), in ${(imported.ms / 1000).toFixed(1)} s (load ${load()})`);
    // Warm-up: JIT, lazily built scanners, first pages of the tables.
    for (const p of [none, rules]) await post(service, p === rules ? 'bench-rules' : 'bench-none', p.token, ndjsonBodies(warm, BATCH));
    await post(service, 'bench-every', every.token, ndjsonBodies(warm.slice(0, BATCH), BATCH));
    const dirBefore = service.dataDirBytes();
    const bodies = ndjsonBodies(lines, BATCH);
    const half = Math.ceil(bodies.length / 2);
    let withRules: Pass = { events: 0, wallMs: 0, cpuMs: 0, alerts: 0 };
    let without: Pass = { ...withRules };
    for (const part of [bodies.slice(0, half), bodies.slice(half)]) {
      without = add(without, await post(service, 'bench-none', none.token, part));
      withRules = add(withRules, await post(service, 'bench-rules', rules.token, part));
    }
    const alerting = await post(service, 'bench-every', every.token, ndjsonBodies(lines.slice(0, ALERTING), BATCH));
    const loadAfter = load();
    const dirAfter = service.dataDirBytes();
    const storage = await storageOf(service);
    const jsonBytes = lines.reduce((s, l) => s + Buffer.byteLength(l), 0) / lines.length;
    const wallRate = (p: Pass) => (p.events / p.wallMs) * 1000;
    const cpuRate = (p: Pass) => (p.events / p.cpuMs) * 1000;
    const ratio = wallRate(withRules) / wallRate(without);
    const cpuRatio = cpuRate(withRules) / cpuRate(without);
    const perEvent = storage.events / storage.n;
    const target = kind === 'postgres' ? 20_000 : 10_000;
    const check = (ok: boolean) => (ok ? 'OK  ' : 'MISS');
    const usPerEvent = (p: Pass) => (p.cpuMs * 1000) / p.events;
    const cpuTarget = kind === 'postgres' ? 60 : 100;
    const perAlertMs = ((usPerEvent(alerting) - usPerEvent(without)) * alerting.events) / Math.max(1, alerting.alerts) / 1000;
    out.push(
      `  no rule deployed     ${fmt(wallRate(without)).padStart(8)} events/s wall, ${fmt(cpuRate(without)).padStart(8)} events per service CPU second`,
      `  3,000+ rules deployed${fmt(wallRate(withRules)).padStart(8)} events/s wall, ${fmt(cpuRate(withRules)).padStart(8)} events per service CPU second; ${fmt(withRules.alerts)} alerts`,
      `  ${check(ratio >= 0.7)} with rules ÷ without = ${ratio.toFixed(2)} by wall time, ${cpuRatio.toFixed(2)} by service CPU (target ≥ 0.7)`,
      `  ${check(wallRate(withRules) >= target)} ingest with rules = ${fmt(wallRate(withRules))} events/s (target ≥ ${fmt(target)})`,
      `  ${check(usPerEvent(withRules) <= cpuTarget)} service CPU per event with rules: ${usPerEvent(withRules).toFixed(1)} µs (without rules ${usPerEvent(without).toFixed(1)} µs; target ≤ ${cpuTarget} µs` +
        `${kind === 'postgres' ? ', PostgreSQL\'s own processes not counted' : ', the embedded database included'})`,
      `  ${check(perAlertMs <= 0.3)} per alert: ${perAlertMs.toFixed(2)} ms of service CPU (${fmt(alerting.alerts)} alerts of ${fmt(alerting.events)} events, every one matched; ` +
        `${usPerEvent(alerting).toFixed(0)} µs per event less ${usPerEvent(without).toFixed(0)} without rules; target ≤ 0.3 ms)`,
      `  ${check(perEvent / jsonBytes <= 2)} storage: ${fmt(perEvent)} bytes per event stored (blocks ${fmt(storage.heap / storage.n)}, keys ${fmt(storage.indexes / storage.n)}) ` +
        `for ${fmt(jsonBytes)} bytes of JSON = ${(perEvent / jsonBytes).toFixed(2)}× (target ≤ 2×)` +
        (kind === 'pglite' ? `; data directory grew ${fmt((dirAfter - dirBefore) / (withRules.events + without.events))} bytes per event` : ''),
      `       alerts table: ${fmt(storage.alerts / Math.max(1, storage.alert_count))} bytes per alert with its indexes (${fmt(storage.alert_count)} alerts)`,
      `  (${fmt(withRules.events + without.events)} events in ${BATCH}-event batches over ${CONCURRENCY} connections; load average after: ${loadAfter})`,
    );
  } finally {
    await service.drop();
  }
  return out;
}

export async function ingestBench(corpus: string): Promise<void> {
  const rulesDir = join(corpus, 'sigma-rules/rules');
  const { zip, left, alerts } = rulesZip(rulesDir);
  process.stdout.write(`\ningest: rules of ${rulesDir} but ${left.length} that match any event under windows-thor (${left.join('; ')})\n`);
  // As in a fleet, alerts are rare: the 1% unmodified attack events raise them, the others none.
  const lines = fleetEvents(corpus, EVENTS, { seed: 11, alerts });
  const warm = fleetEvents(corpus, Math.min(EVENTS, 2 * BATCH), { seed: 12, alerts });
  for (const kind of benchDatabases()) {
    process.stdout.write(`\ningest over HTTP — ${kind === 'pglite' ? 'embedded database (PGlite)' : 'PostgreSQL'}, load average ${load()}\n`);
    process.stdout.write((await benchOne(kind, zip, lines, warm)).join('\n') + '\n');
  }
}
