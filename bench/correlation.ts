// Correlation rules at ingest (`BENCH=correlation`), in two parts.
// 1. End to end, on the embedded database and on PostgreSQL: one service, two index patterns with
//    preset windows-thor and the scope `product: windows`, both with the SigmaHQ `rules/` folder imported
//    and deployed; one of them also has 50 correlation rules deployed (event_count, value_count and
//    temporal, grouped by Computer, User or Image) over SigmaHQ rules that the bench's attack events
//    match, so their windows fill and fire. The same fleet events, in event-time order as a live
//    pipeline delivers them, are posted to both patterns in alternating rounds; prints events/s by wall
//    time and per service CPU second, the ratio with correlations ÷ without (target ≥ 0.9), and what the
//    correlations did (alerts, live groups, inputs dropped as late, size of their stored states).
// 2. In this process, the engine alone: the state of an event_count and of a value_count correlation
//    holding 10,000 live groups, as JSON and on the heap, with the time to serialize and restore it whole
//    (what an ingest transaction wrote before the service kept the state in parts, migration 20).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { fleetEvents, regressionEvents } from './events.js';
import { add, importRules, ndjsonBodies, post, rulesZip, type Pass } from './ingest.js';
import pg from 'pg';
import { BenchService, benchDatabases, postgresServerUrl, type BenchDatabase } from './service.js';
import { openPglite } from '../src/db/pglite.js';
import { compileCorrelations, feed, newState, parseRule, restore, serialize, settle, type CorrelationSet, type EngineState, type RuleCatalog, type StateHead } from '../src/sigma/index.js';

const EVENTS = Number(process.env.BENCH_CORRELATION_EVENTS ?? 60_000);
const BATCH = Number(process.env.BENCH_INGEST_BATCH ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_INGEST_CONCURRENCY ?? 4);
/** Rounds the events are posted in, each to both patterns (the order alternating), so load changes
 * during the run weigh on both alike; the median of the rounds' ratios is printed beside the overall one. */
const ROUNDS = Number(process.env.BENCH_CORRELATION_ROUNDS ?? 8);
const CORRELATIONS = 50;
const GROUPS = 10_000;
/** The event time the stream covers: 60,000 events in an hour of a fleet. */
export const SPAN_MS = 3600_000;
/** The service's allowed lateness: batches posted over several connections arrive a few minutes out of order. */
export const LATENESS_S = 600;
const SCOPE = [{ product: 'windows' }];

const fmt = (x: number): string => Math.round(x).toLocaleString('en-US');
const load = (): string => loadavg().map((x) => x.toFixed(2)).join(' ');

// ---- the 50 correlations ----

interface MatchedRule {
  id: string;
  title: string;
  /** Regression events it matches, and the hosts (Computer) of those events. */
  events: number;
  hosts: Set<string>;
}

/** The deployed rules the unmodified attack events match (those are the events that feed correlations). */
export function matchedRules(corpus: string, catalog: RuleCatalog, shape: (e: Record<string, unknown>) => object): MatchedRule[] {
  const byRule = new Map<number, MatchedRule>();
  for (const event of regressionEvents(corpus)) {
    for (const i of catalog.index.match(shape(event))) {
      const rule = catalog.rules[i];
      if (!rule.id) continue;
      const m = byRule.get(i) ?? { id: rule.id, title: rule.title, events: 0, hosts: new Set<string>() };
      m.events++;
      m.hosts.add(String(event.Computer ?? ''));
      byRule.set(i, m);
    }
  }
  return [...byRule.values()].sort((a, b) => b.events - a.events || a.id.localeCompare(b.id));
}

export interface Spec {
  type: 'event_count' | 'value_count' | 'temporal';
  rules: string[];
  groupBy: string[];
  timespan: string;
  condition: Record<string, string | number>;
}

/**
 * 20 event_count, 15 value_count and 15 temporal correlations. Counting ones reference four matched
 * rules each (taken in turn from the list), grouped by host, user, image or host and user; temporal
 * ones pair rules whose events come from one host, grouped by host.
 */
