// Reads an Elasticsearch _bulk body: pairs of an action line ({"index"|"create": {...}}) and a document
// line; "delete" has no document line and "update" has one, both refused per item (events are kept as
// sent). A malformed document line is refused on its own and the rest go through; a malformed action
// line leaves the request unreadable (which line is which is lost), so the whole request is refused,
// as Elasticsearch does. Text that is not valid UTF-8 is never altered: such a document line is
// refused on its own (400 document_parsing_exception, as Elasticsearch's parser refuses it), such an
// action line refuses the request. More than MAX_INGEST_EVENTS actions refuse the request with 413 before any
// event is stored.
import { badRequest } from '../../http/errors.js';
import { parseJson } from '../../http/exact-json.js';
import { MAX_INGEST_EVENTS, tooManyEvents } from '../parse-body.js';

export const ACTIONS = ['index', 'create', 'update', 'delete'] as const;
export type ActionName = (typeof ACTIONS)[number];

export interface BulkAction {
  action: ActionName;
  /** The index the action names, or the one in the request path, or the pattern's name. */
  index: string;
  id?: string;
  /** Set on an action that carries an event to store. */
  event?: Record<string, unknown>;
  /** Set on an action refused before it reaches the pipeline. */
  refusal?: { status: number; type: string; reason: string };
}

/** Longest index name and _id echoed back (Elasticsearch's own limit is 255 bytes and 512 bytes). */
const MAX_INDEX = 255;
const MAX_ID = 512;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function text(value: unknown, max: number): string | undefined {
  return typeof value === 'string' && value !== '' ? value.slice(0, max) : undefined;
}

function actionLine(line: string, lineNumber: number): { name: ActionName; meta: Record<string, unknown> } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw badRequest(`Malformed action/metadata line [${lineNumber}]: not JSON`);
  }
  const keys = isObject(value) ? Object.keys(value) : [];
  if (!isObject(value) || keys.length !== 1) {
    throw badRequest(`Malformed action/metadata line [${lineNumber}]: expected an object with one action (index, create, update or delete)`);
  }
  const name = keys[0] as ActionName;
  if (!ACTIONS.includes(name)) throw badRequest(`Malformed action/metadata line [${lineNumber}]: unknown action [${keys[0].slice(0, 40)}]`);
  const meta = value[name];
  if (meta !== undefined && meta !== null && !isObject(meta)) throw badRequest(`Malformed action/metadata line [${lineNumber}]: the action's metadata must be an object`);
  return { name, meta: isObject(meta) ? meta : {} };
}

function documentProblem(line: string | null | undefined): string | Record<string, unknown> {
  if (line === undefined) return 'the action has no document line';
  if (line === null) return 'the document is not valid UTF-8';
  let value: unknown;
  try {
    // Numbers a double would change are remembered, so the event is stored as sent.
    value = parseJson(line);
  } catch {
    return 'the document is not valid JSON';
  }
  return isObject(value) ? value : 'the document must be a JSON object';
}

/** The actions of a bulk body given as its lines (null: a line that is not valid UTF-8), in order;
 * `defaultIndex` names actions that name no index. */
export function decodeBulk(lines: (string | null)[], defaultIndex: string): BulkAction[] {
  const actions: BulkAction[] = [];
  let i = 0;
  const nextLine = (): string | null | undefined => {
    while (i < lines.length) {
      const raw = lines[i++];
      if (raw === null) return null;
      const line = raw.replace(/\r$/, '');
      if (line.trim() !== '') return line;
    }
    return undefined;
  };
  for (let line = nextLine(); line !== undefined; line = nextLine()) {
    if (actions.length >= MAX_INGEST_EVENTS) throw tooManyEvents('actions');
    if (line === null) throw badRequest(`Malformed action/metadata line [${i}]: not valid UTF-8`);
    const { name, meta } = actionLine(line, i);
    const action: BulkAction = { action: name, index: text(meta._index, MAX_INDEX) ?? defaultIndex, id: text(meta._id, MAX_ID) };
    if (name === 'delete') {
      action.refusal = { status: 400, type: 'illegal_argument_exception', reason: 'delete is not supported: events are kept as sent' };
    } else {
      const document = documentProblem(nextLine());
      if (name === 'update') {
        action.refusal = { status: 400, type: 'illegal_argument_exception', reason: 'update is not supported: events are kept as sent' };
      } else if (typeof document === 'string') {
        action.refusal = { status: 400, type: 'document_parsing_exception', reason: document };
      } else {
        action.event = document;
      }
    }
    actions.push(action);
  }
  if (actions.length === 0) throw badRequest('The bulk request holds no actions');
  return actions;
}
