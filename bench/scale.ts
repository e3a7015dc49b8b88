// Several instances on one PostgreSQL database (`BENCH=scale`; PostgreSQL only). For each instance count
// of BENCH_SCALE_INSTANCES (default 1,2): a fresh database, the first instance importing and deploying
// the SigmaHQ rules on a windows-thor pattern scoped to `product: windows` (as the ingest bench) and the
// 50 correlation rules of the correlation bench, the other instances started beside it on the same
// DATABASE_URL; then BENCH_SCALE_EVENTS fleet events over one hour of event time, split between the
// instances (distinct events, each instance its own hosts), posted to all of them at once. Prints wall
// time, events/s, each instance's CPU per event, PostgreSQL's CPU per event (its processes in /proc),
// and the backends waiting on locks meanwhile (pg_stat_activity every 20 ms): their share of the active
// backends and the statements that waited and blocked most.
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { correlationSpecs, deployCorrelations, LATENESS_S, matchedRules, outcomeOf, SPAN_MS, streamOf, type Spec } from './correlation.js';
import { importRules, ndjsonBodies, postBodies, rulesZip } from './ingest.js';
import { LockSampler, PostgresCpu, top, type LockSample } from './postgres-probe.js';
import { BenchService, postgresServerUrl } from './service.js';

const EVENTS = Number(process.env.BENCH_SCALE_EVENTS ?? 40_000);
const BATCH = Number(process.env.BENCH_SCALE_BATCH ?? 1000);
/** Connections posting to each instance. */
const CONCURRENCY = Number(process.env.BENCH_SCALE_CONCURRENCY ?? 4);
const INSTANCES = (process.env.BENCH_SCALE_INSTANCES ?? '1,2').split(',').map(Number).filter((n) => n >= 1);
const SCOPE = [{ product: 'windows' }];
const PATTERN = 'bench-scale';

const fmt = (x: number): string => Math.round(x).toLocaleString('en-US');
const load = (): string => loadavg().map((x) => x.toFixed(2)).join(' ');
const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;

interface Run {
  instances: number;
  events: number;
  wallMs: number;
  /** Service CPU ms of each instance over the measured posting. */
  cpuMs: number[];
  postgresMs: number;
  alerts: number;
  correlationAlerts: number;
  locks: LockSample;
  loadAfter: string;
}

/** Waits until every instance has applied the rule changes the first one made. */
async function sameRules(services: BenchService[]): Promise<number> {
  const revision = async (s: BenchService) => (await s.ok('GET', '/api/health?details=true')).details.rules_revision as number;
  const want = await revision(services[0]);
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((ok) => setTimeout(ok, 200))) {
    if ((await Promise.all(services.map(revision))).every((r) => r === want)) return want;
  }
  throw new Error('the instances do not hold the same rules after a minute');
}

async function runWith(count: number, zip: Uint8Array, specs: Spec[], streams: string[][], warms: string[][]): Promise<Run> {
  const env = { CORRELATION_LATENESS: String(LATENESS_S) };
  const first = await BenchService.start('postgres', env);
  const services = [first];
  try {
    const pattern = await first.createPattern(PATTERN, { preset: 'windows-thor', logsource_scope: SCOPE });
    const imported = await importRules(first, PATTERN, zip);
    await deployCorrelations(first, PATTERN, specs);
    for (let i = 1; i < count; i++) services.push(await BenchService.beside(first, env));
    const revision = await sameRules(services);
    process.stdout.write(`  ${count} instance${count > 1 ? 's' : ''}: ${imported.deployed} SigmaHQ rules and ${specs.length} correlations deployed once, rules revision ${revision} on every instance (load ${load()})\n`);
    // Warm-up (JIT, scanners, first pages of the tables), event times before the measured stream.
    await Promise.all(services.map((s, i) => postBodies(s, PATTERN, pattern.token, ndjsonBodies(warms[i], BATCH), CONCURRENCY)));
    const database = new URL(first.databaseUrl!).pathname.slice(1);
    const sampler = await LockSampler.open(first.databaseUrl!);
    const postgres = new PostgresCpu(database, new Set([await sampler.backendPid()]));
    const cpu0 = services.map((s) => s.cpuMs());
    postgres.start();
    sampler.start();
    const t0 = performance.now();
    const posted = await Promise.all(services.map((s, i) => postBodies(s, PATTERN, pattern.token, ndjsonBodies(streams[i], BATCH), CONCURRENCY)));
    const wallMs = performance.now() - t0;
    const postgresMs = postgres.stop();
    const cpuMs = services.map((s, i) => s.cpuMs() - cpu0[i]);
    const locks = await sampler.stop();
    const loadAfter = load();
    const { correlationAlerts } = await outcomeOf(first);
    const sum = <K extends 'events' | 'alerts'>(k: K) => posted.reduce((acc, p) => acc + p[k], 0);
    return { instances: count, events: sum('events'), wallMs, cpuMs, postgresMs, alerts: sum('alerts'), correlationAlerts, locks, loadAfter };
  } finally {
    for (const s of services.slice(1)) await s.drop();
    await first.drop();
  }
}

