// A bulk change of every alert a filter matches (the list's filters): at most MAX_BULK_BY_FILTER alerts,
// found once when the request starts, then changed a chunk at a time, each chunk its own transaction
// with the event loop free between chunks, so other requests are answered while 100,000 alerts change.
// Chunks are sized to take about CHUNK_BUDGET_MS (from MIN_CHUNK to BULK_CHUNK alerts): the embedded
// database runs one statement at a time, so a chunk holds every other request, health checks included,
// for as long as it takes, and each changed alert is written again into every index of the table (the
// trigram search index makes that several milliseconds an alert there).
// An alert the change does not apply to (a move the state machine refuses, or nothing to change: already
// in the status and with the assignee) is skipped. The request is audited once (`alert.bulk_changed`,
// with the filter, the change and the counts), not once per alert.
import type { Database } from '../db/database.js';
import { badRequest } from '../http/errors.js';
import { recordAudit } from '../audit/log.js';
import { alertConditions, lockAlerts, matchingAlertIds, type AlertListQuery, type TriageRow } from './queries.js';
import { admitted, applyChange, type Actor, type TriageChange } from './service.js';

export const MAX_BULK_BY_FILTER = 100_000;
/** The most alerts one chunk changes. */
export const BULK_CHUNK = 1_000;
const MIN_CHUNK = 20;
const FIRST_CHUNK = 100;
const CHUNK_BUDGET_MS = 250;

/** The next chunk's size from the last one's: scaled toward the time budget, at most doubling. */
const nextChunk = (size: number, ms: number) => Math.max(MIN_CHUNK, Math.min(BULK_CHUNK, size * 2, Math.round((size * CHUNK_BUDGET_MS) / Math.max(ms, 1))));

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Whether the change would alter the alert (a comment alone does not count in a bulk by filter). */
const alters = (row: TriageRow, change: TriageChange) =>
  (change.status !== undefined && row.status !== change.status) || (change.assignee !== undefined && row.assignee !== change.assignee);

export async function bulkChangeByFilter(db: Database, actor: Actor, filter: AlertListQuery, change: TriageChange): Promise<{ updated: number; skipped: number; failed: never[] }> {
  const ids = await matchingAlertIds(db, alertConditions(filter), MAX_BULK_BY_FILTER + 1);
  if (ids.length > MAX_BULK_BY_FILTER) {
    throw badRequest(`The filter matches more than ${MAX_BULK_BY_FILTER} alerts: narrow it (one bulk change takes at most ${MAX_BULK_BY_FILTER})`);
  }
  const { page: _page, page_size: _size, sort_by: _by, sort_order: _order, ...given } = filter;
  const { updated, skipped } = await bulkChangeIds(db, actor, ids, change, { filter: given });
  return { updated, skipped, failed: [] };
}

/**
 * Changes the alerts of `ids` (found by the caller, at most MAX_BULK_BY_FILTER) BULK_CHUNK at a time,
 * each chunk its own transaction, skipping those the change does not apply to; audited once as
 * `alert.bulk_changed` with `about` (what chose the alerts), the change and the counts.
 */
export async function bulkChangeIds(db: Database, actor: Actor, ids: string[], change: TriageChange, about: Record<string, unknown>): Promise<{ updated: number; skipped: number }> {
  let updated = 0;
  let skipped = 0;
  try {
    let size = FIRST_CHUNK;
    for (let start = 0; start < ids.length; ) {
      const chunk = ids.slice(start, start + size);
      start += chunk.length;
      const t0 = performance.now();
      await db.transaction(async (tx) => {
        const { allowed } = admitted(await lockAlerts(tx, chunk), change);
        const changing = allowed.filter((row) => alters(row, change));
        await applyChange(tx, actor, changing, change, 'none');
        updated += changing.length;
        // Refused, unchanged, or deleted since the request started.
        skipped += chunk.length - changing.length;
      });
      size = nextChunk(size, performance.now() - t0);
      await yieldToLoop();
    }
  } finally {
    await recordAudit(db, {
      actor: actor.username,
      action: 'alert.bulk_changed',
      targetType: 'alert',
      details: {
        ...about,
        ...(change.status !== undefined ? { status: change.status } : {}),
        ...(change.assignee !== undefined ? { assignee: change.assignee } : {}),
        ...(change.acknowledgeFirst ? { acknowledge_first: true } : {}),
        ...(change.comment !== undefined ? { comment: true } : {}),
        matched: ids.length,
        updated,
        skipped,
      },
      ip: actor.ip,
    });
  }
  return { updated, skipped };
}
