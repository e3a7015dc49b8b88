// Several instances on one PostgreSQL database (`BENCH=scale`; PostgreSQL only). For each instance count
// of BENCH_SCALE_INSTANCES (default 1,2): a fresh database, the first instance importing and deploying
// the SigmaHQ rules on a windows-thor pattern scoped to `product: windows` (as the ingest bench) and the
// 50 correlation rules of the correlation bench, the other instances started beside it on the same
// DATABASE_URL; then BENCH_SCALE_EVENTS fleet events over one hour of event time, split between the
// instances (distinct events, each instance its own hosts), posted to all of them at once. Prints wall
// time, events/s, each instance's CPU per event, PostgreSQL's CPU per event (its processes in /proc),
// and the backends waiting on locks meanwhile (pg_stat_activity every 20 ms): their share of the active
// backends and the statements that waited and blocked most. A count named twice (1,2,1,2) is run twice,
// and compared by the totals of its runs.
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
const IDLE_MS = 3000;

const fmt = (x: number): string => Math.round(x).toLocaleString('en-US');
const load = (): string => loadavg().map((x) => x.toFixed(2)).join(' ');
const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;

interface Run {
  instances: number;
  events: number;
  /** Events each instance received. */
  eventsEach: number[];
  wallMs: number;
  /** Service CPU ms of each instance over the measured posting. */
  cpuMs: number[];
  /** CPU ms per second of each instance while no request came, before the posting. */
  idleMsPerS: number[];
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
    // What the instances spend when no request comes (timers, rule-change polling, housekeeping).
    const idle0 = services.map((s) => s.cpuMs());
    await new Promise((ok) => setTimeout(ok, IDLE_MS));
    const idleMsPerS = services.map((s, i) => ((s.cpuMs() - idle0[i]) * 1000) / IDLE_MS);
    const database = new URL(first.databaseUrl!).pathname.slice(1);
    const sampler = await LockSampler.open(first.databaseUrl!);
    const postgres = new PostgresCpu(database, new Set([await sampler.backendPid()]));
    const cpu0 = services.map((s) => s.cpuMs());
    postgres.start();
    sampler.start();
    const t0 = performance.now();
    let posted: { events: number; alerts: number }[];
    try {
      posted = await Promise.all(services.map((s, i) => postBodies(s, PATTERN, pattern.token, ndjsonBodies(streams[i], BATCH), CONCURRENCY)));
    } catch (error) {
      postgres.stop();
      await sampler.stop();
      throw error;
    }
    const wallMs = performance.now() - t0;
    const postgresMs = postgres.stop();
    const cpuMs = services.map((s, i) => s.cpuMs() - cpu0[i]);
    const locks = await sampler.stop();
    const loadAfter = load();
    const { correlationAlerts } = await outcomeOf(first);
    const eventsEach = posted.map((p) => p.events);
    const alerts = posted.reduce((acc, p) => acc + p.alerts, 0);
    return { instances: count, events: eventsEach.reduce((a, b) => a + b, 0), eventsEach, wallMs, cpuMs, idleMsPerS, postgresMs, alerts, correlationAlerts, locks, loadAfter };
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
    `    service CPU ${us(service)} µs per event${run.instances > 1 ? ` (${run.cpuMs.map((ms) => us(ms)).join(' + ')} µs per event of all events; per event it received ${run.cpuMs.map((ms, i) => ((ms * 1000) / run.eventsEach[i]).toFixed(1)).join(', ')})` : ''}, PostgreSQL CPU ${us(run.postgresMs)} µs per event, together ${us(service + run.postgresMs)}`,
    `    idle before the posting: ${run.idleMsPerS.map((x) => x.toFixed(0)).join(', ')} ms of CPU per second${run.instances > 1 ? ' per instance' : ''}`,
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
  // A count run more than once (BENCH_SCALE_INSTANCES=1,2,1,2) is compared by its runs' totals.
  const totals = (count: number) => {
    const rs = runs.filter((r) => r.instances === count);
    const sum = (f: (r: Run) => number) => rs.reduce((acc, r) => acc + f(r), 0);
    const events = sum((r) => r.events);
    return {
      runs: rs.length,
      rate: events / sum((r) => r.wallMs),
      serviceCpu: sum((r) => r.cpuMs.reduce((a, b) => a + b, 0)) / events,
      postgresCpu: sum((r) => r.postgresMs) / events,
      lockShare: sum((r) => r.locks.lockWaits) / Math.max(1, sum((r) => r.locks.active)),
    };
  };
  if (!INSTANCES.includes(1)) return;
  const one = totals(1);
  const check = (ok: boolean) => (ok ? 'OK  ' : 'MISS');
  for (const count of [...new Set(INSTANCES)].filter((n) => n > 1)) {
    const r = totals(count);
    const cpu = r.serviceCpu / one.serviceCpu;
    const runsSaid = one.runs > 1 || r.runs > 1 ? ` (totals of ${one.runs} and ${r.runs} runs)` : '';
    process.stdout.write(
      [
        `  ${check(cpu <= 1.15)} ${count} instances' service CPU per event ÷ one instance's = ${cpu.toFixed(3)} (target ≤ 1.15); PostgreSQL's ${(r.postgresCpu / one.postgresCpu).toFixed(2)}${runsSaid}`,
        `  ${check(r.lockShare <= 0.05)} ${count} instances: lock waits ${pct(r.lockShare)} of active backend samples (target ≤ 5%; one instance ${pct(one.lockShare)})`,
        `  ${count} instances' events/s ÷ one instance's = ${(r.rate / one.rate).toFixed(2)} (on this ${availableParallelism()}-core machine the instances and PostgreSQL share the cores: throughput is bounded by them, not by the instances)`,
      ].join('\n') + '\n',
    );
  }
  process.stdout.write(`  (${fmt(EVENTS)} events per run, ${BATCH}-event batches over ${CONCURRENCY} connection${CONCURRENCY > 1 ? 's' : ''} per instance, lateness ${LATENESS_S} s)\n`);
}
