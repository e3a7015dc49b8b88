// Hands the alert changes of this process's change feed to every open stream without holding the event
// loop: the SSE bytes of a run of changes are built once (every stream sends the same events: there is
// no per-stream filter or visibility variant) as one shared Buffer, and written to at most SLICE
// streams per event-loop turn, so health checks and other requests are answered between slices however
// many streams are open and however many changes arrive at once.
//
// Promise: each stream is handed the runs in sequence order, each run once; runs that queue up while a
// run is still being handed out are merged (up to RUN_BYTES each) rather than handed out one by one. A
// stream that falls behind is its own business (streams.ts drops a reader past its lag bound).
import type { AlertChangeFeed } from './change-feed.js';
import type { AlertChange } from './change-store.js';
import { changeEvent } from './sse.js';

/** Streams written to per event-loop turn. */
export const SLICE = 32;
/** Most bytes of events in one run (a run holds at least one change). */
export const RUN_BYTES = 64 * 1024;

/** Consecutive changes and their events as bytes, shared by every stream they are written to. */
export interface ChangeRun {
  /** The changes, in sequence order, each with its alert. */
  changes: readonly AlertChange[];
  firstSeq: number;
  lastSeq: number;
  bytes: Buffer;
}

/** What the fan-out writes to: an open stream. */
export interface RunReader {
  take(run: ChangeRun): void;
}

/** The changes as runs of at most RUN_BYTES of events (a bigger single event is a run of its own). */
export function runsOf(changes: readonly AlertChange[]): ChangeRun[] {
  const runs: ChangeRun[] = [];
  let texts: string[] = [];
  let members: AlertChange[] = [];
  let size = 0;
  const close = () => {
    if (members.length === 0) return;
    runs.push({ changes: members, firstSeq: members[0].seq, lastSeq: members[members.length - 1].seq, bytes: Buffer.from(texts.join('')) });
    texts = [];
    members = [];
    size = 0;
  };
  for (const change of changes) {
    if (!change.alert) continue;
    const text = changeEvent(change);
    if (size > 0 && size + text.length > RUN_BYTES) close();
    texts.push(text);
    members.push(change);
    size += text.length;
  }
  close();
  return runs;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class AlertFanOut {
  private readonly readers = new Set<RunReader>();
  private readonly queued: AlertChange[] = [];
  private pumping = false;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly feed: AlertChangeFeed) {}

  /** Hands `reader` every run from now on; answers the removal. */
  add(reader: RunReader): () => void {
    this.unsubscribe ??= this.feed.subscribe((changes) => this.enqueue(changes));
    this.readers.add(reader);
    return () => {
      this.readers.delete(reader);
    };
  }

  private enqueue(changes: readonly AlertChange[]): void {
    for (const change of changes) this.queued.push(change);
    if (!this.pumping) {
      this.pumping = true;
      void this.pump().finally(() => {
        this.pumping = false;
      });
    }
  }

  /** Hands out what is queued, run by run, SLICE readers per turn, until nothing is left. */
  private async pump(): Promise<void> {
    while (this.queued.length > 0) {
      const runs = runsOf(this.queued.splice(0));
      for (const run of runs) {
        // Readers added meanwhile start after this run (their resume read covers it).
        const readers = [...this.readers];
        for (let at = 0; at < readers.length; at += SLICE) {
          if (at > 0) await nextTurn();
          for (const reader of readers.slice(at, at + SLICE)) {
            try {
              reader.take(run);
            } catch {
              // One reader's failure is its own: the others still get the run.
            }
          }
        }
        await nextTurn();
      }
    }
  }
}
