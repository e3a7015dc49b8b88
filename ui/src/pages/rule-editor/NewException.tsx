// Adding an exception from the rule editor: field, operator, value, reason and an optional expiry day.
// Before it is saved, a preview line says what it would cover ("covers N open alerts · would have
// suppressed M events in the last 7 days"), and a checkbox offers to close those open alerts as false
// positives in the same request.
import { useState, type FormEvent } from 'react';
import { api, ApiError, errorText } from '../../api';
import type { RuleException } from '../../types';
import { SaveOutcome, type Outcome } from '../settings/Message';
import { useExceptionPreview, type ExceptionDraft } from './useExceptionPreview';
import type { ExceptionPreview } from '../../types';

const OPERATORS = ['equals', 'contains', 'startswith', 'endswith', 'regex', 'cidr', 'in'] as const;

const plural = (n: number, one: string, many: string) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

/** The end of a chosen day (local time) as an ISO time, or undefined without one. */
function endOfDay(day: string): string | undefined {
  if (!day) return undefined;
  const date = new Date(`${day}T23:59:59`);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** Today as YYYY-MM-DD (local), the earliest expiry day offered. */
function today(): string {
  const now = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

export function previewLine(p: ExceptionPreview): string {
  const alerts = `covers ${plural(p.open_alerts, 'open alert', 'open alerts')}${p.open_alerts_capped ? ` (of the first ${p.open_alerts_scanned.toLocaleString()} examined)` : ''}`;
  const events = `would have suppressed ${plural(p.events_last_7_days, 'event', 'events')} in the last 7 days${p.events_capped ? ` (of the newest ${p.events_scanned.toLocaleString()} examined)` : ''}`;
  return `${alerts} · ${events}`;
}

export function NewException({ ruleId, onCreated }: { ruleId: string; onCreated(): void }) {
  const [field, setField] = useState('');
  const [operator, setOperator] = useState<(typeof OPERATORS)[number]>('equals');
  const [value, setValue] = useState('');
  const [reason, setReason] = useState('');
  const [expiry, setExpiry] = useState('');
  const [close, setClose] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [errors, setErrors] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const draft: ExceptionDraft = { field, operator, value: operator === 'in' ? value.split(',').map((v) => v.trim()).filter((v) => v !== '') : value };
  const { preview, problem, pending } = useExceptionPreview(ruleId, draft);
  const covered = preview?.open_alerts ?? 0;

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setErrors([]);
    setBusy(true);
    try {
      const expiresAt = endOfDay(expiry);
      const created = await api.post<RuleException>(`/api/rules/${ruleId}/exceptions`, {
        ...draft,
        field: field.trim(),
        ...(reason.trim() ? { reason: reason.trim() } : {}),
        ...(expiresAt ? { expires_at: expiresAt } : {}),
        ...(close && covered > 0 ? { close_matching: true } : {}),
      });
      const closed = created.closed_alerts !== undefined ? ` ${plural(created.closed_alerts, 'open alert', 'open alerts')} closed as false positive.` : '';
      setOutcome({ text: `Exception added: events with ${created.field} ${created.operator} the value no longer raise alerts from this rule.${closed}` });
      setField('');
      setValue('');
      setReason('');
      setExpiry('');
      setClose(false);
      onCreated();
    } catch (e) {
      setOutcome({ text: errorText(e), error: true });
      if (e instanceof ApiError) setErrors(e.errors.map((x) => `${x.field.replace(/^body\./, '')}: ${x.message}`));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="panel" onSubmit={save} aria-label="Add an exception">
      <h3>Add an exception</h3>
      <div className="row">
        <label className="grow">
          Field (dotted path in the event)
          <input value={field} required maxLength={256} onChange={(e) => setField(e.target.value)} />
        </label>
        <label>
          Operator
          <select value={operator} onChange={(e) => setOperator(e.target.value as (typeof OPERATORS)[number])}>
            {OPERATORS.map((o) => (
              <option key={o}>{o}</option>
            ))}
          </select>
        </label>
        <label className="grow">
          {operator === 'in' ? 'Values (comma-separated)' : 'Value'}
          <input value={value} required maxLength={4096} onChange={(e) => setValue(e.target.value)} />
        </label>
      </div>
      <div className="row">
        <label className="grow">
          Reason
          <input value={reason} maxLength={2000} onChange={(e) => setReason(e.target.value)} />
        </label>
        <label>
          Expires (end of day, optional)
          <input type="date" value={expiry} min={today()} onChange={(e) => setExpiry(e.target.value)} />
        </label>
      </div>
      <p className="muted" role="status" aria-live="polite">
        {preview ? previewLine(preview) : pending ? 'Checking what it would cover…' : (problem ?? 'Type a field and a value to see what the exception would cover.')}
      </p>
      {covered > 0 && (
        <label className="inline">
          <input type="checkbox" checked={close} onChange={(e) => setClose(e.target.checked)} /> close the {plural(covered, 'covered open alert', 'covered open alerts')} as false positive
        </label>
      )}
      <div className="button-row">
        <button type="submit" disabled={busy}>
          Add exception
        </button>
      </div>
      <SaveOutcome outcome={outcome} errors={errors} />
    </form>
  );
}
