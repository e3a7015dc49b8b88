// The outcomes of a round's attempts, written to the database together rather than one commit each: an
// outcome waits at most FLUSH_AFTER_MS (or until FLUSH_AT are waiting) before the book writes what it
// holds in one statement. On the embedded database every commit syncs its log to the disk, so a commit
// per delivery cost a sync per message; a lot of them costs one. An outcome not yet written when the
// process stops is lost with its lease, and the delivery is sent again once the lease ends: deliveries
// are at least once, as they were (the receiver deduplicates by X-Vigil-Delivery).
import type { Queryable } from '../db/database.js';
import { recordOutcomes, type Outcome } from './delivery-store.js';

const FLUSH_AT = 100;
const FLUSH_AFTER_MS = 200;

export class OutcomeBook {
  private waiting: Outcome[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** The writes in order: each starts after the one before it ended. */
  private written: Promise<void> = Promise.resolve();
  private failure: unknown;

  constructor(
    private readonly db: Queryable,
    private readonly holder: string,
  ) {}

  add(outcome: Outcome): void {
    this.waiting.push(outcome);
    if (this.waiting.length >= FLUSH_AT) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), FLUSH_AFTER_MS);
  }

  /** Writes what is waiting; answers when every outcome added so far is written (or rejects with the first failed write). */
  async settle(): Promise<void> {
    this.flush();
    await this.written;
    if (this.failure !== undefined) throw this.failure;
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.waiting.length === 0) return;
    const lot = this.waiting;
    this.waiting = [];
    this.written = this.written.then(() =>
      recordOutcomes(this.db, this.holder, lot).catch((error: unknown) => {
        this.failure ??= error;
      }),
    );
  }
}
