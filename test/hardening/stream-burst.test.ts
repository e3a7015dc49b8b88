// Many open alert streams and a burst of alerts: the service keeps answering (health polled on a real
// listener, its event loop never held a second) while every stream receives every alert of the burst,
// in order and once, a few of them after stopping to read for the whole burst. Readers that stop
// reading while far more than the lag bound is sent are dropped, reconnect with Last-Event-ID and get
// the rest from the change log. The readers run in a process of their own (real sockets, as browsers
// would hold them), so the event loop measured is the service's alone. Scaled for CI: STREAMS streams,
// ALERTS alerts (the finding was 1,000 streams and 3,000 alerts).
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { loadConfig } from '../../src/config.js';
import { createService, type Service } from '../../src/server.js';
import { DATABASE_KINDS, openTestDatabase, postgresUnavailable, type TestDatabase } from '../helpers/databases.js';
import { ADMIN_PASSWORD, loginAdmin } from '../helpers/service.js';
import { assertResponsive, listening, probeHealthDuring, type Probe } from './ingest-busy-probe.js';

const STREAMS = 300;
const ALERTS = 1000;
/** Readers (of the STREAMS) that stop reading during the burst: past the lag bound they are dropped. */
const SLOW = 10;

/** The reader process: opens `count` streams on `url` and follows each, reconnecting with Last-Event-ID
 * when the server ends one. It prints `ready` once every stream has started, and, told a target
 * sequence number on stdin, `done {…}` once every stream has seen every change up to it (ids counted
 * from the first line it is told: `from <seq>`). */
const READER = `
import http from 'node:http';
import { createInterface } from 'node:readline';
const [url, token, count, slow] = [process.argv[1], process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
let from = 0, target = Infinity, started = 0, drops = 0, slowDrops = 0, duplicates = 0, outOfOrder = 0, reported = false;
const readers = [];
function open(r, lastId) {
  const headers = { authorization: 'Bearer ' + token };
  if (lastId !== undefined) headers['last-event-id'] = String(lastId);
  http.get(url, { agent, headers }, (res) => {
    if (res.statusCode !== 200) { console.log('error ' + res.statusCode); process.exit(1); }
    r.res = res;
    if (r.slow && r.paused) res.pause();
    res.setEncoding('utf8');
    let tail = '';
    res.on('data', (chunk) => {
      // Each event's id line comes first (id: N, event: …, data: …): only those are read.
      const text = tail + chunk;
      let at = 0;
      let cut;
      while ((cut = text.indexOf('\\n\\n', at)) >= 0) {
        if (!r.started && text.startsWith('retry:', at)) { r.started = true; if (++started === count) console.log('ready'); }
        if (text.startsWith('id: ', at)) {
          const id = Number(text.slice(at + 4, text.indexOf('\\n', at)));
          if (id <= r.last) duplicates++;
          else {
            if (r.last >= from && id !== r.last + 1) outOfOrder++;
            r.last = id;
            if (id > from) r.seen++;
          }
        }
        at = cut + 2;
      }
      tail = text.slice(at);
      check();
    });
    // Ended by the server (after what it sent, or cut once its grace ran out): reconnect from the last id.
    res.on('error', () => {});
    res.on('close', () => { drops++; if (r.slow) slowDrops++; open(r, r.last); });
  }).on('error', (e) => { console.log('error ' + e.message); process.exit(1); });
}
function check() {
  // The slow readers stop reading when the burst starts and read again once every other reader has it all.
  const fastDone = readers.every((r) => r.slow || r.last >= target);
  if (fastDone) for (const r of readers) if (r.paused) { r.paused = false; r.res.resume(); }
  if (reported || !readers.every((r) => r.last >= target)) return;
  reported = true;
  console.log('done ' + JSON.stringify({ drops, slowDrops, duplicates, outOfOrder, incomplete: readers.filter((r) => r.seen !== target - from).length }));
}
for (let i = 0; i < count; i++) { const r = { last: 0, seen: 0, started: false, slow: i < slow, paused: false }; readers.push(r); open(r, undefined); }
createInterface({ input: process.stdin }).on('line', (line) => {
  const [word, value] = line.split(' ');
  if (word === 'from') { from = Number(value); for (const r of readers) { r.last = Math.max(r.last, from); if (r.slow) { r.paused = true; r.res.pause(); } } }
  if (word === 'target') { target = Number(value); check(); }
});
`;

class Readers {
  private readonly lines: string[] = [];
  private waiters: (() => void)[] = [];

