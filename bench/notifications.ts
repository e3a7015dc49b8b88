// Notifications (`BENCH=notifications`), on the embedded database and on PostgreSQL, with local receivers
// in this process (bench/receivers.ts: a webhook receiver and a minimal SMTP server):
// (a) ingest with the SigmaHQ rules (as bench/ingest.ts) with two channels enabled — a webhook and mail,
//     no throttle, every alert sent to both — against the same ingest with them disabled: rounds of two
//     passes, each pass new events of the same kind (a pass of events already stored would raise no
//     alert), channels on in one and off in the other, the order alternating (the deliveries of a pass
//     drained before the next); prints the ratio of each round, their median and the ratio of the
//     totals by ingest wall time, and by service CPU including the sending (target ≥ 0.95×, on the
//     median: one round slowed by other work on the machine moves the totals, not the median);
// (b) 10,000 alerts, each to a webhook: the time from the first ingest request until the receiver has
//     them all (target < 30 s);
// (c) the same 10,000 with the channel's throttle on (10 per rule per 60 s window): how many messages the
//     receiver got (the 10, then digests). BENCH_NOTIFY_INGEST=false runs (b) and (c) only.
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fleetEvents } from './events.js';
import { importRules, ndjsonBodies, post, rulesZip, type Pass } from './ingest.js';
import { smtpSink, webhookSink, type WebhookSink } from './receivers.js';
import { BenchService, benchDatabases, type BenchDatabase } from './service.js';

const EVENTS = Number(process.env.BENCH_NOTIFY_EVENTS ?? 80_000);
const BATCH = Number(process.env.BENCH_NOTIFY_BATCH ?? 1000);
const ROUNDS = Number(process.env.BENCH_NOTIFY_ROUNDS ?? 10);
const ALERTS = 10_000;
/** The throttled channel's window: the digest goes out once its oldest held alert is this old. */
const THROTTLE_WINDOW_S = 60;
const SCOPE = [{ product: 'windows' }];
/** The wait for deliveries to drain, far above any target: past it the bench reports what arrived. */
const DRAIN_BOUND_MS = 300_000;

const fmt = (x: number): string => Math.round(x).toLocaleString('en-US');
const load = (): string => loadavg().map((x) => x.toFixed(2)).join(' ');

/** Waits until no delivery is pending (or `bound` ms pass); answers the ms waited. */
async function drained(service: BenchService, bound = DRAIN_BOUND_MS): Promise<number> {
  const t0 = performance.now();
  while (performance.now() - t0 < bound) {
    const channels = (await service.ok('GET', '/api/notification_channels?page_size=100')).items as { id: string }[];
    let left = 0;
    for (const channel of channels) left += (await service.ok('GET', `/api/notification_channels/${channel.id}/deliveries?status=pending&page_size=1`)).total;
    if (left === 0) return performance.now() - t0;
    await new Promise((r) => setTimeout(r, 100));
  }
  return performance.now() - t0;
}

async function until(check: () => boolean, bound = DRAIN_BOUND_MS): Promise<number> {
  const t0 = performance.now();
  while (!check() && performance.now() - t0 < bound) await new Promise((r) => setTimeout(r, 20));
  return performance.now() - t0;
}

async function channelsOn(service: BenchService, ids: string[], enabled: boolean): Promise<void> {
  for (const id of ids) await service.ok('PATCH', `/api/notification_channels/${id}`, { enabled });
}