export function correlationSpecs(rules: MatchedRule[]): Spec[] {
  const specs: Spec[] = [];
  const take = (k: number, n: number) => Array.from({ length: n }, (_, j) => rules[(k * n + j) % rules.length].id);
  const groupings = [['Computer'], ['User'], ['Image'], ['Computer', 'User']];
  const spans = ['10m', '30m', '1h'];
  for (let k = 0; k < 20; k++) {
    specs.push({ type: 'event_count', rules: take(k, 4), groupBy: groupings[k % 4], timespan: spans[k % 3], condition: { gte: 2 + (k % 3) } });
  }
  const counted: Array<[string[], string]> = [
    [['Computer'], 'Image'],
    [['Computer'], 'User'],
    [['User'], 'Image'],
    [['Computer'], 'CommandLine'],
    [['Image'], 'Computer'],
  ];
  for (let k = 0; k < 15; k++) {
    const [groupBy, field] = counted[k % counted.length];
    specs.push({ type: 'value_count', rules: take(20 + k, 4), groupBy, timespan: spans[(k + 1) % 3], condition: { field, gte: 2 } });
  }
  // Rules of one host, in pairs: the hosts with the most matched rules first.
  const byHost = new Map<string, string[]>();
  for (const r of rules) for (const h of r.hosts) byHost.set(h, [...(byHost.get(h) ?? []), r.id]);
  const pairs = [...byHost.values()]
    .sort((a, b) => b.length - a.length)
    .flatMap((ids) => Array.from({ length: Math.floor(ids.length / 2) }, (_, i) => [ids[2 * i], ids[2 * i + 1]]));
  for (let k = 0; k < 15; k++) specs.push({ type: 'temporal', rules: pairs[k % pairs.length], groupBy: ['Computer'], timespan: '1h', condition: { gte: 2 } });
  return specs;
}

function correlationYaml(k: number, spec: Spec): string {
  const list = (xs: string[]) => xs.map((x) => `    - ${x}`).join('\n');
  const condition = Object.entries(spec.condition)
    .map(([key, value]) => `      ${key}: ${value}`)
    .join('\n');
  return `title: Bench correlation ${k + 1} (${spec.type} by ${spec.groupBy.join(', ')})
id: 6f1c2b3a-0000-4000-8000-${String(k + 1).padStart(12, '0')}
name: bench_correlation_${k + 1}
status: test
correlation:
  type: ${spec.type}
  rules:
${list(spec.rules)}
  group-by:
${list(spec.groupBy)}
  timespan: ${spec.timespan}
  condition:
${condition}
  generate: true
level: high
`;
}

// ---- end to end ----

/** Creates and deploys the correlation rules of `specs` on `pattern`; answers their ids. */
export async function deployCorrelations(service: BenchService, pattern: string, specs: Spec[]): Promise<string[]> {
  const ids: string[] = [];
  for (const [k, spec] of specs.entries()) {
    const created = await service.ok('POST', '/api/rules', { yaml_content: correlationYaml(k, spec), index_pattern: pattern });
    await service.ok('POST', `/api/rules/${created.id}/deploy`);
    ids.push(created.id);
  }
  return ids;
}

/** The fleet events of one stretch of event time, in time order. */
export function streamOf(corpus: string, count: number, seed: number, endMs: number, spanMs: number, alerts: (e: Record<string, unknown>) => boolean): string[] {
  const lines = fleetEvents(corpus, count, { seed, endMs, spanMs, alerts });
  const at = (line: string) => Date.parse((JSON.parse(line) as { '@timestamp': string })['@timestamp']);
  return lines
    .map((line) => ({ line, t: at(line) }))
    .sort((a, b) => a.t - b.t)
    .map((x) => x.line);
}


export interface Outcome {
  correlationAlerts: number;
  /** Each correlation's head, and the characters of its windows and waiting matches. */
  states: { state: string; parts: string | number }[];
  /** correlation_states, correlation_windows and correlation_waiting with their TOAST tables and
   * indexes: each write leaves the old row version behind until a vacuum (the embedded database has no
   * autovacuum). */
  tableBytes: number;
}

const OUTCOME_SQL = {
  alerts: `SELECT count(*)::int AS n FROM alerts a JOIN rules r ON r.id = a.rule_id WHERE r.rule_type = 'correlation'`,
  states: `SELECT state, (SELECT coalesce(sum(length(input)), 0) FROM correlation_window_inputs w WHERE w.rule_id = s.rule_id)
    + (SELECT coalesce(sum(length(input)), 0) FROM correlation_waiting p WHERE p.rule_id = s.rule_id) AS parts FROM correlation_states s`,
  table: `SELECT (pg_total_relation_size('correlation_states') + pg_total_relation_size('correlation_windows') + pg_total_relation_size('correlation_window_inputs') + pg_total_relation_size('correlation_waiting'))::bigint AS bytes`,
};

