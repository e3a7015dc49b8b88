// Open alert streams of this process: each connection's writer (resume, live changes, heartbeats,
// session re-checks) and the registry that caps how many are open, per user and in all, and ends
// them all when the service closes. Live changes come from the fan-out (fan-out.ts) as shared runs of
// bytes; a reader more than `maxBufferedBytes` behind (what its stream and its socket still hold) is
// ended after what it was sent, and resumes from the change log with Last-Event-ID.
import { PassThrough } from 'node:stream';
import type { Queryable } from '../db/database.js';
import { HttpError, tooManyRequests } from '../http/errors.js';
import type { AlertChangeFeed } from './change-feed.js';
import { latestChangeSeq, latestChangesBetween, type AlertChange } from './change-store.js';
import { runsOf, type AlertFanOut, type ChangeRun, type RunReader } from './fan-out.js';
import { changeEvent, HEARTBEAT, retryField, sseEvent, STREAM_EVENTS } from './sse.js';

export interface AlertStreamSettings {
  /** Interval of heartbeat comments and session re-checks. */
  heartbeatMs: number;
  /** Most changes replayed on resume; with more missed, the newest are sent after a reload event. */
  maxReplay: number;
  /** Open streams per user in this process. */
  maxPerUser: number;
  /** Open streams in this process. */
  maxPerProcess: number;
  /** Bytes a stream may have queued for a slow reader (in the stream and its socket) before it is
   * ended (the client resumes). */
  maxBufferedBytes: number;
}

export const DEFAULT_STREAM_SETTINGS: AlertStreamSettings = {
  heartbeatMs: 15_000,
  maxReplay: 1000,
  maxPerUser: 10,
  maxPerProcess: 1000,
  maxBufferedBytes: 1024 * 1024,
};

export interface StreamDeps {
  db: Queryable;
  feed: AlertChangeFeed;
  fanOut: AlertFanOut;
  settings: AlertStreamSettings;
  /** Bytes written but not yet taken by the connection beyond the stream's body (the response and its socket). */
  sentBacklog?: () => number;
  /** Whether the stream's session is still live (not revoked or expired, user enabled). */
  sessionIsLive: () => Promise<boolean>;
}

/** One open stream: its body is what the response sends. */
export class AlertStream implements RunReader {
  readonly body = new PassThrough();
  private lastSent = 0;
  /** Live changes that arrive while the resume is being read, sent after it. */
  private pending: AlertChange[] | undefined = [];
  private unsubscribe: (() => void) | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private checking = false;
  private ended = false;
  /** Set while the resume is written (the lag bound is not applied to it). */
  private replaying = false;
  private readonly onEnd: (() => void)[] = [];

  constructor(private readonly deps: StreamDeps) {}

  /** Calls `listener` once, when the stream ends for any reason. */
  whenEnded(listener: () => void): void {
    if (this.ended) listener();
    else this.onEnd.push(listener);
  }

  /**
   * Starts the stream: the reconnection delay, then every change after `resumeAfter` (the client's
   * Last-Event-ID; without it only changes from now on), then live changes as they are delivered.
   */
  async open(resumeAfter: number | undefined): Promise<void> {
    const { feed, fanOut, db, settings } = this.deps;
    await feed.start();
    if (this.ended) return;
    // Everything up to `position` is read here; everything after comes through the fan-out.
    const position = feed.position;
    this.lastSent = position;
    this.unsubscribe = fanOut.add(this);
    this.write(retryField());
    if (resumeAfter !== undefined && resumeAfter < position) {
      const missed = await latestChangesBetween(db, resumeAfter, position, settings.maxReplay + 1);
      if (missed.length > settings.maxReplay) {
        missed.shift();
        this.write(sseEvent(STREAM_EVENTS.reload, { reason: 'too_many_missed', replayed: settings.maxReplay }));
      }
      // The replay is bounded by maxReplay: it is sent whole, in a few runs of bytes, and the lag bound
      // holds from the next write.
      this.replaying = true;
      for (const run of runsOf(missed)) this.write(run.bytes);
      this.replaying = false;
      this.lastSent = position;
    } else if (resumeAfter !== undefined && resumeAfter > position) {
      if (resumeAfter > (await latestChangeSeq(db))) {
        // Not an id of this database (it was replaced, or the id was made up): start afresh.
        this.write(sseEvent(STREAM_EVENTS.reload, { reason: 'unknown_event_id' }));
      } else {
        // Another instance already sent this client changes this one has not delivered yet.
        this.lastSent = resumeAfter;
      }
    }
    const pending = this.pending ?? [];
    this.pending = undefined;
    this.send(pending);
    if (this.ended) return;
    this.heartbeat = setInterval(() => this.beat(), settings.heartbeatMs);
  }

