// The OpenSearch backend bench (`BENCH=opensearch`): runs when a node answers at OPENSEARCH_BENCH_URL
// (default http://127.0.0.1:9200), and says it skipped otherwise. Every index it makes carries a prefix
// unique to the run and is deleted at the end.
//   1. Percolation: the SigmaHQ rules under windows-thor with the log-source scope `product: windows`
//      (the rules the ingest bench deploys), compiled once, held by the embedded matcher (RuleIndex) and
//      written as percolator documents (PercolatorIndices, as the backend writes them); the same fleet
//      events matched by both. Prints events/s of each, their ratio, and for each percolate batch size
//      (documents per request) where the time goes: projecting events in this process, bytes sent and
//      received, the node's own `took` and the node process's CPU.
//   2. Ingest end to end: two services, one per backend, the same rules imported and deployed, the same
//      events posted to /api/logs/{pattern} in batches (halves interleaved). Prints events/s of each and
//      their ratio, the services' CPU and the node's.
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { Client } from '@opensearch-project/opensearch';
import { fleetEvents } from './events.js';
import { importRules, ndjsonBodies, postBodies, rulesZip } from './ingest.js';
import { BenchService } from './service.js';
import { buildPipeline, compileRule, eventShaperOf, getPreset, parseRules, RuleIndex, type PipelineSpec } from '../src/sigma/index.js';
import { EventProjection, noFieldUse, type FieldUse } from '../src/backends/opensearch/document.js';
import { percolatorDocumentOf } from '../src/backends/opensearch/percolator-document.js';
import { PercolatorIndices, type PercolatorDocument } from '../src/backends/opensearch/percolator-index.js';

const URL_ = (process.env.OPENSEARCH_BENCH_URL || 'http://127.0.0.1:9200').replace(/\/+$/, '');
/** Events percolated per measurement (each batch size goes through them once, within the time budget). */
const EVENTS = Number(process.env.BENCH_OPENSEARCH_EVENTS ?? 3000);
/** Seconds one percolation measurement may take; it stops after the batch that passes it. */
const BUDGET_S = Number(process.env.BENCH_OPENSEARCH_SECONDS ?? 20);
const BATCH_SIZES = (process.env.BENCH_OPENSEARCH_BATCHES ?? '50,100,250').split(',').map(Number);
/** A batch size to also percolate without naming the candidate queries (0: not measured). */
const UNFILTERED_BATCH = Number(process.env.BENCH_OPENSEARCH_UNFILTERED ?? 0);
/** Events posted to each service in the end-to-end part, per request, over how many connections. */
const E2E_EVENTS = Number(process.env.BENCH_OPENSEARCH_INGEST_EVENTS ?? 4000);
const E2E_BATCH = Number(process.env.BENCH_OPENSEARCH_INGEST_BATCH ?? 500);
const E2E_CONCURRENCY = Number(process.env.BENCH_OPENSEARCH_INGEST_CONCURRENCY ?? 4);
/** The rule folders (under the corpus's sigma-rules/) of each part. */
const PERCOLATE_RULES = process.env.BENCH_OPENSEARCH_RULES ?? 'rules';
const INGEST_RULES = process.env.BENCH_OPENSEARCH_INGEST_RULES ?? 'rules';
const PRESET = 'windows-thor';
const SCOPE = [{ product: 'windows' }];
const SPEC: PipelineSpec = { defaultMapping: 'identity', fieldMappings: [], preset: PRESET, logsourceScope: SCOPE };
const INDEX = 'svc-percolator-bench';

const fmt = (x: number): string => Math.round(x).toLocaleString('en-US');
/** A rate: whole numbers from 100 up, two significant digits below. */
const fmtRate = (x: number): string => (x >= 100 ? fmt(x) : x.toPrecision(2));
const load = (): string => loadavg().map((x) => x.toFixed(2)).join(' ');
const cpuMs = (): number => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

function ruleFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((n) => {
      const p = join(dir, n);
      return statSync(p).isDirectory() ? ruleFiles(p) : /\.ya?ml$/.test(n) ? [p] : [];
    });
}