/** What the correlations did, read from the database once the posting is over (the service stops on the embedded one). */
export async function outcomeOf(service: BenchService): Promise<Outcome> {
  if (service.kind === 'postgres') {
    const client = await service.sql();
    try {
      return {
        correlationAlerts: (await client.query(OUTCOME_SQL.alerts)).rows[0].n,
        states: (await client.query(OUTCOME_SQL.states)).rows,
        tableBytes: Number((await client.query(OUTCOME_SQL.table)).rows[0].bytes),
      };
    } finally {
      await client.end();
    }
  }
  await service.stop();
  const db = await openPglite({ dataDir: service.pgdata });
  try {
    const [{ n }] = await db.query<{ n: number }>(OUTCOME_SQL.alerts);
    const [{ bytes }] = await db.query<{ bytes: number }>(OUTCOME_SQL.table);
    return { correlationAlerts: n, states: await db.query<{ state: string; parts: string | number }>(OUTCOME_SQL.states), tableBytes: Number(bytes) };
  } finally {
    await db.close();
  }
}

function describeStates({ states, tableBytes }: Outcome): string {
  let groups = 0;
  let pending = 0;
  let late = 0;
  let refused = 0;
  let bytes = 0;
  let largest = 0;
  for (const { state, parts } of states) {
    if (state === '') continue;
    const s = JSON.parse(state) as EngineState | StateHead;
    const size = state.length + Number(parts);
    bytes += size;
    largest = Math.max(largest, size);
    pending += 'waiting' in s ? s.waiting : s.pending.length;
    late += s.droppedLate;
    for (const c of s.correlations) {
      groups += c.groupCount;
      refused += c.refusedInputs;
    }
  }
  return `${states.length} stored states: ${fmt(groups)} live groups, ${fmt(pending)} inputs waiting for the lateness bound, ${fmt(late)} dropped as late, ${fmt(refused)} refused; ${fmt(bytes)} bytes of JSON in heads, windows and waiting matches (largest state ${fmt(largest)}), the table takes ${fmt(tableBytes)} bytes`;
}

async function benchOne(kind: BenchDatabase, zip: Uint8Array, specs: Spec[], lines: string[], warm: string[]): Promise<string[]> {
  const out: string[] = [];
  const service = await BenchService.start(kind, { CORRELATION_LATENESS: String(LATENESS_S) });
  try {
    const settings = { preset: 'windows-thor', logsource_scope: SCOPE };
    const plain = { name: 'bench-sigma', ...(await service.createPattern('bench-sigma', settings)) };
    const correlated = { name: 'bench-correlated', ...(await service.createPattern('bench-correlated', settings)) };
    for (const p of [plain, correlated]) {
      const imported = await importRules(service, p.name, zip);
      out.push(`  ${p.name}: ${imported.created} rules imported, ${imported.deployed} deployed, in ${(imported.ms / 1000).toFixed(1)} s`);
    }
    const t0 = performance.now();
    const correlationIds = await deployCorrelations(service, correlated.name, specs);
    out.push(`  bench-correlated: ${correlationIds.length} correlation rules created and deployed in ${((performance.now() - t0) / 1000).toFixed(1)} s (load ${load()})`);
    // Warm-up (JIT, scanners, first pages of the tables), with event times before the measured stream.
    for (const p of [plain, correlated]) await post(service, p.name, p.token, ndjsonBodies(warm, BATCH));
    const bodies = ndjsonBodies(lines, BATCH);
    const per = Math.ceil(bodies.length / ROUNDS);
    let without: Pass = { events: 0, wallMs: 0, cpuMs: 0, alerts: 0 };
    let withCorrelations: Pass = { ...without };
    const rounds: { without: number; with: number }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const part = bodies.slice(round * per, (round + 1) * per);
      if (part.length === 0) break;
      const order = round % 2 === 0 ? [plain, correlated] : [correlated, plain];
      const rates = new Map<object, number>();
      for (const p of order) {
        const pass = await post(service, p.name, p.token, part);
        rates.set(p, (pass.events / pass.wallMs) * 1000);
        if (p === plain) without = add(without, pass);
        else withCorrelations = add(withCorrelations, pass);
      }
      rounds.push({ without: rates.get(plain)!, with: rates.get(correlated)! });
    }
    const loadAfter = load();
    const outcome = await outcomeOf(service);
    const wallRate = (p: Pass) => (p.events / p.wallMs) * 1000;
    const cpuRate = (p: Pass) => (p.events / p.cpuMs) * 1000;
    const ratio = wallRate(withCorrelations) / wallRate(without);
    const cpuRatio = cpuRate(withCorrelations) / cpuRate(without);
    const roundRatio = median(rounds.map((r) => r.with / r.without));
    out.push(
      `  SigmaHQ rules                  ${fmt(wallRate(without)).padStart(8)} events/s wall, ${fmt(cpuRate(without)).padStart(8)} events per service CPU second; ${fmt(without.alerts)} alerts`,
      `  SigmaHQ rules + ${CORRELATIONS} correlations ${fmt(wallRate(withCorrelations)).padStart(8)} events/s wall, ${fmt(cpuRate(withCorrelations)).padStart(8)} events per service CPU second; ${fmt(withCorrelations.alerts)} alerts (${fmt(outcome.correlationAlerts)} of them by correlations)`,
      `  ${ratio >= 0.9 ? 'OK  ' : 'MISS'} with correlations ÷ without = ${ratio.toFixed(2)} by wall time (median of the rounds ${roundRatio.toFixed(2)}), ${cpuRatio.toFixed(2)} by service CPU (target ≥ 0.9)`,
      `  events/s wall per round, without / with correlations: ${rounds.map((r) => `${fmt(r.without)} / ${fmt(r.with)}`).join(', ')}`,
      `  correlations: ${describeStates(outcome)}`,
      `  (${fmt(without.events)} events per pattern, ${BATCH}-event batches over ${CONCURRENCY} connections in ${ROUNDS} rounds, lateness ${LATENESS_S} s; load average after: ${loadAfter})`,
    );
  } finally {
    await service.drop();
  }
  return out;
}