/** (a): ingest with the two channels enabled against disabled. */
async function withChannels(service: BenchService, zip: Uint8Array, lines: string[], warm: string[], hook: WebhookSink, mailPort: number, mails: () => number): Promise<string[]> {
  const pattern = await service.createPattern('bench-rules', { preset: 'windows-thor', logsource_scope: SCOPE });
  const imported = await importRules(service, 'bench-rules', zip);
  const ids = [
    (await service.ok('POST', '/api/notification_channels', { name: 'bench webhook', type: 'webhook', config: { url: `http://127.0.0.1:${hook.port}/hook` }, max_per_rule: 10_000, min_severity: 'informational' })).id,
    (
      await service.ok('POST', '/api/notification_channels', {
        name: 'bench mail',
        type: 'email',
        config: { host: '127.0.0.1', port: mailPort, security: 'none', from: 'vigil@bench.example', to: ['soc@bench.example'] },
        max_per_rule: 10_000,
        min_severity: 'informational',
      })
    ).id,
  ] as string[];
  await post(service, 'bench-rules', pattern.token, ndjsonBodies(warm, BATCH));
  await drained(service);
  const per = Math.ceil(lines.length / (2 * ROUNDS));
  const on: Pass = { events: 0, wallMs: 0, cpuMs: 0, alerts: 0 };
  const off: Pass = { ...on };
  let sendCpuMs = 0;
  const sentBefore = { hook: hook.count(), mail: mails() };
  const rounds: number[] = [];
  const wall = (p: Pass) => (p.events / p.wallMs) * 1000;
  for (let round = 0; round < ROUNDS; round++) {
    const passes = new Map<boolean, Pass>();
    for (const [k, enabled] of (round % 2 === 0 ? [true, false] : [false, true]).entries()) {
      const part = ndjsonBodies(lines.slice((2 * round + k) * per, (2 * round + k + 1) * per), BATCH);
      await channelsOn(service, ids, enabled);
      const pass = await post(service, 'bench-rules', pattern.token, part);
      passes.set(enabled, pass);
      const into = enabled ? on : off;
      into.events += pass.events;
      into.wallMs += pass.wallMs;
      into.cpuMs += pass.cpuMs;
      into.alerts += pass.alerts;
      // What is still to send is sent before the next pass, its CPU counted with the channels'.
      const cpu0 = service.cpuMs();
      await drained(service);
      if (enabled) sendCpuMs += service.cpuMs() - cpu0;
    }
    rounds.push(wall(passes.get(true)!) / wall(passes.get(false)!));
  }
  const sorted = [...rounds].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  const ratio = wall(on) / wall(off);
  // A round's first pass runs slower than its second (the order alternates): the geometric mean of the rounds cancels that.
  const geometric = Math.exp(rounds.reduce((sum, r) => sum + Math.log(r), 0) / rounds.length);
  const cpuRatio = off.cpuMs / (on.cpuMs + sendCpuMs);
  const check = (ok: boolean) => (ok ? 'OK  ' : 'MISS');
  return [
    `  rules: ${imported.deployed} deployed; two channels (webhook, mail), no throttle, every alert sent to both`,
    `  channels off ${fmt(wall(off)).padStart(8)} events/s wall; ${fmt(off.alerts)} alerts`,
    `  channels on  ${fmt(wall(on)).padStart(8)} events/s wall; ${fmt(on.alerts)} alerts, ${fmt(hook.count() - sentBefore.hook)} webhook requests and ${fmt(mails() - sentBefore.mail)} mails sent`,
    `  rounds (on ÷ off, ${fmt(per)} new events per pass): ${rounds.map((r) => r.toFixed(2)).join(' ')}`,
    `  ${check(median >= 0.95)} with channels ÷ without = ${median.toFixed(3)} by ingest wall time, median of ${ROUNDS} rounds (geometric mean ${geometric.toFixed(3)}, totals ${ratio.toFixed(3)}); ` +
      `${cpuRatio.toFixed(2)} by service CPU with the sending and the drain polling (target ≥ 0.95)`,
  ];
}