/** Why no node can be benched at URL_, or undefined when one answers healthy. */
async function nodeMissing(): Promise<string | undefined> {
  try {
    const res = await fetch(`${URL_}/_cluster/health`, { signal: AbortSignal.timeout(3000) });
    const body = (await res.json()) as { status?: string };
    if (!res.ok || (body.status !== 'green' && body.status !== 'yellow')) return `the node at ${URL_} is not healthy (HTTP ${res.status}, status ${body.status})`;
    return undefined;
  } catch (error) {
    return `no OpenSearch at ${URL_} (${(error as Error).message}); start one with scripts/opensearch-up.sh or set OPENSEARCH_BENCH_URL`;
  }
}

/** CPU time of the OpenSearch node's process so far, in ms (the node answering at URL_). */
async function nodeCpuMs(): Promise<number> {
  const res = await fetch(`${URL_}/_nodes/_local/stats/process?filter_path=nodes.*.process.cpu.total_in_millis`);
  const body = (await res.json()) as { nodes: Record<string, { process: { cpu: { total_in_millis: number } } }> };
  return Object.values(body.nodes).reduce((s, n) => s + n.process.cpu.total_in_millis, 0);
}

async function nodeHeap(): Promise<string> {
  const res = await fetch(`${URL_}/_nodes/_local/stats/jvm?filter_path=nodes.*.jvm.mem.heap_used_in_bytes,nodes.*.jvm.mem.heap_max_in_bytes`);
  const body = (await res.json()) as { nodes: Record<string, { jvm: { mem: { heap_used_in_bytes: number; heap_max_in_bytes: number } } }> };
  const mem = Object.values(body.nodes)[0]?.jvm.mem;
  return mem ? `${fmt(mem.heap_used_in_bytes / 2 ** 20)} of ${fmt(mem.heap_max_in_bytes / 2 ** 20)} MiB heap` : 'heap unknown';
}

async function deleteIndices(prefix: string): Promise<void> {
  const res = await fetch(`${URL_}/${encodeURIComponent(prefix)}*?expand_wildcards=all`, { method: 'DELETE' });
  if (!res.ok) process.stdout.write(`  (deleting ${prefix}* failed: HTTP ${res.status} ${await res.text()})\n`);
}

/** What the client sent and received per request, and the node's own `took`, summed. */
interface Traffic {
  requests: number;
  sent: number;
  received: number;
  tookMs: number;
}

function trafficMeter(client: Client): { traffic: Traffic; reset: () => void } {
  const traffic: Traffic = { requests: 0, sent: 0, received: 0, tookMs: 0 };
  client.on('response', (_error, result) => {
    if (!result || !String(result.meta?.request?.params?.path ?? '').endsWith('/_search')) return;
    const body = result.meta.request.params.body;
    traffic.requests++;
    traffic.sent += typeof body === 'string' || Buffer.isBuffer(body) ? Buffer.byteLength(body) : 0;
    traffic.received += Number(result.headers?.['content-length'] ?? 0);
    traffic.tookMs += Number((result.body as { took?: number } | undefined)?.took ?? 0);
  });
  return { traffic, reset: () => Object.assign(traffic, { requests: 0, sent: 0, received: 0, tookMs: 0 }) };
}

interface Rules {
  docs: PercolatorDocument[];
  index: RuleIndex<string>;
  use: FieldUse;
  /** Rules the DSL cannot express (left out of both sides). */
  inexpressible: number;
  outOfScope: number;
  vacuous: number;
}

/** The rules of the folder under the bench pipeline, compiled once for both sides. */
function loadRules(rulesDir: string): Rules {
  const pipeline = buildPipeline(SPEC);
  const out: Rules = { docs: [], index: new RuleIndex<string>(), use: noFieldUse(), inexpressible: 0, outOfScope: 0, vacuous: 0 };
  for (const file of ruleFiles(rulesDir)) {
    for (const parsed of parseRules(readFileSync(file, 'utf8'))) {
      if (!parsed.ok || parsed.rule.kind !== 'detection') continue;
      const compiled = compileRule(parsed.rule, pipeline);
      if (!compiled.ok) {
        if (compiled.errors.some((e) => e.field === 'logsource')) out.outOfScope++;
        continue;
      }
      // A rule that matches an event holding none of its fields fires on every event (no one deploys it;
      // the ingest bench leaves these out too).
      if (compiled.matcher.match({})) {
        out.vacuous++;
        continue;
      }
      const id = `r${String(out.docs.length).padStart(5, '0')}`;
      const built = percolatorDocumentOf({ id, ruleId: id, ruleVersion: 1, yaml: '', pipeline: SPEC, compiled: compiled.matcher }, out.use);
      if (!built.ok) {
        out.inexpressible++;
        continue;
      }
      out.docs.push(built.doc);
      out.index.add(id, compiled.matcher);
    }
  }
  return out;
}

