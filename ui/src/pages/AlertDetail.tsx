// One alert: every field, the rule's context and the related alerts, the event as a tree with the matched
// fields highlighted, threat-intel matches as cards, the comment thread, the status moves allowed from its
// current state (a new alert closes in one step, acknowledged first), its owner, exceptions from a field, and
// steps to the previous and next alert of the queue it was opened from, and its process ancestry.
import { useCallback, useEffect, useMemo, useState, type FormEvent } from 'react';
import { api, errorText, type Page } from '../api';
import { EventTree, type FieldPick } from '../components/EventTree';
import { AssigneeChoice } from '../components/AssigneeChoice';
import { closes, formatTime, moveLabel, offeredMoves, SeverityBadge, StatusBadge } from '../format';
import { Link } from '../router';
import { canTriage, useSession } from '../session';
import type { AlertDetail, AlertStatus, Comment } from '../types';
import { IndicatorCards } from './alert-detail/IndicatorCards';
import { MatchedOn } from './alert-detail/MatchedOn';
import { ProcessAncestry } from './alert-detail/ProcessAncestry';
import { ListStepper } from './alert-detail/ListStepper';
import { RelatedAlerts } from './alert-detail/RelatedAlerts';
import { RuleContextPanel } from './alert-detail/RuleContextPanel';
import type { AlertContext } from './alert-detail/types';

const OPERATORS = ['equals', 'contains', 'startswith', 'endswith', 'regex', 'cidr', 'in'] as const;

/** A fresh page per alert: stepping to another alert starts with no state of the last one. */
export function AlertDetailPage({ id }: { id: string }) {
  return <AlertView key={id} id={id} />;
}

