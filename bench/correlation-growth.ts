// Correlation state growth through HTTP ingest (`BENCH=correlation-growth`): one event_count correlation
// grouped by User over GROUPS users (a window that never fires, so every group stays open), fed by
// REQUESTS requests of EVENTS events each, every user in every request, on the embedded database and on
// PostgreSQL. Prints each request's wall time (they should not grow with the state), the slowest
// /api/health answer while it ran, then the time of one matching event sent afterwards, and what the
// correlation's state takes in the database (PostgreSQL).
import { loadavg } from 'node:os';
import { BenchService, benchDatabases } from './service.js';

const GROUPS = Number(process.env.BENCH_GROWTH_GROUPS ?? 10_000);
const EVENTS = Number(process.env.BENCH_GROWTH_EVENTS ?? 50_000);
const REQUESTS = Number(process.env.BENCH_GROWTH_REQUESTS ?? 5);
const T0 = Date.parse('2026-11-20T00:00:00.000Z');

const DETECTION = `title: Growth failed logon
name: growth_failed
status: test
logsource: { product: testing, service: growth }
detection:
  selection: { EventID: 4625 }
  condition: selection
level: low
`;
const CORRELATION = `title: Growth many failures
status: test
correlation:
  type: event_count
  rules: [growth_failed]
  group-by: [User]
  timespan: 1d
  condition: { gte: 1000000 }
level: high
`;

/** Request `r`'s events as NDJSON: every user, in event-time order, one second apart per round of users. */
function body(r: number, events: number): Buffer {
  const lines: string[] = [];
  for (let i = 0; i < events; i++) {
    const n = r * events + i;
    lines.push(JSON.stringify({ '@timestamp': new Date(T0 + Math.floor(n / GROUPS) * 1000).toISOString(), EventID: 4625, User: `user-${n % GROUPS}`, seq: n }));
  }
  return Buffer.from(lines.join('\n') + '\n');
}

/** Runs `work` while polling /api/health; answers its wall time and the slowest health answer. */
async function timed(service: BenchService, work: () => Promise<unknown>): Promise<{ ms: number; healthMs: number }> {
  let done = false;
  let healthMs = 0;
  const t0 = performance.now();
  const running = work().finally(() => (done = true));
  const polling = (async () => {
    while (!done) {
      const t = performance.now();
      await fetch(`${service.url}/api/health`);
      healthMs = Math.max(healthMs, performance.now() - t);
      await new Promise((ok) => setTimeout(ok, 100));
    }
  })();
  await running;
  const ms = performance.now() - t0;
  await polling;
  return { ms, healthMs };
}

const STATE_SQL = `SELECT coalesce(sum(pg_total_relation_size(t)), 0)::bigint AS bytes FROM unnest(ARRAY['correlation_states', 'correlation_windows', 'correlation_window_inputs', 'correlation_waiting']) AS t
  WHERE to_regclass(t) IS NOT NULL`;

export async function correlationGrowthBench(): Promise<void> {
  for (const kind of benchDatabases()) {
    const service = await BenchService.start(kind);
    try {
      const { token } = await service.createPattern('growth', {});
      await service.ok('POST', '/api/rules', { yaml_content: DETECTION, index_pattern: 'growth' });
      await service.ok('POST', '/api/rules', { yaml_content: CORRELATION, index_pattern: 'growth', deploy: true });
      const post = (payload: Buffer) => service.ok('POST', '/api/logs/growth', payload, { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' });
      process.stdout.write(`\ncorrelation growth [${kind}]: event_count over ${GROUPS.toLocaleString('en-US')} groups, ${REQUESTS} requests of ${EVENTS.toLocaleString('en-US')} events\n`);
      for (let r = 0; r < REQUESTS; r++) {
        const payload = body(r, EVENTS);
        const { ms, healthMs } = await timed(service, () => post(payload));
        process.stdout.write(`  request ${r + 1}: ${(ms / 1000).toFixed(1)} s, slowest health ${Math.round(healthMs)} ms (load ${loadavg()[0].toFixed(1)})\n`);
      }
      const one = Buffer.from(JSON.stringify({ '@timestamp': new Date(T0 + 86_000_000).toISOString(), EventID: 4625, User: 'user-0', seq: -1 }) + '\n');
      const { ms } = await timed(service, () => post(one));
      process.stdout.write(`  one matching event afterwards: ${ms.toFixed(0)} ms\n`);
      if (kind === 'postgres') {
        const client = await service.sql();
        const bytes = Number((await client.query(STATE_SQL)).rows[0].bytes);
        await client.end();
        process.stdout.write(`  correlation state tables: ${(bytes / 1e6).toFixed(1)} MB\n`);
      }
    } finally {
      await service.drop();
    }
  }
}