interface Measured {
  events: number;
  wallMs: number;
  /** CPU of this process (projection, serialisation, parsing answers, HTTP). */
  clientCpuMs: number;
  /** Of which projecting the events onto the rule fields, and asking the candidate index. */
  projectMs: number;
  candidatesMs: number;
  /** Candidate stored queries sent, summed over requests; requests left out for want of a candidate. */
  candidates: number;
  skipped: number;
  nodeCpuMs: number;
  traffic: Traffic;
  matches: string[][];
}

/**
 * Percolates `events` (in order) `batch` documents per request with `inFlight` requests at a time, until
 * all are done or the budget is spent. With `candidates`, as the backend does: each request names the
 * stored queries the candidate index says may match an event of the batch, and a batch with none is
 * not sent; without, the node evaluates every stored query.
 */
async function measurePercolation(
  indices: PercolatorIndices,
  meter: ReturnType<typeof trafficMeter>,
  projection: EventProjection,
  candidates: RuleIndex<string> | undefined,
  events: object[],
  batch: number,
  inFlight: number,
  /** Send only the events that have a candidate of their own (the others cannot match any rule). */
  onlyCandidateEvents = false,
): Promise<Measured> {
  const matches: string[][] = [];
  meter.reset();
  let projectMs = 0;
  let candidatesMs = 0;
  let candidateCount = 0;
  let skipped = 0;
  let next = 0;
  let done = 0;
  const deadline = performance.now() + BUDGET_S * 1000;
  const node0 = await nodeCpuMs();
  const cpu0 = cpuMs();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < events.length && performance.now() < deadline) {
        const start = next;
        next += batch;
        let slice = events.slice(start, start + batch);
        let slots = slice.map((_, i) => start + i);
        let ids: string[] | undefined;
        if (candidates) {
          const c0 = performance.now();
          const set = new Set<string>();
          const keep: number[] = [];
          slice.forEach((e, i) => {
            const own = candidates.candidates(e);
            if (own.length > 0) keep.push(i);
            for (const id of own) set.add(id);
          });
          for (const slot of slots) matches[slot] = [];
          if (onlyCandidateEvents) {
            slice = keep.map((i) => slice[i]);
            slots = keep.map((i) => slots[i]);
          }
          ids = [...set];
          candidatesMs += performance.now() - c0;
          candidateCount += ids.length;
          if (ids.length === 0) {
            done += Math.min(batch, events.length - start);
            skipped++;
            continue;
          }
        }
        const p0 = performance.now();
        const docs = slice.map((e) => projection.project(e));
        projectMs += performance.now() - p0;
        const answer = await indices.percolate(INDEX, docs, ids);
        answer.forEach((found, i) => (matches[slots[i]] = found));
        done += Math.min(batch, events.length - start);
      }
    }),
  );
  const wallMs = performance.now() - t0;
  const clientCpuMs = cpuMs() - cpu0;
  const nodeMs = (await nodeCpuMs()) - node0;
  return { events: done, wallMs, clientCpuMs, projectMs, candidatesMs, candidates: candidateCount, skipped, nodeCpuMs: nodeMs, traffic: { ...meter.traffic }, matches };
}

