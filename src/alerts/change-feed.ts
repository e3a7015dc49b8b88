// The per-process follower of the alert change log: one reader for every open stream of this process.
// It wakes on NOTIFY (the change-log trigger) and polls every second as a safety net, reads the changes
// after the last one it delivered and hands them, in sequence order, to its subscribers.
//
// Promise: subscribers see each committed change at most once and in order, with no holes except
// the ones a rolled-back transaction leaves. Sequence numbers are taken before commit, so a change
// can become visible after a later one: a change that follows a hole is held until the hole fills,
// or for `gapWaitMs` after it was first seen (the hole was then a rollback, or a transaction that
// committed so late that only a reconnect's catch-up read will show it).
import type { Database } from '../db/database.js';
import { ALERT_CHANGES_CHANNEL, changesAfter, latestChangeSeq, type AlertChange } from './change-store.js';

export interface ChangeFeedOptions {
  /** Safety-net poll interval (NOTIFY is the fast path). */
  pollMs?: number;
  /** How long a change after a hole in the sequence waits for the hole to fill. */
  gapWaitMs?: number;
  /** Reports read failures (once per outage, and the recovery) and a LISTEN that could not start. */
  log?: FeedLog;
}

export interface FeedLog {
  warn(details: { err: unknown }, message: string): void;
  info(message: string): void;
}

const SILENT: FeedLog = { warn() {}, info() {} };

export type ChangeSubscriber = (changes: readonly AlertChange[]) => void;

const READ_BATCH = 500;

export class AlertChangeFeed {
  private readonly pollMs: number;
  private readonly gapWaitMs: number;
  private readonly log: FeedLog;
  private readonly subscribers = new Set<ChangeSubscriber>();
  /** When each change seen after a hole was first seen (by sequence number). */
  private readonly heldSince = new Map<number, number>();
  private delivered = 0;
  private started: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Wakes the feed when the oldest held change has waited long enough. */
  private gapTimer: NodeJS.Timeout | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  private reading: Promise<void> | undefined;
  private readAgain = false;
  private failing = false;
  private closed = false;

  constructor(
    private readonly db: Database,
    options: ChangeFeedOptions = {},
  ) {
    this.pollMs = options.pollMs ?? 1000;
    this.gapWaitMs = options.gapWaitMs ?? 5000;
    this.log = options.log ?? SILENT;
  }

  /** The sequence number of the last change delivered: later subscribers get only changes after it. */
  get position(): number {
    return this.delivered;
  }

  /** Starts following (once; again after a failed start). Resolves when `position` is known. */
  start(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the alert change feed is closed'));
    this.started ??= this.begin().catch((error: unknown) => {
      this.started = undefined;
      throw error;
    });
    return this.started;
  }

  /** Calls `subscriber` with every batch of changes delivered from now on; answers the unsubscribe. */
  subscribe(subscriber: ChangeSubscriber): () => void {
    this.subscribers.add(subscriber);
    return () => {
      this.subscribers.delete(subscriber);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    clearTimeout(this.gapTimer);
    this.subscribers.clear();
    await this.started?.catch(() => {});
    await this.reading;
    const unlisten = this.unlisten;
    this.unlisten = undefined;
    await unlisten?.().catch(() => {});
  }

  private async begin(): Promise<void> {
    this.delivered = await latestChangeSeq(this.db);
    try {
      this.unlisten = await this.db.listen(ALERT_CHANGES_CHANNEL, () => this.wake());
    } catch (error) {
      this.log.warn({ err: error }, 'alert change notifications unavailable; following the change log by polling only');
    }
    this.timer = setInterval(() => this.wake(), this.pollMs);
    this.timer.unref();
    if (this.closed) {
      clearInterval(this.timer);
      await this.unlisten?.().catch(() => {});
      this.unlisten = undefined;
    }
  }

  /** Reads now, or right after the read in progress (a wake during a read must not be lost). */
  private wake(): void {
    if (this.closed) return;
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = this.readUntilQuiet().finally(() => {
      this.reading = undefined;
    });
  }

  private async readUntilQuiet(): Promise<void> {
    do {
      this.readAgain = false;
      try {
        while (!this.closed && (await this.readOnce()));
        if (this.failing) this.log.info('alert change log readable again');
        this.failing = false;
      } catch (error) {
        if (this.closed) return;
        if (!this.failing) this.log.warn({ err: error }, 'reading the alert change log failed; retrying');
        this.failing = true;
        return;
      }
    } while (this.readAgain && !this.closed);
  }

  private wakeAfter(ms: number): void {
    clearTimeout(this.gapTimer);
    this.gapTimer = setTimeout(() => this.wake(), ms + 10);
    this.gapTimer.unref();
  }

  /** Delivers the next ready changes; answers whether a full batch was delivered (more may wait). */
  private async readOnce(): Promise<boolean> {
    const changes = await changesAfter(this.db, this.delivered, READ_BATCH);
    if (this.closed) return false;
    const now = Date.now();
    const ready: AlertChange[] = [];
    let expected = this.delivered + 1;
    let blocked = false;
    let wakeIn: number | undefined;
    for (const change of changes) {
      if (change.seq !== expected) {
        const since = this.heldSince.get(change.seq) ?? now;
        this.heldSince.set(change.seq, since);
        const left = since + this.gapWaitMs - now;
        if (left > 0 && !blocked) {
          blocked = true;
          wakeIn = left;
        }
      }
      if (!blocked) {
        ready.push(change);
        expected = change.seq + 1;
      }
    }
    if (wakeIn !== undefined) this.wakeAfter(wakeIn);
    if (ready.length === 0) return false;
    this.delivered = ready[ready.length - 1].seq;
    for (const seq of this.heldSince.keys()) if (seq <= this.delivered) this.heldSince.delete(seq);
    const visible = ready.filter((change) => change.alert !== undefined);
    if (visible.length > 0) {
      for (const subscriber of [...this.subscribers]) {
        try {
          subscriber(visible);
        } catch (error) {
          this.log.warn({ err: error }, 'an alert stream failed to take changes');
        }
      }
    }
    return !blocked && changes.length === READ_BATCH;
  }
}
