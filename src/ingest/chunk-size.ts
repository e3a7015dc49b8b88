// How many events an ingest chunk takes: about CHUNK_BUDGET_MS of writing in one transaction. Writing
// an event with its alert costs several times what writing a plain event costs, so the size follows the
// share of alerting events in the chunks already written of the request: INGEST_CHUNK plain events,
// fewer as more of them alert, down to INGEST_CHUNK / (1 + ALERT_WEIGHT) when all do. Counted in work,
// not measured in time, so a chunk waiting its turn behind other requests' chunks is not made smaller.
// A short transaction is what lets every other request's reads and writes take their turn between two.
// A request's first chunk follows the share its index pattern's last chunks had (a pattern whose events
// seldom alert starts with full chunks: a smaller first chunk would be one more commit per request); a
// pattern not seen yet starts as if half its events alert.

/** Most events one chunk takes: plain events are written this many at a time (about 0.1 s). */
export const INGEST_CHUNK = 1000;
/** The time one chunk's transaction should hold the database, which INGEST_CHUNK and ALERT_WEIGHT follow. */
export const CHUNK_BUDGET_MS = 100;
/** What writing an event's alert costs, in plain events written. */
export const ALERT_WEIGHT = 4;
/** The share of alerting events assumed for a pattern before anything is learnt of it. */
const UNKNOWN_SHARE = 0.5;
/** Patterns whose last share is remembered (the oldest forgotten first). */
const REMEMBERED_PATTERNS = 10_000;
const lastShare = new Map<string, number>();

const sizeFor = (alertsPerEvent: number): number => Math.max(1, Math.round(INGEST_CHUNK / (1 + ALERT_WEIGHT * alertsPerEvent)));

export class ChunkSize {
  private current: number;

  constructor(private readonly patternId: string) {
    this.current = sizeFor(lastShare.get(patternId) ?? UNKNOWN_SHARE);
  }

  /** Events the next chunk takes. */
  get events(): number {
    return this.current;
  }

  /** Learns from a written chunk: `events` stored, `alerts` raised with them. */
  record(events: number, alerts: number): void {
    if (events === 0) return;
    const alertsPerEvent = Math.min(1, alerts / events);
    this.current = sizeFor(alertsPerEvent);
    lastShare.delete(this.patternId);
    lastShare.set(this.patternId, alertsPerEvent);
    if (lastShare.size > REMEMBERED_PATTERNS) lastShare.delete(lastShare.keys().next().value!);
  }
}