async function percolationBench(corpus: string, client: Client, prefix: string): Promise<void> {
  const rulesDir = join(corpus, 'sigma-rules', PERCOLATE_RULES);
  const rules = loadRules(rulesDir);
  process.stdout.write(
    `\nopensearch percolation — node ${URL_}, ${rules.docs.length} rules (SigmaHQ ${PERCOLATE_RULES}/, preset ${PRESET}, scope product: windows; ` +
      `${rules.outOfScope} outside the scope, ${rules.vacuous} matching any event and ${rules.inexpressible} the DSL cannot express left out), load average ${load()}\n`,
  );
  const indices = new PercolatorIndices(client, prefix);
  const meter = trafficMeter(client);
  const t0 = performance.now();
  await indices.ensureFields(INDEX, rules.use);
  const refused = await indices.put(INDEX, rules.docs);
  await indices.refresh([INDEX]);
  for (const r of refused) rules.index.remove(r.id);
  process.stdout.write(
    `  deploy: ${fmt(rules.docs.length)} percolator documents (${rules.use.fields.size} rule fields, ${rules.use.folded.size} of them with a folded twin) in ${((performance.now() - t0) / 1000).toFixed(1)} s; ` +
      `${refused.length} refused by the node; node ${await nodeHeap()}\n`,
  );

  // The events as detection sees them: shaped by the pattern's preset, then matched by the backend.
  const preset = getPreset(PRESET)!;
  const shape = eventShaperOf(preset);
  const shaped = (e: Record<string, unknown>) => (shape ? shape(e) : e);
  const alerts = (e: Record<string, unknown>) => rules.index.match(shaped(e)).length > 0;
  const events = fleetEvents(corpus, EVENTS, { seed: 21, alerts }).map((l) => shaped(JSON.parse(l) as Record<string, unknown>) as object);
  const projection = new EventProjection(rules.use);

  // Embedded: RuleIndex.match over the parsed, shaped events (what EmbeddedBackend.percolate does).
  let sink = 0;
  const embeddedPass = () => {
    for (const e of events) sink += rules.index.match(e).length;
  };
  embeddedPass();
  let embeddedMs = Infinity;
  let embeddedCpuMs = Infinity;
  for (let r = 0; r < 3; r++) {
    const c0 = cpuMs();
    const w0 = performance.now();
    embeddedPass();
    embeddedMs = Math.min(embeddedMs, performance.now() - w0);
    embeddedCpuMs = Math.min(embeddedCpuMs, cpuMs() - c0);
  }
  const embeddedRate = (events.length / embeddedMs) * 1000;
  const expected = events.map((e) => rules.index.match(e).sort());
  const matching = expected.filter((m) => m.length > 0).length;
  const withCandidates = events.filter((e) => rules.index.candidates(e).length > 0).length;

  // Projection alone, and the size of a projected event against the event.
  const p0 = cpuMs();
  const projected = events.map((e) => projection.project(e));
  const projectionUs = ((cpuMs() - p0) / events.length) * 1000;
  const eventBytes = events.reduce((s: number, e) => s + JSON.stringify(e).length, 0) / events.length;
  const docBytes = projected.reduce((s: number, d) => s + JSON.stringify(d).length, 0) / projected.length;
  process.stdout.write(
    `  events: ${fmt(events.length)} fleet events (${matching} match a rule, ${withCandidates} have a candidate rule), ${fmt(eventBytes)} bytes of JSON each; projected onto the rule fields ${fmt(docBytes)} bytes` +
      `${rules.use.keywords ? ' (keyword rules: every value copied into %keywords too)' : ''}; projection ${projectionUs.toFixed(1)} µs per event\n`,
  );
  process.stdout.write(`  embedded (RuleIndex.match)  ${fmt(embeddedRate).padStart(9)} events/s wall (${fmt((events.length / embeddedCpuMs) * 1000)} per CPU second)\n`);

  // Warm the node (caches, JIT) and this process with a pass of the smallest batch size over the first events.
  await measurePercolation(indices, meter, projection, rules.index, events.slice(0, Math.max(...BATCH_SIZES)), Math.min(...BATCH_SIZES), 1);

  const runs: Array<{ batch: number; inFlight: number; m: Measured }> = [];
  const report = (batch: number, inFlight: number, m: Measured, how: 'batch' | 'event' | 'all' = 'batch') => {
    const rate = (m.events / m.wallMs) * 1000;
    const per = (x: number) => (x / m.events) * 1000; // µs per event from ms
    const differing = m.matches.reduce((n, ids, i) => (ids && ids.slice().sort().join() !== expected[i].join() ? n + 1 : n), 0);
    process.stdout.write(
      `  opensearch ${String(batch).padStart(3)} events/request${inFlight > 1 ? ` × ${inFlight} in flight` : '              '}` +
        `${fmtRate(rate).padStart(7)} events/s wall = 1/${fmt(embeddedRate / rate)} of embedded; per event: ` +
        `node took ${per(m.traffic.tookMs).toFixed(0)} µs, node CPU ${per(m.nodeCpuMs).toFixed(0)} µs, this process CPU ${per(m.clientCpuMs).toFixed(0)} µs ` +
        `(projection ${per(m.projectMs).toFixed(0)}, candidate index ${per(m.candidatesMs).toFixed(0)}), sent ${fmt(m.traffic.sent / m.events)} B, received ${fmt(m.traffic.received / m.events)} B; ` +
        `${fmt(m.events)} events in ${m.traffic.requests} requests` +
        (how === 'all'
          ? ' (every stored query evaluated)'
          : ` naming ${fmt(m.candidates / Math.max(1, m.traffic.requests))} candidate queries each (${m.skipped} batches had none and were not sent)` +
            (how === 'event' ? '; only the events with a candidate of their own sent' : '')) +
        `, ${(m.wallMs / 1000).toFixed(1)} s; ${differing} events matched differently\n`,
    );
  };
  for (const batch of BATCH_SIZES) {
    const m = await measurePercolation(indices, meter, projection, rules.index, events, batch, 1);
    runs.push({ batch, inFlight: 1, m });
    report(batch, 1, m);
  }
  const rateOf = (m: Measured) => m.events / m.wallMs;
  const best = runs.reduce((a, b) => (rateOf(b.m) > rateOf(a.m) ? b : a));
  // The service percolates one request's events at a time, but concurrent ingest requests overlap.
  for (const inFlight of [2]) {
    const m = await measurePercolation(indices, meter, projection, rules.index, events, best.batch, inFlight);
    runs.push({ batch: best.batch, inFlight, m });
    report(best.batch, inFlight, m);
  }
  const top = runs.reduce((a, b) => (rateOf(b.m) > rateOf(a.m) ? b : a));
  process.stdout.write(
    `  best batch size one request at a time: ${best.batch} documents (${fmtRate(rateOf(best.m) * 1000)} events/s); best overall ${top.batch} × ${top.inFlight} in flight ` +
      `(${fmtRate(rateOf(top.m) * 1000)} events/s); opensearch ÷ embedded = 1/${fmt(embeddedRate / (rateOf(top.m) * 1000))}; node ${await nodeHeap()}\n`,
  );
  // Without the candidate filter (the node evaluating every stored query): minutes per request on a
  // small node, so only when asked for, with one batch size.
  if (UNFILTERED_BATCH > 0) {
    const m = await measurePercolation(indices, meter, projection, undefined, events, UNFILTERED_BATCH, 1);
    report(UNFILTERED_BATCH, 1, m, 'all');
  }
  // What the backend could send instead: an event none of whose rules is a candidate cannot match, so
  // only the events with a candidate of their own need to reach the node.
  const m = await measurePercolation(indices, meter, projection, rules.index, events, best.batch, 1, true);
  report(best.batch, 1, m, 'event');
  if (sink < 0) process.stdout.write('');
}

