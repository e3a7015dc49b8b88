// How many events an ingest chunk takes: about CHUNK_BUDGET_MS of writing in one transaction. Writing
// an event with its alert costs several times what writing a plain event costs, so the size follows the
// share of alerting events in the chunks already written of the request: INGEST_CHUNK plain events,
// fewer as more of them alert, down to INGEST_CHUNK / (1 + ALERT_WEIGHT) when all do. Counted in work,
// not measured in time, so a chunk waiting its turn behind other requests' chunks is not made smaller.
// A short transaction is what lets every other request's reads and writes take their turn between two.

/** Most events one chunk takes: plain events are written this many at a time (about 0.1 s). */
export const INGEST_CHUNK = 1000;
/** The time one chunk's transaction should hold the database, which INGEST_CHUNK and ALERT_WEIGHT follow. */
export const CHUNK_BUDGET_MS = 100;
/** What writing an event's alert costs, in plain events written. */
export const ALERT_WEIGHT = 4;
/** The first chunk of a request, before anything is learnt: sized as if half its events alert. */
const FIRST_CHUNK = Math.round(INGEST_CHUNK / (1 + ALERT_WEIGHT / 2));

export class ChunkSize {
  private current = FIRST_CHUNK;

  /** Events the next chunk takes. */
  get events(): number {
    return this.current;
  }

  /** Learns from a written chunk: `events` stored, `alerts` raised with them. */
  record(events: number, alerts: number): void {
    if (events === 0) return;
    const alertsPerEvent = Math.min(1, alerts / events);
    this.current = Math.max(1, Math.round(INGEST_CHUNK / (1 + ALERT_WEIGHT * alertsPerEvent)));
  }
}
