// The matcher bench (`BENCH=matcher`, part of `npm run bench`): the SigmaHQ corpus (`rules/`, ~3,100 rules) over realistic Sysmon-style NDJSON events
// (bench/events.ts). Prints, from one run: events/s of bare JSON.parse, of the scan matcher (RuleIndex, with
// and without parsing), of the floor of any matcher over parsed events (bench/floor.ts), and of a naive
// evaluate-every-rule matcher; the ratios against the targets;
// candidates per event (p50/p95); rule load+compile time and the extra cost of the first matching pass
// (lazily built per-field scanners, JIT); memory per 1,000 rules. No assertions: numbers.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { cpus, loadavg } from 'node:os';
import { buildCatalog, compileRule, getPreset, parseRules } from '../src/sigma/index.js';
import type { CompiledRule, RuleSource } from '../src/sigma/index.js';
import { mainThreadCpuMs } from './thread-cpu.js';
import { benchEvents } from './events.js';
import { floorPass } from './floor.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const corpus = resolve(repoRoot, '../shared/corpus');
const rulesDir = join(corpus, 'sigma-rules/rules');
if (!existsSync(rulesDir)) {
  console.error(`vigil bench: the SigmaHQ corpus is expected at ${corpus} (../shared/corpus beside the checkout)`);
  process.exit(1);
}
const EVENTS = Number(process.env.BENCH_EVENTS ?? 50_000);
const NAIVE_EVENTS = Number(process.env.BENCH_NAIVE_EVENTS ?? 500);
const preset = process.env.BENCH_PIPELINE ?? 'sigma-native';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function files(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((n) => {
      const p = join(dir, n);
      return statSync(p).isDirectory() ? files(p) : /\.ya?ml$/.test(n) ? [p] : [];
    });
}

/** Best events/s over `rounds` timed passes (after one warm-up pass), by CPU time of this process (the
 * rate per core; wall time is meaningless on a shared machine) — single-threaded code, so equal when idle.
 * `firstMs` is the CPU time of the warm-up pass (JIT, lazily built scanners). */
function timedRate(n: number, rounds: number, pass: () => void): { rate: number; firstMs: number; bestMs: number } {
  const f0 = process.cpuUsage();
  pass();
  const f = process.cpuUsage(f0);
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const c0 = process.cpuUsage();
    pass();
    const c = process.cpuUsage(c0);
    best = Math.min(best, (c.user + c.system) / 1e6);
  }
  return { rate: n / best, firstMs: (f.user + f.system) / 1000, bestMs: best * 1000 };
}

function rate(n: number, rounds: number, pass: () => void): number {
  return timedRate(n, rounds, pass).rate;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
}

const fmt = (x: number): string => Math.round(x).toLocaleString('en-US');
const pipeline = getPreset(preset);
if (!pipeline) throw new Error(`unknown preset ${preset}`);

// Rules: read the files first (I/O is not part of the load time), then parse + compile + index.
const sources: RuleSource[] = files(rulesDir).map((path) => ({ path, text: readFileSync(path, 'utf8') }));
buildCatalog(sources.slice(0, 50), pipeline); // warm the loader's code paths a little
gc();
const heapBefore = process.memoryUsage().heapUsed;
const loadStart = process.cpuUsage();
const loadMainStart = mainThreadCpuMs();
const loadWallStart = performance.now();
const catalog = buildCatalog(sources, pipeline);
// Per-field substring scanners are built lazily, on the first event holding the field: their cost shows in
// the first matching pass below ("first pass"), not here.
const loadWallMs = performance.now() - loadWallStart;
const loadMainMs = mainThreadCpuMs() - loadMainStart;
const loadCpu = process.cpuUsage(loadStart);
const loadAllMs = (loadCpu.user + loadCpu.system) / 1000;
// The load is a latency: the time the loading thread computes. V8 compiles hot code and collects garbage
// on background threads meanwhile (on other cores); their CPU time is printed beside it.
const loadMs = Number.isNaN(loadMainMs) ? loadAllMs : loadMainMs;
gc();
const heapAfter = process.memoryUsage().heapUsed;
const index = catalog.index;
const nRules = catalog.rules.length;

// The naive matcher: the same compiled rules, every one evaluated for every event.
const naiveRules: CompiledRule[] = [];
for (const { text } of sources) {
  for (const r of parseRules(text)) {
    if (!r.ok) continue;
    const c = compileRule(r.rule, pipeline);
    if (c.ok) naiveRules.push(c.matcher);
  }
}

const lines = benchEvents(corpus, EVENTS);
const bytes = lines.reduce((s, l) => s + l.length + 1, 0);
const parsed = lines.map((l) => JSON.parse(l) as object);
let sink = 0;