function AlertView({ id }: { id: string }) {
  const { user } = useSession();
  const [alert, setAlert] = useState<AlertDetail | null>(null);
  const [comments, setComments] = useState<Comment[]>([]);
  const [context, setContext] = useState<AlertContext | null>(null);
  const [contextError, setContextError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pick, setPick] = useState<FieldPick | null>(null);
  const triage = canTriage(user);

  const load = useCallback(async () => {
    try {
      const [a, c] = await Promise.all([api.get<AlertDetail>(`/api/alerts/${encodeURIComponent(id)}`), api.get<Page<Comment>>(`/api/alerts/${encodeURIComponent(id)}/comments?page_size=100`)]);
      setAlert(a);
      setComments(c.items);
      setError(null);
    } catch (e) {
      setError(errorText(e));
    }
  }, [id]);

  useEffect(() => {
    void load();
  }, [load]);

  useEffect(() => {
    let cancelled = false;
    setContext(null);
    setContextError(null);
    api
      .get<AlertContext>(`/api/alerts/${encodeURIComponent(id)}/context`)
      .then((c) => !cancelled && setContext(c))
      .catch((e: unknown) => !cancelled && setContextError(errorText(e)));
    return () => {
      cancelled = true;
    };
  }, [id]);

  // The matched fields by name until the context tells where they sit in the stored event.
  const named = useMemo(() => {
    const fields = new Set<string>();
    for (const condition of alert?.matched_conditions ?? []) for (const selection of Object.values(condition)) if (selection && typeof selection === 'object') for (const field of Object.keys(selection)) fields.add(field.split('|')[0]);
    return fields;
  }, [alert]);
  const placed = useMemo(() => (context ? new Set(context.matched_fields.flatMap((f) => f.paths)) : null), [context]);

  if (error) {
    return (
      <section>
        <ListStepper id={id} />
        <p className="error" role="alert">
          {error}
        </p>
      </section>
    );
  }
  if (!alert)
    return (
      <section>
        <ListStepper id={id} />
        <p role="status">Loading…</p>
      </section>
    );

  const fields: [string, React.ReactNode][] = [
    ['Status', <StatusBadge status={alert.status} />],
    ['Severity', <SeverityBadge severity={alert.severity} />],
    ['Rule', <Link href={`/rules/${alert.rule_id}`}>{alert.rule_title}</Link>],
    ['Created', formatTime(alert.created_at)],
    ['Event time', formatTime(alert.event_time)],
    ['Updated', formatTime(alert.updated_at)],
    ['Index pattern', alert.index_pattern],
    ['Host', alert.host],
    ['User', alert.user],
    ['Source IP', alert.source_ip],
    ['Tags', alert.tags?.join(', ')],
    ['Matches', (alert.occurrences ?? 1) > 1 ? `${alert.occurrences}, the last ${formatTime(alert.last_seen_at)}` : undefined],
    ['Grouped by', alert.suppression_group ? Object.entries(alert.suppression_group).map(([f, v]) => `${f} = ${v === null ? '(none)' : String(v)}`).join(', ') : undefined],
    ['Events', (alert.event_ids?.length ?? 0) > 1 ? <EventIds ids={alert.event_ids!} total={alert.occurrences ?? alert.event_ids!.length} /> : undefined],
    ['Assignee', alert.assignee_name ?? 'Unassigned'],
    ['Acknowledged', alert.acknowledged_at ? `${formatTime(alert.acknowledged_at)} by ${alert.acknowledged_by ?? ''}` : undefined],
    ['Alert id', <code>{alert.id}</code>],
  ];

  return (
    <section aria-labelledby="alert-title">
      <ListStepper id={id} />
      <div className="page-head">
        <h1 id="alert-title">{alert.rule_title}</h1>
        <SeverityBadge severity={alert.severity} />
        <StatusBadge status={alert.status} />
      </div>

      <div className="columns">
        <div>
          <h2>Details</h2>
          <dl className="fields">
            {fields
              .filter(([, v]) => v !== undefined && v !== null && v !== '')
              .map(([k, v]) => (
                <div key={k}>
                  <dt>{k}</dt>
                  <dd>{v}</dd>
                </div>
              ))}
          </dl>

          {triage && <StatusActions alert={alert} onChanged={load} />}

          <h2>Rule context</h2>
          {contextError ? (
            <p className="error" role="alert">
              {contextError}
            </p>
          ) : context ? (
            <RuleContextPanel rule={context.rule} />
          ) : (
            <p role="status">Loading the rule…</p>
          )}

          <h2>Related alerts{context ? ` (${context.related.length})` : ''}</h2>
          {context ? <RelatedAlerts related={context.related} /> : !contextError && <p role="status">Loading related alerts…</p>}

          <h2>Threat intelligence</h2>
          <IndicatorCards enrichment={alert.enrichment} />

          <h2>Comments ({comments.length})</h2>
          <ol className="comments">
            {comments.map((c) => (
              <li key={c.id}>
                <div className="muted">
                  <strong>{c.user}</strong> · {formatTime(c.created_at)}
                </div>
                <p className="comment-text">{c.text}</p>
              </li>
            ))}
          </ol>
          {triage && <CommentForm alertId={alert.id} onAdded={(c) => setComments((list) => [...list, c])} />}
        </div>

        <div>
          <h2>Process tree</h2>
          <ProcessAncestry alertId={alert.id} />

          <h2>Event</h2>
          {context && context.matched_fields.length > 0 ? (
            <MatchedOn fields={context.matched_fields} />
          ) : (
            named.size > 0 && (
              <p className="muted">
                Matched on: {[...named].map((f) => <mark key={f}>{f}</mark>).reduce<React.ReactNode[]>((acc, el, i) => (i ? [...acc, ', ', el] : [el]), [])}
              </p>
            )
          )}
          {triage && pick && <ExceptionForm ruleId={alert.rule_id} pick={pick} onClose={() => setPick(null)} />}
          <EventTree key={placed ? 'placed' : 'named'} event={alert.event} highlighted={placed ?? named} exact={!!placed} onPick={triage ? setPick : undefined} />
        </div>
      </div>
    </section>
  );
}

