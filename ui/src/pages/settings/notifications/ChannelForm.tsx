// The form of a notification channel: name, type and the type's settings, routing (lowest severity,
// index patterns, rule tags), the throttle and whether it is enabled. A save refused by the server
// shows each error beside its field and moves the focus to the first one.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { ApiError, errorText } from '../../../api';
import { SEVERITIES } from '../../../types';
import { Message, type Outcome } from '../Message';
import { emptyDraft, errorsByField, type ChannelDraft } from './channel-draft';
import { ConfigFields } from './ConfigFields';
import { Field } from './Field';
import { CHANNEL_TYPES, TYPE_LABELS, type ChannelType } from './types';

interface Props {
  initial: ChannelDraft;
  /** A new channel may still change its type; a stored one keeps it. */
  creating: boolean;
  submit: string;
  /** Saves; may answer what to say and the form as stored (a new secret then reads "***" again). */
  onSave(draft: ChannelDraft): Promise<{ done: string; stored: ChannelDraft } | void>;
}

export function ChannelForm({ initial, creating, submit, onSave }: Props) {
  const [draft, setDraft] = useState(initial);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [saving, setSaving] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  // Counts refused saves: after each one is drawn, the first field in error takes the focus.
  const [refused, setRefused] = useState(0);
  useEffect(() => {
    if (refused > 0) form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [refused]);
  const set = <K extends keyof ChannelDraft>(key: K, value: ChannelDraft[K]) => setDraft((d) => ({ ...d, [key]: value }));
  const setType = (type: ChannelType) => setDraft((d) => ({ ...d, type, config: d.type === type ? d.config : emptyDraft(type).config }));

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setSaving(true);
    try {
      const saved = await onSave(draft);
      setErrors({});
      setOutcome(saved ? { text: saved.done } : null);
      if (saved) setDraft(saved.stored);
    } catch (e) {
      const byField = e instanceof ApiError ? errorsByField(e.errors, draft) : {};
      setErrors(byField);
      setOutcome({ text: [errorText(e), byField['']].filter(Boolean).join(': '), error: true });
      setRefused((n) => n + 1);
    } finally {
      setSaving(false);
    }
  };

  return (
    <form ref={form} className="panel channel-form" aria-label={creating ? 'New notification channel' : 'Channel settings'} onSubmit={(e) => void save(e)}>
      <Message text={outcome?.text} error={outcome?.error} />
      <div className="row">
        <Field label="Name" error={errors.name}>
          {(c) => <input {...c} value={draft.name} required maxLength={100} autoComplete="off" onChange={(e) => set('name', e.target.value)} />}
        </Field>
        <Field label="Type" error={errors.type}>
          {(c) => (
            <select {...c} value={draft.type} disabled={!creating} onChange={(e) => setType(e.target.value as ChannelType)}>
              {CHANNEL_TYPES.map((t) => (
                <option key={t} value={t}>
                  {TYPE_LABELS[t]}
                </option>
              ))}
            </select>
          )}
        </Field>
        <label className="inline">
          <input type="checkbox" checked={draft.enabled} onChange={(e) => set('enabled', e.target.checked)} /> Enabled
        </label>
      </div>
      <ConfigFields type={draft.type} values={draft.config} errors={errors} onChange={(name, value) => set('config', { ...draft.config, [name]: value })} />
      <fieldset className="channel-settings">
        <legend>Which alerts it sends</legend>
        <Field label="Lowest severity" error={errors.min_severity}>
          {(c) => (
            <select {...c} value={draft.min_severity} onChange={(e) => set('min_severity', e.target.value as ChannelDraft['min_severity'])}>
              {[...SEVERITIES].reverse().map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Index patterns (optional)" hint="Comma-separated pattern names; empty: every pattern." error={errors.index_patterns} wide>
          {(c) => <input {...c} value={draft.index_patterns} autoComplete="off" onChange={(e) => set('index_patterns', e.target.value)} />}
        </Field>
        <Field label="Rule tags (optional)" hint="Comma-separated, any of them (e.g. attack.t1003); empty: every rule." error={errors.rule_tags} wide>
          {(c) => <input {...c} value={draft.rule_tags} autoComplete="off" onChange={(e) => set('rule_tags', e.target.value)} />}
        </Field>
      </fieldset>
      <fieldset className="channel-settings">
        <legend>Throttle</legend>
        <Field label="Messages per rule" hint="Past this, a rule's alerts go out as one digest per window." error={errors.max_per_rule}>
          {(c) => <input {...c} type="number" min={1} max={10000} required value={draft.max_per_rule} onChange={(e) => set('max_per_rule', e.target.value)} />}
        </Field>
        <Field label="Window (seconds)" error={errors.window_seconds}>
          {(c) => <input {...c} type="number" min={10} max={86400} required value={draft.window_seconds} onChange={(e) => set('window_seconds', e.target.value)} />}
        </Field>
      </fieldset>
      <button type="submit" disabled={saving}>
        {submit}
      </button>
    </form>
  );
}