const parseRate = rate(lines.length, 5, () => {
  for (let i = 0; i < lines.length; i++) sink += (JSON.parse(lines[i]) as object) === null ? 1 : 0;
});
const matchTimes = timedRate(parsed.length, 5, () => {
  for (let i = 0; i < parsed.length; i++) sink += index.match(parsed[i]).length;
});
const matchRate = matchTimes.rate;
const floorLast: unknown[] = [];
const floorRate = rate(parsed.length, 5, () => {
  sink += floorPass(parsed, floorLast);
});
const endToEndRate = rate(lines.length, 5, () => {
  for (let i = 0; i < lines.length; i++) sink += index.match(JSON.parse(lines[i]) as object).length;
});
const naiveSlice = parsed.slice(0, NAIVE_EVENTS);
const naiveRate = rate(naiveSlice.length, 1, () => {
  for (const e of naiveSlice) for (let r = 0; r < naiveRules.length; r++) if (naiveRules[r].match(e)) sink++;
});

// Agreement check on the naive slice and statistics.
let disagreements = 0;
let matchedEvents = 0;
let matches = 0;
for (const e of naiveSlice) {
  const want = naiveRules.filter((r) => r.match(e)).length;
  const got = index.match(e).length;
  if (want !== got) disagreements++;
}
// Rules that match an empty event (made only of `not …`, such as a Zeek rule on a field Windows events
// never have) match every event that lacks their fields; events are counted apart from them too.
const vacuous = new Set(index.match({}));
let matchedOtherwise = 0;
const counts: number[] = [];
for (const e of parsed) {
  counts.push(index.candidateCount(e));
  const m = index.match(e);
  matches += m.length;
  if (m.length) matchedEvents++;
  if (m.some((k) => !vacuous.has(k))) matchedOtherwise++;
}
counts.sort((a, b) => a - b);
const stats = index.stats();

const matchCostRatio = parseRate / matchRate; // (time per event matching) / (time per event parsing)
const floorCostRatio = parseRate / floorRate;
const speedup = matchRate / naiveRate;
const perK = (heapAfter - heapBefore) / nRules / 1024 / 1024 * 1000;
const check = (ok: boolean): string => (ok ? 'OK  ' : 'MISS');

const out = [
  `vigil bench — ${process.version}, pipeline ${preset}, ${nRules} rules (${catalog.rejected.length} rejected) from ${rulesDir}`,
  `machine: ${cpus().length} cores, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')} (rates are per core, by CPU time)`,
  `events: ${fmt(lines.length)} NDJSON lines, ${(bytes / lines.length).toFixed(0)} bytes avg; ${fmt(matchedEvents)} events match ${fmt(matches)} times; ` +
    `${fmt(matchedOtherwise)} match a rule other than the ${vacuous.size} that match an empty event`,
  `index: ${stats.fields} fields, ${fmt(stats.exactValues)} exact values, ${fmt(stats.substringPatterns)} substring patterns, ${stats.always} rules always evaluated, ${stats.never} never`,
  '',
  `JSON.parse only              ${fmt(parseRate).padStart(12)} events/s`,
  `scan matcher (RuleIndex)     ${fmt(matchRate).padStart(12)} events/s   (pre-parsed events)`,
  `scan end to end (parse+match)${fmt(endToEndRate).padStart(12)} events/s`,
  `floor: visit, read new values${fmt(floorRate).padStart(12)} events/s   (every value visited, the text of each value unlike the previous event's at its place read once; no matching)`,
  `naive (every rule)           ${fmt(naiveRate).padStart(12)} events/s   (${fmt(naiveSlice.length)} events; ${disagreements} disagreements with the index)`,
  `candidates per event         p50 ${percentile(counts, 50)}, p95 ${percentile(counts, 95)}, max ${counts[counts.length - 1]}`,
  `rule load + compile + index  ${loadMs.toFixed(0)} ms CPU of the loading thread for ${nRules} rules (${loadWallMs.toFixed(0)} ms wall; ${loadAllMs.toFixed(0)} ms CPU with V8's background compiler and GC threads)`,
  `first matching pass          ${matchTimes.firstMs.toFixed(0)} ms vs ${matchTimes.bestMs.toFixed(0)} ms steady: +${(matchTimes.firstMs - matchTimes.bestMs).toFixed(0)} ms of lazy scanner builds and JIT on first use`,
  `memory                       ${perK.toFixed(2)} MiB per 1,000 rules (heap delta after GC, before lazy scanner builds)`,
  '',
  'targets (per core):',
  `  ${check(matchCostRatio <= 0.6)} matching cost / JSON.parse cost = ${matchCostRatio.toFixed(2)} (target ≤ 0.6; the floor alone costs ${floorCostRatio.toFixed(2)})`,
  `  ${check(endToEndRate >= 80_000)} end to end = ${fmt(endToEndRate)} events/s (target ≥ 80,000)`,
  `  ${check(speedup >= 25)} index speed-up over naive = ${speedup.toFixed(1)}× (target ≥ 25×)`,
  `  ${check(loadMs < 1000)} rule load = ${loadMs.toFixed(0)} ms (target < 1,000 ms)`,
];
process.stdout.write(out.join('\n') + '\n');
if (sink < 0) process.stdout.write('');