/** (b) and (c): 10,000 alerts to a webhook, unthrottled then throttled. */
async function tenThousand(service: BenchService, hook: WebhookSink): Promise<string[]> {
  const pattern = await service.createPattern('bench-alerts');
  await service.ok('POST', '/api/rules', {
    yaml_content: [
      'title: Bench Whoami',
      'status: test',
      'logsource:',
      '  product: windows',
      '  category: process_creation',
      'detection:',
      '  selection:',
      "    Image|endswith: '\\whoami.exe'",
      '  condition: selection',
      'level: high',
    ].join('\n'),
    index_pattern: 'bench-alerts',
    deploy: true,
  });
  const events = (tag: string) =>
    Array.from({ length: ALERTS }, (_, i) => JSON.stringify({ '@timestamp': '2026-11-08T09:00:00Z', Image: 'C:\\Windows\\System32\\whoami.exe', User: `${tag}-${i}`, Computer: `ws-${i % 50}` }));
  const out: string[] = [];
  for (const throttled of [false, true]) {
    const channel = (
      await service.ok('POST', '/api/notification_channels', {
        name: throttled ? 'bench throttled' : 'bench 10k',
        type: 'webhook',
        config: { url: `http://127.0.0.1:${hook.port}/${throttled ? 'throttled' : 'all'}` },
        index_patterns: ['bench-alerts'],
        ...(throttled ? { max_per_rule: 10, window_seconds: THROTTLE_WINDOW_S } : { max_per_rule: 10_000 }),
      })
    ).id as string;
    hook.reset();
    const t0 = performance.now();
    const cpu0 = service.cpuMs();
    const posted = await post(service, 'bench-alerts', pattern.token, ndjsonBodies(events(throttled ? 'throttled' : 'all'), BATCH));
    if (!throttled) {
      const waited = await until(() => hook.count() >= ALERTS);
      void waited;
      const ms = performance.now() - t0;
      const ok = hook.count() >= ALERTS && ms < 30_000;
      out.push(
        `  ${ok ? 'OK  ' : 'MISS'} ${fmt(posted.alerts)} alerts ingested in ${(posted.wallMs / 1000).toFixed(1)} s and delivered to a webhook ${(ms / 1000).toFixed(1)} s after the first request ` +
          `(${fmt(hook.count())} received; ${fmt((hook.count() / ms) * 1000)} deliveries/s; ${((service.cpuMs() - cpu0) / 1000).toFixed(1)} s of service CPU) (target < 30 s)`,
      );
    } else {
      // The digest goes out once the oldest held alert is a window old; then nothing is left to send.
      await new Promise((r) => setTimeout(r, (THROTTLE_WINDOW_S + 1) * 1000));
      await drained(service);
      const held = (await service.ok('GET', `/api/notification_channels/${channel}/deliveries?status=held&page_size=1`)).total;
      const digested = (await service.ok('GET', `/api/notification_channels/${channel}/deliveries?status=digested&page_size=1`)).total;
      out.push(
        `       throttled (10 per rule per ${THROTTLE_WINDOW_S} s): ${fmt(posted.alerts)} alerts → ${fmt(hook.count())} messages (${hook.digests()} digests of ${fmt(digested)} alerts; ${fmt(held)} still held)`,
      );
    }
    await service.ok('PATCH', `/api/notification_channels/${channel}`, { enabled: false });
  }
  return out;
}

async function benchOne(kind: BenchDatabase, zip: Uint8Array, lines: string[], warm: string[]): Promise<string[]> {
  const hook = await webhookSink();
  const mail = await smtpSink();
  const service = await BenchService.start(kind, { NOTIFY_ALLOW_PRIVATE: 'true' });
  try {
    // (b) and (c) first: they need no rules imported, and their channels are disabled when done.
    const b = await tenThousand(service, hook);
    process.stdout.write(b.join('\n') + '\n');
    if (process.env.BENCH_NOTIFY_INGEST === 'false') return [`  (load average after: ${load()})`];
    return [...(await withChannels(service, zip, lines, warm, hook, mail.port, () => mail.count())), `  (load average after: ${load()})`];
  } finally {
    await service.drop();
    await hook.close();
    await mail.close();
  }
}

export async function notificationsBench(corpus: string): Promise<void> {
  const rulesDir = join(corpus, 'sigma-rules/rules');
  const { zip, alerts } = rulesZip(rulesDir);
  const lines = fleetEvents(corpus, EVENTS, { seed: 21, alerts });
  const warm = fleetEvents(corpus, Math.min(EVENTS, 2 * BATCH), { seed: 22, alerts });
  for (const kind of benchDatabases()) {
    process.stdout.write(`\nnotifications — ${kind === 'pglite' ? 'embedded database (PGlite)' : 'PostgreSQL'}, load average ${load()}\n`);
    process.stdout.write((await benchOne(kind, zip, lines, warm)).join('\n') + '\n');
  }
}