  /** Ends the stream (idempotent): the response finishes and the subscription and timers stop. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.heartbeat);
    this.unsubscribe?.();
    this.body.end();
    for (const listener of this.onEnd.splice(0)) listener();
  }

  /** A run of live changes: its shared bytes when all of it is new to this reader, else change by change. */
  take(run: ChangeRun): void {
    if (this.ended) return;
    if (this.pending) {
      for (const change of run.changes) this.pending.push(change);
    } else if (run.firstSeq > this.lastSent) {
      this.lastSent = run.lastSeq;
      this.write(run.bytes);
    } else {
      this.send(run.changes);
    }
  }

  /** Sends changes in order, each at most once. */
  private send(changes: readonly AlertChange[]): void {
    for (const change of changes) {
      if (change.seq <= this.lastSent) continue;
      this.lastSent = change.seq;
      if (change.alert) this.write(changeEvent(change));
    }
  }

  private write(data: string | Buffer): void {
    if (this.ended) return;
    this.body.write(data);
    // A reader that does not keep up is dropped rather than buffered without bound; it resumes.
    if (this.replaying) return;
    const behind = this.body.writableLength + this.body.readableLength + (this.deps.sentBacklog?.() ?? 0);
    if (behind > this.deps.settings.maxBufferedBytes) this.end();
  }

  private beat(): void {
    this.write(HEARTBEAT);
    if (this.checking || this.ended) return;
    this.checking = true;
    this.deps.sessionIsLive().then(
      (live) => {
        this.checking = false;
        if (!live) {
          this.write(sseEvent(STREAM_EVENTS.sessionEnded, { detail: 'The session was revoked or has expired; log in again' }));
          this.end();
        }
      },
      // Fail closed: without a confirmed session the stream stops (the client reconnects and is checked).
      () => this.end(),
    );
  }
}

/** The open streams of this process and their caps. */
export class AlertStreamRegistry {
  private readonly open = new Set<AlertStream>();
  private readonly perUser = new Map<string, number>();
  private closing = false;

  constructor(private readonly settings: AlertStreamSettings) {}

  /** Counts a new stream of `userId`, or refuses it with 429; the stream is released when it ends. */
  admit(userId: string, stream: AlertStream): void {
    if (this.closing) throw new HttpError(503, 'The server is shutting down; reconnect shortly');
    const mine = this.perUser.get(userId) ?? 0;
    if (mine >= this.settings.maxPerUser) {
      throw tooManyRequests(`Too many open alert streams for this user (at most ${this.settings.maxPerUser}); close one first`, 5);
    }
    if (this.open.size >= this.settings.maxPerProcess) {
      throw tooManyRequests(`Too many open alert streams on this server (at most ${this.settings.maxPerProcess}); retry later`, 5);
    }
    this.open.add(stream);
    this.perUser.set(userId, mine + 1);
    stream.whenEnded(() => {
      this.open.delete(stream);
      const left = (this.perUser.get(userId) ?? 1) - 1;
      if (left > 0) this.perUser.set(userId, left);
      else this.perUser.delete(userId);
    });
  }

  /** Ends every open stream and refuses new ones (the service is closing). */
  endAll(): void {
    this.closing = true;
    for (const stream of [...this.open]) stream.end();
  }
}