interface Pass {
  events: number;
  wallMs: number;
  cpuMs: number;
  alerts: number;
  nodeCpuMs: number;
}

/** Posts the bodies over E2E_CONCURRENCY connections; answers wall, service CPU and node CPU time. */
async function post(service: BenchService, pattern: string, token: string, bodies: Buffer[]): Promise<Pass> {
  const cpu0 = service.cpuMs();
  const node0 = await nodeCpuMs();
  const t0 = performance.now();
  const { events, alerts } = await postBodies(service, pattern, token, bodies, E2E_CONCURRENCY);
  const wallMs = performance.now() - t0;
  return { events, wallMs, cpuMs: service.cpuMs() - cpu0, alerts, nodeCpuMs: (await nodeCpuMs()) - node0 };
}

const add = (a: Pass, b: Pass): Pass => ({
  events: a.events + b.events,
  wallMs: a.wallMs + b.wallMs,
  cpuMs: a.cpuMs + b.cpuMs,
  alerts: a.alerts + b.alerts,
  nodeCpuMs: a.nodeCpuMs + b.nodeCpuMs,
});


async function ingestBench(corpus: string, prefix: string): Promise<void> {
  const rulesDir = join(corpus, 'sigma-rules', INGEST_RULES);
  const { zip, alerts } = rulesZip(rulesDir, PRESET);
  const lines = fleetEvents(corpus, E2E_EVENTS, { seed: 11, alerts });
  const warm = fleetEvents(corpus, Math.min(E2E_EVENTS, E2E_BATCH), { seed: 12, alerts });
  process.stdout.write(
    `\nopensearch ingest over HTTP — SigmaHQ ${INGEST_RULES}/, embedded database (PGlite) in both; ${fmt(E2E_EVENTS)} events per backend in ${E2E_BATCH}-event batches over ${E2E_CONCURRENCY} connections, load average ${load()}\n`,
  );
  const services: Array<{ name: string; service: BenchService; pattern?: { id: string; token: string }; pass: Pass; failed?: string }> = [];
  // A backend whose ingest fails (the cluster too slow for the backend's request timeout answers 503) is
  // reported with the failure and left out of the rest.
  const attempt = async (s: (typeof services)[number], work: () => Promise<void>) => {
    if (s.failed) return;
    try {
      await work();
    } catch (error) {
      s.failed = (error as Error).message.slice(0, 300);
      process.stdout.write(`  ${s.name} ingest FAILED: ${s.failed}\n`);
    }
  };
  try {
    services.push({ name: 'embedded  ', service: await BenchService.start('pglite', { SEARCH_BACKEND: 'embedded' }), pass: zero() });
    services.push({
      name: 'opensearch',
      service: await BenchService.start('pglite', { SEARCH_BACKEND: 'opensearch', OPENSEARCH_URL: URL_, OPENSEARCH_INDEX_PREFIX: prefix }),
      pass: zero(),
    });
    for (const s of services) {
      s.pattern = await s.service.createPattern('bench-rules', { preset: PRESET, logsource_scope: SCOPE });
      const imported = await importRules(s.service, 'bench-rules', zip);
      process.stdout.write(
        `  ${s.name} rules: ${imported.created} imported, ${imported.deployed} deployed, ${imported.failed} refused, in ${(imported.ms / 1000).toFixed(1)} s\n`,
      );
      const token = s.pattern.token;
      await attempt(s, async () => void (await post(s.service, 'bench-rules', token, ndjsonBodies(warm, E2E_BATCH))));
    }
    const bodies = ndjsonBodies(lines, E2E_BATCH);
    const half = Math.ceil(bodies.length / 2);
    for (const part of [bodies.slice(0, half), bodies.slice(half)]) {
      for (const s of services) await attempt(s, async () => void (s.pass = add(s.pass, await post(s.service, 'bench-rules', s.pattern!.token, part))));
    }
    const rate = (p: Pass) => (p.events / p.wallMs) * 1000;
    for (const s of services) {
      if (s.failed) continue;
      const p = s.pass;
      process.stdout.write(
        `  ${s.name} ${fmtRate(rate(p)).padStart(7)} events/s wall, ${fmtRate((p.events / p.cpuMs) * 1000).padStart(7)} per service CPU second; ` +
          `service CPU ${((p.cpuMs / p.events) * 1000).toFixed(0)} µs, node CPU ${((p.nodeCpuMs / p.events) * 1000).toFixed(0)} µs per event; ${fmt(p.alerts)} alerts\n`,
      );
    }
    const [embedded, open] = services.map((s) => s.pass);
    if (services.some((s) => s.failed)) return;
    // CPU per event of everything that ingests: the service, and for OpenSearch the node too.
    const cpuPerEvent = (p: Pass) => (p.cpuMs + p.nodeCpuMs) / p.events;
    const byCpu = cpuPerEvent(embedded) / cpuPerEvent(open);
    process.stdout.write(
      `  ${byCpu >= 0.5 ? 'OK  ' : 'MISS'} opensearch ÷ embedded = ${(rate(open) / rate(embedded)).toFixed(2)} by wall time, ${byCpu.toFixed(2)} by CPU per event with the node's counted ` +
        `(target ≥ 0.5); load average after: ${load()}` +
        `${open.alerts !== embedded.alerts ? `; the alert counts DIFFER (${open.alerts} against ${embedded.alerts})` : ''}\n`,
    );
  } finally {
    for (const s of services) await s.service.drop();
  }
}

const zero = (): Pass => ({ events: 0, wallMs: 0, cpuMs: 0, alerts: 0, nodeCpuMs: 0 });

export async function openSearchBench(corpus: string): Promise<void> {
  const missing = await nodeMissing();
  if (missing) {
    process.stdout.write(`\nopensearch: skipped: ${missing}\n`);
    return;
  }
  const prefix = `vigil-bench-${randomBytes(5).toString('hex')}-`;
  const client = new Client({ node: URL_, requestTimeout: 600_000 });
  try {
    const parts = (process.env.BENCH_OPENSEARCH_PARTS ?? 'percolate,ingest').split(',');
    if (parts.includes('percolate')) await percolationBench(corpus, client, prefix);
    if (parts.includes('ingest')) await ingestBench(corpus, prefix);
  } finally {
    await deleteIndices(prefix);
    await client.close();
  }
}
