// How many events an ingest chunk takes: as many as one transaction writes in about CHUNK_BUDGET_MS,
// learnt per request from the chunks already written (events that all raise alerts cost several
// times what plain events cost), between MIN_CHUNK and INGEST_CHUNK. A short transaction is what
// lets every other request's reads and writes take their turn between two chunks.

/** Most events one chunk takes (plain events are written this many at a time). */
export const INGEST_CHUNK = 1000;
/** Fewest events one chunk takes, however slow the writes. */
export const MIN_CHUNK = 100;
/** The time one chunk's transaction should hold the database. */
export const CHUNK_BUDGET_MS = 100;
/** The first chunk of a request, before anything is learnt. */
const FIRST_CHUNK = 250;

export class ChunkSize {
  private current = FIRST_CHUNK;

  /** Events the next chunk takes. */
  get events(): number {
    return this.current;
  }

  /** Learns from a written chunk: `events` stored while its transaction held the database `heldMs`. */
  record(events: number, heldMs: number): void {
    if (events === 0) return;
    const fitting = (events * CHUNK_BUDGET_MS) / Math.max(heldMs, 1);
    // Grows at most twofold a chunk (one quick chunk says little), shrinks at once.
    this.current = Math.round(Math.min(INGEST_CHUNK, Math.max(MIN_CHUNK, Math.min(fitting, 2 * this.current))));
  }
}
