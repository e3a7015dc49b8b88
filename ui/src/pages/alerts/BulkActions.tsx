// Bulk actions on alerts: a status change (a close of new alerts acknowledges them first, in the same
// request) or a new owner, for the selected ids or for everything a filter matches; the answer
// (updated, skipped, failed) is handed back as a sentence.
import { useState, type FormEvent, type ReactNode } from 'react';
import { api, errorText } from '../../api';
import { AssigneeChoice } from '../../components/AssigneeChoice';
import { closes, offeredMoves, STATUS_LABELS } from '../../format';
import type { AlertStatus } from '../../types';
import type { ApiFilter } from './filters';

export type BulkTarget = { ids: string[] } | { filter: ApiFilter };

interface Answer {
  updated: number;
  skipped?: number;
  failed: { id: string; error: string }[];
}

interface Props {
  target: BulkTarget;
  /** How many alerts the action reaches, as the button says it ("Apply to 3"). */
  count: number;
  /** The statuses of the alerts reached when known (the selection's, or the status filter's). */
  statuses?: AlertStatus[];
  /** The form's accessible name. */
  label: string;
  /** Shown first (what is selected). */
  heading: ReactNode;
  onDone(message: string): void;
}

/** The moves in the order offered: forward through triage first, reopening last. */
const MOVES: AlertStatus[] = ['acknowledged', 'resolved', 'false_positive', 'new'];

/** The moves some of the alerts can make (every move when their statuses are unknown). */
function movesFor(statuses: AlertStatus[] | undefined): AlertStatus[] {
  if (!statuses || statuses.length === 0) return MOVES;
  const offered = new Set(statuses.flatMap(offeredMoves));
  return MOVES.filter((s) => offered.has(s));
}

export function describeAnswer(answer: Answer): string {
  const parts = [`${answer.updated.toLocaleString()} updated`];
  if (answer.skipped) parts.push(`${answer.skipped.toLocaleString()} skipped (already so, or a move the triage states do not allow)`);
  if (answer.failed.length) parts.push(`${answer.failed.length} not changed: ${[...new Set(answer.failed.map((f) => f.error))].join('; ')}`);
  return parts.join(', ');
}

export function BulkActions({ target, count, statuses, label, heading, onDone }: Props) {
  const moves = movesFor(statuses);
  const [status, setStatus] = useState<AlertStatus>(moves[0] ?? 'acknowledged');
  const [comment, setComment] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const chosen = moves.includes(status) ? status : moves[0];

  const send = async (change: { status: AlertStatus } | { assignee: string | null }) => {
    setBusy(true);
    setMessage(null);
    try {
      const body = {
        ...target,
        ...change,
        ...('status' in change && closes(change.status) ? { acknowledge_first: true } : {}),
        ...(comment.trim() ? { comment: comment.trim() } : {}),
      };
      const answer = await api.post<Answer>('/api/alerts/bulk/status', body);
      setComment('');
      onDone(describeAnswer(answer));
    } catch (e) {
      setMessage(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  const apply = (event: FormEvent) => {
    event.preventDefault();
    if (chosen) void send({ status: chosen });
  };

  return (
    <form className="bulk-bar" onSubmit={apply} aria-label={label}>
      <strong>{heading}</strong>
      <label>
        New status
        <select value={chosen} onChange={(e) => setStatus(e.target.value as AlertStatus)}>
          {moves.map((s) => (
            <option key={s} value={s}>
              {STATUS_LABELS[s]}
              {closes(s) && statuses?.includes('new') !== false ? ' (new ones acknowledged first)' : ''}
            </option>
          ))}
        </select>
      </label>
      <label className="grow">
        Comment (optional)
        <input value={comment} maxLength={10000} onChange={(e) => setComment(e.target.value)} />
      </label>
      <button type="submit" disabled={busy || !chosen}>
        Apply to {count.toLocaleString()}
      </button>
      <AssigneeChoice disabled={busy} onAssign={(assignee) => void send({ assignee })} />
      {message && (
        <span className="error" role="alert">
          {message}
        </span>
      )}
    </form>
  );
}