function describe(run: Run): string[] {
  const us = (ms: number) => ((ms * 1000) / run.events).toFixed(1);
  const service = run.cpuMs.reduce((a, b) => a + b, 0);
  const { samples, active, inTransaction, lockWaits, waits, blockers, allWaits } = run.locks;
  const list = (m: Map<string, number>) =>
    top(m)
      .map(([k, n]) => `${pct(n / Math.max(1, active))} ${k}`)
      .join('; ') || 'none';
  return [
    `  ${run.instances} instance${run.instances > 1 ? 's' : ''}: ${fmt(run.events)} events in ${(run.wallMs / 1000).toFixed(1)} s = ${fmt((run.events / run.wallMs) * 1000)} events/s wall; ${fmt(run.alerts)} alerts (${fmt(run.correlationAlerts)} by correlations)`,
    `    service CPU ${us(service)} µs per event${run.instances > 1 ? ` (${run.cpuMs.map((ms) => us(ms)).join(' + ')} µs per event of all events; per own event ${run.cpuMs.map((ms) => ((ms * 1000 * run.instances) / run.events).toFixed(1)).join(', ')})` : ''}, PostgreSQL CPU ${us(run.postgresMs)} µs per event, together ${us(service + run.postgresMs)}`,
    `    backends: ${(active / Math.max(1, samples)).toFixed(2)} active and ${(inTransaction / Math.max(1, samples)).toFixed(2)} in a transaction on average over ${fmt(samples)} samples; ` +
      `waiting on a lock ${pct(lockWaits / Math.max(1, active))} of active backend samples (${pct(lockWaits / Math.max(1, inTransaction))} of those in a transaction)`,
    `    lock waits (share of active backend samples): ${list(waits)}`,
    `    blocked by (the blocking transaction's current or last statement): ${list(blockers)}`,
    `    all waits of active backends: ${list(allWaits)}`,
    `    (load average after: ${run.loadAfter})`,
  ];
}

export async function scaleBench(corpus: string): Promise<void> {
  process.stdout.write(`\nscale: several instances on one PostgreSQL database, load average ${load()}\n`);
  if (!postgresServerUrl()) {
    process.stdout.write('  skipped: no PostgreSQL server (set BENCH_DATABASE_URL or TEST_DATABASE_URL)\n');
    return;
  }
  const { zip, alerts, catalog, shape } = rulesZip(join(corpus, 'sigma-rules/rules'));
  const specs = correlationSpecs(matchedRules(corpus, catalog, shape));
  const endMs = Date.now();
  const runs: Run[] = [];
  for (const count of INSTANCES) {
    // Distinct events per instance, each stream with its own hosts (seeded apart), over the same hour.
    const streams = Array.from({ length: count }, (_, i) => streamOf(corpus, Math.ceil(EVENTS / count), 31 + i, endMs, SPAN_MS, alerts));
    const warms = Array.from({ length: count }, (_, i) => streamOf(corpus, 2 * BATCH, 41 + i, endMs - SPAN_MS, 5 * 60_000, alerts));
    const run = await runWith(count, zip, specs, streams, warms);
    runs.push(run);
    process.stdout.write(describe(run).join('\n') + '\n');
  }
  const one = runs.find((r) => r.instances === 1);
  if (!one) return;
  const perEvent = (r: Run) => r.cpuMs.reduce((a, b) => a + b, 0) / r.events;
  const rate = (r: Run) => r.events / r.wallMs;
  const check = (ok: boolean) => (ok ? 'OK  ' : 'MISS');
  for (const r of runs.filter((x) => x.instances > 1)) {
    const cpu = perEvent(r) / perEvent(one);
    const share = r.locks.lockWaits / Math.max(1, r.locks.active);
    process.stdout.write(
      [
        `  ${check(cpu <= 1.15)} ${r.instances} instances' service CPU per event ÷ one instance's = ${cpu.toFixed(2)} (target ≤ 1.15); PostgreSQL's ${(r.postgresMs / r.events / (one.postgresMs / one.events)).toFixed(2)}`,
        `  ${check(share <= 0.05)} ${r.instances} instances: lock waits ${pct(share)} of active backend samples (target ≤ 5%)`,
        `  ${r.instances} instances' events/s ÷ one instance's = ${(rate(r) / rate(one)).toFixed(2)} (on this ${availableParallelism()}-core machine the instances and PostgreSQL share the cores: throughput is bounded by them, not by the instances)`,
      ].join('\n') + '\n',
    );
  }
  process.stdout.write(`  (${fmt(EVENTS)} events per run, ${BATCH}-event batches over ${CONCURRENCY} connections per instance, lateness ${LATENESS_S} s)\n`);
}
