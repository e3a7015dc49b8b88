// Bulk triage by filter (`BENCH=triage`): 100,000 new alerts (BENCH_TRIAGE_ALERTS) are loaded by SQL as
// the alerts section loads them (indexes built again afterwards, the trigram search index in its own
// table included, as a real installation has it), then `POST /api/alerts/bulk/status`
// acknowledges every alert `{status: "new"}` matches and a second request resolves every alert
// `{status: "acknowledged"}` matches, while `/api/health` is asked every 50 ms. Prints each request's
// time (target < 10 s), its updated and skipped counts, and the slowest health answer (target < 1 s).
import { loadavg } from 'node:os';
import { loadAlerts } from './alerts.js';
import { BenchService, benchDatabases, type BenchDatabase } from './service.js';

const ALERTS = Number(process.env.BENCH_TRIAGE_ALERTS ?? 100_000);
const SEARCH = process.env.BENCH_ALERT_SEARCH !== 'false';

const load = (): string => loadavg().map((x) => x.toFixed(2)).join(' ');
const fmt = (x: number): string => Math.round(x).toLocaleString('en-US');

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;
}

/** Runs `work` while asking /api/health every 50 ms; answers its result, wall time and the health latencies (sorted). */
async function probed<T>(service: BenchService, work: () => Promise<T>): Promise<{ result: T; ms: number; health: number[] }> {
  const health: number[] = [];
  let running = true;
  const probe = (async () => {
    while (running) {
      const t0 = performance.now();
      const answer = await service.request('GET', '/api/health');
      health.push(performance.now() - t0);
      if (answer.status !== 200) throw new Error(`health answered ${answer.status}`);
      await new Promise((ok) => setTimeout(ok, 50));
    }
  })();
  const t0 = performance.now();
  let result: T;
  let ms: number;
  try {
    result = await work();
    ms = performance.now() - t0;
  } finally {
    running = false;
    await probe;
  }
  return { result, ms, health: health.sort((a, b) => a - b) };
}

async function benchOne(kind: BenchDatabase, corpus: string): Promise<string[]> {
  const out: string[] = [];
  // A bulk request sends nothing back until it is done: the connection's idle limit (HTTP_IDLE_TIMEOUT,
  // 5 minutes) would cut one that takes longer, so it is lifted here to time it whole.
  let service = await BenchService.start(kind, { HTTP_IDLE_TIMEOUT: '0' });
  try {
    const patterns = [
      { ...(await service.createPattern('bench-alerts')), name: 'bench-alerts' },
      { ...(await service.createPattern('bench-other')), name: 'bench-other' },
    ];
    let loaded: Awaited<ReturnType<typeof loadAlerts>>;
    ({ service, result: loaded } = await service.load((db) => loadAlerts(db, patterns, corpus, ALERTS, { statuses: ['new'], searchIndex: SEARCH })));
    out.push(
      `  loaded ${fmt(ALERTS)} new alerts by SQL in ${(loaded.ms / 1000).toFixed(1)} s, of which ${(loaded.indexMs / 1000).toFixed(1)} s building the indexes (load ${load()})` +
        (SEARCH ? '' : '; BENCH_ALERT_SEARCH=false: no trigram search index'),
    );
    const steps = [
      { filter: { status: 'new' }, status: 'acknowledged' },
      { filter: { status: 'acknowledged' }, status: 'resolved' },
    ];
    const check = (ok: boolean) => (ok ? 'OK  ' : 'MISS');
    for (const step of steps) {
      const cpu0 = service.cpuMs();
      const { result: answer, ms, health } = await probed(service, () => service.requestLong('POST', '/api/alerts/bulk/status', step));
      if (answer.status !== 200) throw new Error(`bulk change answered ${answer.status}: ${JSON.stringify(answer.data).slice(0, 500)}`);
      const result = answer.data;
      const cpuMs = service.cpuMs() - cpu0;
      const slowest = health[health.length - 1] ?? NaN;
      out.push(
        `  ${check(ms < 10_000)} ${JSON.stringify(step.filter)} → ${step.status}: ${(ms / 1000).toFixed(1)} s wall (${(cpuMs / 1000).toFixed(1)} s service CPU), ` +
          `updated ${fmt(result.updated)}, skipped ${fmt(result.skipped)} (target < 10 s; load ${load()})`,
        `  ${check(slowest < 1000)} /api/health meanwhile: ${health.length} answers, p50 ${percentile(health, 50).toFixed(0)} ms, ` +
          `p99 ${percentile(health, 99).toFixed(0)} ms, slowest ${slowest.toFixed(0)} ms (target < 1000 ms)`,
      );
    }
  } finally {
    await service.drop();
  }
  return out;
}

export async function triageBench(corpus: string): Promise<void> {
  for (const kind of benchDatabases()) {
    process.stdout.write(`\nbulk triage by filter — ${kind === 'pglite' ? 'embedded database (PGlite)' : 'PostgreSQL'}, ${fmt(ALERTS)} alerts, load average ${load()}\n`);
    process.stdout.write((await benchOne(kind, corpus)).join('\n') + '\n');
  }
}
