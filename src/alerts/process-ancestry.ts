// The process ancestry of an alert (GET /api/alerts/{id}/process_tree): its event's process, read through
// its pattern's preset, placed among the process starts of the same host within a day either side
// (process-tree-store.ts; on OpenSearch, the history's processStarts, by the indexed host), built into
// a bounded tree (process-tree.ts). Where the events of other processes cannot be read (the pattern is
// gone, the alert has no host), the tree holds what the alert's own event says (its process and the
// parent it names) and `unavailable_reason` says why.
import type { AppContext } from '../http/context.js';
import { effectiveEntityFields } from '../index-patterns/entity-fields.js';
import { shaperOfPattern } from '../index-patterns/event-shape.js';
import { findPatternById } from '../index-patterns/store.js';
import { flattenWindowsEvent, isEvtxDump, makeAccessor } from '../sigma/index.js';
import type { AlertDetailRow } from './queries.js';
import { processRecordOf } from './process-record.js';
import { alertPatternId, processStartCandidates, WINDOW_SECONDS } from './process-tree-store.js';
import { buildProcessTree, type ProcessEvent, type ProcessTree } from './process-tree.js';

export interface ProcessAncestry extends ProcessTree {
  window: { from: string; to: string };
  scanned_events: number;
  unavailable_reason?: string;
}

export async function processAncestry(ctx: AppContext, alert: AlertDetailRow): Promise<ProcessAncestry> {
  const patternId = await alertPatternId(ctx.db, alert.id);
  const pattern = patternId ? await findPatternById(ctx.db, patternId) : undefined;
  // Without a preset that reshapes events, an evtx_dump event is still read by its flat Windows names.
  const shape = shaperOfPattern(pattern) ?? ((e: Record<string, unknown>) => (isEvtxDump(e) ? flattenWindowsEvent(e) : e));
  const self: ProcessEvent = { record: processRecordOf(shape(alert.event)), hash: alert.event_hash, time: alert.event_time };
  const around = alert.event_time.getTime();
  const window = { from: new Date(around - WINDOW_SECONDS * 1000).toISOString(), to: new Date(around + WINDOW_SECONDS * 1000).toISOString() };
  const alone = (reason: string): ProcessAncestry => ({ ...buildProcessTree(self, []), window, scanned_events: 0, unavailable_reason: reason });

  if (self.record.guid === null && self.record.pid === null) return alone("The alert's event names no process (no process id or GUID).");
  if (ctx.backend.kind !== 'embedded' && !ctx.history.processStarts) return alone("The events are kept by the search backend, which cannot look them up by host; only what the alert's own event says is shown.");
  if (!pattern) return alone("The alert's index pattern was deleted with its events; only what the alert's own event says is shown.");
  if (!alert.host) return alone('The alert has no host, so the process events of its machine cannot be told from others; only what its own event says is shown.');

  const hostFields = effectiveEntityFields(pattern.entity_fields).host.map(makeAccessor);
  const onHost = (event: object): boolean => hostFields.some((field) => field.each(event, (v) => v === alert.host));
  // Events kept outside the database are looked up by the backend (on OpenSearch, by the indexed host).
  const candidates = ctx.history.processStarts
    ? await ctx.history.processStarts(pattern.id, alert.event_time, alert.host, WINDOW_SECONDS * 1000)
    : await processStartCandidates(ctx.db, pattern.id, alert.event_time, alert.host);
  const events: ProcessEvent[] = [];
  for (const candidate of candidates.events) {
    let stored: Record<string, unknown>;
    try {
      stored = JSON.parse(candidate.json) as Record<string, unknown>;
    } catch {
      continue;
    }
    const seen = shape(stored);
    // Entity fields name the event as stored or as its preset shapes it.
    if (!onHost(seen) && !onHost(stored)) continue;
    events.push({ record: processRecordOf(seen), hash: candidate.hash, time: candidate.time });
  }
  const tree = buildProcessTree(self, events);
  return { ...tree, truncated: tree.truncated || candidates.truncated, window, scanned_events: candidates.scanned };
}