// ---- the engine's state for 10,000 groups ----

function exposedGc(): (() => void) | undefined {
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  } catch {
    return undefined;
  }
}

const gc = exposedGc();

function heapUsed(): number {
  if (gc) {
    gc();
    gc();
  }
  return process.memoryUsage().heapUsed;
}

function compiled(yaml: string): CorrelationSet {
  const parsed = parseRule(yaml);
  if (!parsed.ok) throw new Error(`bench correlation does not parse: ${JSON.stringify(parsed)}`);
  const { set, rejected } = compileCorrelations([parsed.rule]);
  if (rejected.length) throw new Error(rejected[0].reason);
  return set;
}

const engineYaml = (type: string, condition: string) => `title: Bench state size
name: bench_state
status: test
correlation:
  type: ${type}
  rules:
    - bench_base
  group-by:
    - Computer
  timespan: 1d
  condition:
${condition}
`;

/** Event ids are event hashes (64 hex digits) at ingest. */
const hex64 = (i: number) => (i.toString(16).padStart(8, '0') + 'a3f1c09be4d27586').repeat(4).slice(0, 64);

/** Feeds `inputs` matches to each of GROUPS hosts (a group each), in time order, none of them firing. */
function fill(set: CorrelationSet, inputs: number): { state: EngineState; feedMs: number } {
  const state = newState(set);
  const start = Date.parse('2026-11-20T00:00:00Z');
  const t0 = performance.now();
  for (let round = 0; round < inputs; round++) {
    for (let i = 0; i < GROUPS; i++) {
      const n = round * GROUPS + i;
      feed(set, state, {
        ruleRef: 'bench_base',
        eventId: hex64(n),
        time: start + n * 100,
        fields: { Computer: `ws-${i.toString(36)}-${i % 1000}.corp.example`, User: `CORP\\user${(n * 7919) % 2000}` },
      });
    }
  }
  settle(set, state);
  return { state, feedMs: performance.now() - t0 };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Where a whole state is written: one upsert of one row, one transaction per write. */
interface StateStore {
  name: string;
  write(text: string, revision: number): Promise<void>;
  close(): Promise<void>;
}

const STATES_TABLE = `CREATE TABLE correlation_states (rule_id uuid PRIMARY KEY, fingerprint text NOT NULL, revision bigint NOT NULL DEFAULT 0,
  state text NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())`;
const UPSERT = `INSERT INTO correlation_states (rule_id, fingerprint, revision, state, updated_at) VALUES ($1, $2, $3, $4, now())
  ON CONFLICT (rule_id) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, revision = EXCLUDED.revision, state = EXCLUDED.state, updated_at = now()`;
const STATE_ROW = '6f1c2b3a-0000-4000-8000-000000000000';

async function pgliteStore(): Promise<StateStore> {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-bench-states-'));
  const db = await openPglite({ dataDir: dir });
  await db.exec(STATES_TABLE);
  return {
    name: 'PGlite',
    write: (text, revision) => db.transaction(async (tx) => void (await tx.query(UPSERT, [STATE_ROW, 'f', revision, text]))),
    async close() {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresStore(server: string): Promise<StateStore> {
  const name = `vigil_bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  await client.query(STATES_TABLE);
  return {
    name: 'PostgreSQL',
    async write(text, revision) {
      await client.query('BEGIN');
      await client.query(UPSERT, [STATE_ROW, 'f', revision, text]);
      await client.query('COMMIT');
    },
    async close() {
      await client.end();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

async function stateLines(label: string, set: CorrelationSet, inputs: number, stores: StateStore[]): Promise<string[]> {
  fill(set, inputs); // warm-up: the first pass runs before the engine's code is optimised
  const before = heapUsed();
  const { state, feedMs } = fill(set, inputs);
  const fedHeap = heapUsed() - before;
  const groups = state.correlations[0].groupCount;
  const serializeMs: number[] = [];
  const restoreMs: number[] = [];
  let text = '';
  for (let i = 0; i < 5; i++) {
    let t = performance.now();
    text = serialize(state);
    serializeMs.push(performance.now() - t);
    t = performance.now();
    restore(set, text);
    restoreMs.push(performance.now() - t);
  }
  const beforeRestore = heapUsed();
  const restored = restore(set, text);
  const restoredHeap = heapUsed() - beforeRestore;
  const writes: string[] = [];
  for (const store of stores) {
    const ms: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      await store.write(text, i);
      ms.push(performance.now() - t);
    }
    writes.push(`${median(ms).toFixed(1)} ms on ${store.name}`);
  }
  const per10k = GROUPS / groups;
  const approx = gc ? '' : '~';
  return [
    `  ${label}: ${fmt(groups)} live groups (${fmt(restored.correlations[0].groupCount)} after a restore)`,
    `    JSON ${fmt(text.length * per10k)} bytes per 10,000 groups (${fmt(text.length / groups)} per group); heap ${approx}${fmt(fedHeap * per10k)} bytes per 10,000 groups as fed ` +
      `(${fmt(fedHeap / groups)} per group), ${approx}${fmt(restoredHeap * per10k)} restored from JSON (window summaries rebuilt on demand)`,
    `    serialize ${median(serializeMs).toFixed(1)} ms, restore ${median(restoreMs).toFixed(1)} ms; one transaction writing it ${writes.join(', ')}; ` +
      `fed at ${fmt(((groups * inputs) / feedMs) * 1000)} inputs/s`,
  ];
}

async function engineBench(): Promise<void> {
  process.stdout.write(`\ncorrelation state, in this process (${gc ? 'heap measured after a full GC' : 'no GC available: heap figures are approximate'}), load average ${load()}\n`);
  const eventCount = compiled(engineYaml('event_count', '    gte: 1000'));
  const valueCount = compiled(engineYaml('value_count', '    field: User\n    gte: 1000'));
  const server = postgresServerUrl();
  const stores = [await pgliteStore(), ...(server && benchDatabases().includes('postgres') ? [await postgresStore(server)] : [])];
  try {
    const lines = [
      ...(await stateLines('event_count by Computer, 1 input per group', eventCount, 1, stores)),
      ...(await stateLines('event_count by Computer, 4 inputs per group', eventCount, 4, stores)),
      ...(await stateLines('value_count of User by Computer, 1 input per group', valueCount, 1, stores)),
    ];
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    for (const store of stores) await store.close();
  }
  process.stdout.write(`  (the service keeps the state in parts: a chunk writes the windows it touches, not this whole state; see BENCH=correlation-growth)\n`);
}

export async function correlationBench(corpus: string): Promise<void> {
  const { zip, alerts, catalog, shape } = rulesZip(join(corpus, 'sigma-rules/rules'));
  const rules = matchedRules(corpus, catalog, shape);
  const specs = correlationSpecs(rules);
  const types = specs.reduce<Record<string, number>>((acc, s) => ({ ...acc, [s.type]: (acc[s.type] ?? 0) + 1 }), {});
  process.stdout.write(
    `\ncorrelation: ${specs.length} correlations (${Object.entries(types)
      .map(([t, n]) => `${n} ${t}`)
      .join(', ')}) over ${new Set(specs.flatMap((s) => s.rules)).size} of the ${rules.length} SigmaHQ rules the attack events match\n`,
  );
  const endMs = Date.now();
  const lines = streamOf(corpus, EVENTS, 21, endMs, SPAN_MS, alerts);
  const warm = streamOf(corpus, Math.min(EVENTS, 2 * BATCH), 22, endMs - SPAN_MS, 5 * 60_000, alerts);
  for (const kind of benchDatabases()) {
    process.stdout.write(`\ncorrelation ingest over HTTP — ${kind === 'pglite' ? 'embedded database (PGlite)' : 'PostgreSQL'}, load average ${load()}\n`);
    process.stdout.write((await benchOne(kind, zip, specs, lines, warm)).join('\n') + '\n');
  }
  await engineBench();
}