  constructor(readonly child: ChildProcess) {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      this.lines.push(line);
      for (const wake of this.waiters.splice(0)) wake();
    });
    child.on('exit', () => {
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  send(line: string): void {
    this.child.stdin!.write(`${line}\n`);
  }

  /** The first line starting with `word` (or fails when the process exits or prints an error). */
  async line(word: string): Promise<string> {
    for (;;) {
      const found = this.lines.find((l) => l.startsWith(word));
      if (found) return found;
      const error = this.lines.find((l) => l.startsWith('error'));
      if (error || this.child.exitCode !== null) throw new Error(`the reader process failed: ${error ?? `exit ${this.child.exitCode}`}`);
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }
}

const latestSeq = async (service: Service) => Number((await service.db.query<{ seq: string }>('SELECT COALESCE(max(seq), 0) AS seq FROM alert_changes'))[0].seq);

interface Outcome {
  drops: number;
  slowDrops: number;
  duplicates: number;
  outOfOrder: number;
  incomplete: number;
}

/** Opens `streams` streams (the first `slow` of them stop reading during the burst) in a reader
 * process, inserts `alerts` alerts (titled `title`) at once and waits until every stream has them all,
 * polling health meanwhile (unless `probe` is false). */
async function burst(service: Service, streams: number, slow: number, alerts: number, options: { title?: string; probe?: boolean } = {}): Promise<Probe<Outcome>> {
  const { title = 'Burst', probe = true } = options;
  const base = await listening(service);
  const admin = await loginAdmin(service);
  const child = spawn(process.execPath, ['--input-type=module', '-e', READER, `${base}/api/alerts/stream`, admin.token!, String(streams), String(slow)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const readers = new Readers(child);
  try {
    await readers.line('ready');
    const from = await latestSeq(service);
    readers.send(`from ${from}`);
    const work = async (): Promise<Outcome> => {
      // In statements of 100 alerts, as ingest stores its batches in bounded chunks.
      for (let done = 0; done < alerts; done += 100) {
        await service.db.query(
          `INSERT INTO alerts (id, rule_id, rule_title, severity, severity_rank, level, index_pattern, event_hash, event_time, event, host)
           SELECT gen_random_uuid(), $1, $3, 'high', 3, 'high', 'win', 'burst-' || $4 || '-' || g, now(), '{}', 'host-' || g FROM generate_series(1, $2::int) g`,
          [randomUUID(), Math.min(100, alerts - done), title, done],
        );
      }
      const target = await latestSeq(service);
      assert.equal(target - from, alerts);
      readers.send(`target ${target}`);
      return JSON.parse((await readers.line('done')).slice('done '.length)) as Outcome;
    };
    if (!probe) return { result: await work(), answeredInFlight: 0, polls: 0, slowestHealthMs: 0, longestLoopStallMs: 0 };
    return await probeHealthDuring(base, work);
  } finally {
    child.kill();
  }
}

const whole = (outcome: Outcome) => ({ ...outcome, drops: 0, slowDrops: 0 });
const WHOLE = { drops: 0, slowDrops: 0, duplicates: 0, outOfOrder: 0, incomplete: 0 };

for (const kind of DATABASE_KINDS) {
  describe(`a burst of alerts to many open streams [${kind}]`, async () => {
    const reason = kind === 'postgres' ? await postgresUnavailable() : null;
    if (reason) {
      describe(`skipped: ${reason}`, { skip: reason }, () => {});
      return;
    }
    const opened: { service: Service; testDb: TestDatabase }[] = [];
    /** A service of its own on a fresh database, with these stream settings. */
    const start = async (alertStream: Record<string, number>): Promise<Service> => {
      const testDb = await openTestDatabase(kind);
      const config = loadConfig({ ADMIN_PASSWORD, DATA_DIR: '/nonexistent-test-dir' });
      const service = await createService(config, { db: testDb.db, alertStream });
      opened.push({ service, testDb });
      return service;
    };
    after(async () => {
      for (const { service, testDb } of opened) {
        await service.close();
        await testDb.drop();
      }
    });

    test(`${STREAMS} streams each receive all ${ALERTS} alerts of a burst while health answers within a second`, { timeout: 10 * 60_000 }, async () => {
      // One user holds every stream here; the other limits (1000 streams, 1 MiB of lag) are the defaults.
      const service = await start({ maxPerUser: STREAMS });
      const probe = await burst(service, STREAMS, SLOW, ALERTS);
      console.log(`[${kind}] slowest health ${Math.round(probe.slowestHealthMs)} ms, longest event-loop hold ${Math.round(probe.longestLoopStallMs)} ms, ${probe.result.drops} readers dropped and resumed`);
      assert.deepEqual(whole(probe.result), WHOLE, `every stream gets every alert once, in order (${probe.result.drops} dropped and resumed)`);
      assert.ok(probe.answeredInFlight > 0, 'health answered while the alerts were being delivered');
      assertResponsive(probe, `${STREAMS} streams, ${ALERTS} alerts`);
    });

    test('readers that stop reading are dropped past the lag bound, resume with Last-Event-ID and get every alert', { timeout: 10 * 60_000 }, async () => {
      // The default limits (1 MiB of lag, 1000 changes replayed) and a burst of big alerts (12 KB
      // titles, 12 MB per stream), far past the bound and past what the kernel's socket buffers hold,
      // so the stopped readers are dropped; the replay covers the rest of the burst.
      const service = await start({});
      // Health is not polled: writing and replaying 12 MB of alerts is the embedded database's work in
      // this very thread, not the fan-out's (the test above holds the service to its second).
      const probe = await burst(service, 4, 2, 1000, { title: 'T'.repeat(12_000), probe: false });
      assert.deepEqual(whole(probe.result), WHOLE, 'every stream gets every alert once, in order');
      assert.ok(probe.result.slowDrops >= 1, `the stopped readers were dropped (${probe.result.slowDrops} of 2)`);
    });
  });
}
