// The answer to a _bulk request: one item per action, in order, under the action's own key, with the
// status each client acts on — 201 "created" for a stored event, 400 for one refused (Logstash sends it
// to its dead-letter queue, Beats drop it; neither retries a 400).
import { createHash } from 'node:crypto';
import type { BulkAction } from './bulk-decode.js';

export interface BulkItemResult {
  _index: string;
  _id: string;
  status: number;
  _version?: number;
  result?: 'created';
  _shards?: { total: number; successful: number; failed: number };
  _seq_no?: number;
  _primary_term?: number;
  error?: { type: string; reason: string };
}

export interface BulkAnswer {
  took: number;
  errors: boolean;
  items: Record<string, BulkItemResult>[];
}

/** The id reported for an event sent without one: derived from its content, so a re-sent event gets
 * the same id (Elasticsearch's own ids are 20 characters). */
function contentId(event: Record<string, unknown>): string {
  return createHash('sha256').update(JSON.stringify(event)).digest('base64url').slice(0, 20);
}

/** Builds the answer from the actions and the pipeline's refusals (by action position). */
export function bulkAnswer(actions: BulkAction[], refused: Map<number, string>, startedAt: number): BulkAnswer {
  let errors = false;
  let seq = 0;
  const items = actions.map((action, position) => {
    const _id = action.id ?? (action.event ? contentId(action.event) : '');
    const refusal = action.refusal ?? (refused.has(position) ? { status: 400, type: 'document_parsing_exception', reason: refused.get(position)! } : undefined);
    let result: BulkItemResult;
    if (refusal) {
      errors = true;
      result = { _index: action.index, _id, status: refusal.status, error: { type: refusal.type, reason: refusal.reason } };
    } else {
      result = {
        _index: action.index,
        _id,
        _version: 1,
        result: 'created',
        _shards: { total: 1, successful: 1, failed: 0 },
        _seq_no: seq++,
        _primary_term: 1,
        status: 201,
      };
    }
    return { [action.action]: result };
  });
  return { took: Math.max(0, Date.now() - startedAt), errors, items };
}