function StatusActions({ alert, onChanged }: { alert: AlertDetail; onChanged(): Promise<void> }) {
  const [comment, setComment] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const change = async (body: { status: AlertStatus } | { assignee: string | null }) => {
    setBusy(true);
    setMessage(null);
    try {
      const closing = 'status' in body && alert.status === 'new' && closes(body.status);
      await api.patch(`/api/alerts/${alert.id}`, { ...body, ...(closing ? { acknowledge_first: true } : {}), ...(comment.trim() ? { comment: comment.trim() } : {}) });
      setComment('');
      await onChanged();
    } catch (e) {
      setMessage(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="status-actions">
      <h2>Triage</h2>
      <label>
        Comment with the status change (optional)
        <textarea rows={2} maxLength={10000} value={comment} onChange={(e) => setComment(e.target.value)} />
      </label>
      <div className="button-row">
        {offeredMoves(alert.status).map((status) => (
          <button key={status} type="button" disabled={busy} onClick={() => void change({ status })}>
            {moveLabel(status)}
          </button>
        ))}
      </div>
      {alert.status === 'new' && <p className="muted">Resolving or marking a new alert a false positive acknowledges it first; both moves are recorded.</p>}
      <h3>Owner</h3>
      <AssigneeChoice current={alert.assignee ?? null} disabled={busy} onAssign={(assignee) => void change({ assignee })} />
      {message && (
        <p className="error" role="alert">
          {message}
        </p>
      )}
    </div>
  );
}

function CommentForm({ alertId, onAdded }: { alertId: string; onAdded(comment: Comment): void }) {
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    try {
      onAdded(await api.post<Comment>(`/api/alerts/${alertId}/comments`, { text }));
      setText('');
      setError(null);
    } catch (e) {
      setError(errorText(e));
    }
  };
  return (
    <form onSubmit={submit} className="comment-form">
      <label>
        Add a comment
        <textarea rows={3} required maxLength={10000} value={text} onChange={(e) => setText(e.target.value)} />
      </label>
      <button type="submit" disabled={!text.trim()}>
        Comment
      </button>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

function ExceptionForm({ ruleId, pick, onClose }: { ruleId: string; pick: FieldPick; onClose(): void }) {
  const [operator, setOperator] = useState<(typeof OPERATORS)[number]>('equals');
  const [value, setValue] = useState(pick.value);
  const [reason, setReason] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  useEffect(() => {
    setValue(pick.value);
    setDone(false);
    setMessage(null);
  }, [pick]);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    try {
      await api.post(`/api/rules/${ruleId}/exceptions`, { field: pick.field, operator, value, ...(reason.trim() ? { reason: reason.trim() } : {}) });
      setDone(true);
      setMessage(`Exception created: events with ${pick.field} ${operator} "${value}" no longer raise alerts from this rule.`);
    } catch (e) {
      setMessage(errorText(e));
    }
  };
  return (
    <form className="panel" onSubmit={submit} aria-label="Create an exception">
      <h3>Exception on {pick.field}</h3>
      <div className="row">
        <label>
          Operator
          <select value={operator} onChange={(e) => setOperator(e.target.value as (typeof OPERATORS)[number])}>
            {OPERATORS.filter((o) => o !== 'in').map((o) => (
              <option key={o}>{o}</option>
            ))}
          </select>
        </label>
        <label className="grow">
          Value
          <input value={value} required onChange={(e) => setValue(e.target.value)} />
        </label>
      </div>
      <label>
        Reason
        <input value={reason} maxLength={2000} onChange={(e) => setReason(e.target.value)} />
      </label>
      <div className="button-row">
        <button type="submit" disabled={done}>
          Create exception
        </button>
        <button type="button" className="secondary" onClick={onClose}>
          Close
        </button>
      </div>
      {message && <p role="status">{message}</p>}
    </form>
  );
}

/** The events an alert stands for (their content hashes), folded away beyond the first. */
function EventIds({ ids, total }: { ids: string[]; total: number }) {
  return (
    <details>
      <summary>
        {ids.length} event ids{total > ids.length ? ` (the first ${ids.length} of ${total})` : ''}
      </summary>
      <ul className="mono">
        {ids.map((id) => (
          <li key={id}>{id}</li>
        ))}
      </ul>
    </details>
  );
}
