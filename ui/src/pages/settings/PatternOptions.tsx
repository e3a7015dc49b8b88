// Settings → one index pattern's other settings: description, timestamp field, retention, whether it
// is the default pattern, and the event fields an alert's source IP, user and host are read from.
// Admins change them (only what changed is sent); the others read them.
import { useState } from 'react';
import { SaveOutcome } from './Message';
import { usePatternSave } from './usePatternSave';
import type { EntityKind, PatternSettings } from './types';

const ENTITIES: [EntityKind, string][] = [
  ['source_ip', 'Source IP fields'],
  ['user', 'User fields'],
  ['host', 'Host fields'],
];

interface Draft {
  description: string;
  timestamp_field: string;
  retention_days: string;
  is_default: boolean;
  entity_fields: Record<EntityKind, string>;
}

function draftOf(p: PatternSettings): Draft {
  const entities = p.entity_fields ?? { source_ip: [], user: [], host: [] };
  return {
    description: p.description ?? '',
    timestamp_field: p.timestamp_field ?? '@timestamp',
    retention_days: String(p.retention_days ?? 7),
    is_default: p.is_default ?? false,
    entity_fields: { source_ip: entities.source_ip.join('\n'), user: entities.user.join('\n'), host: entities.host.join('\n') },
  };
}

const lines = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

/** The settings that differ from the saved pattern, as the PATCH body. */
function changesOf(draft: Draft, saved: Draft): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (draft.description !== saved.description) out.description = draft.description;
  if (draft.timestamp_field.trim() !== saved.timestamp_field) out.timestamp_field = draft.timestamp_field.trim();
  if (draft.retention_days.trim() !== saved.retention_days) out.retention_days = Number(draft.retention_days.trim());
  if (draft.is_default !== saved.is_default) out.is_default = draft.is_default;
  const entities: Partial<Record<EntityKind, string[]>> = {};
  for (const [kind] of ENTITIES) if (lines(draft.entity_fields[kind]).join('\n') !== saved.entity_fields[kind]) entities[kind] = lines(draft.entity_fields[kind]);
  if (Object.keys(entities).length > 0) out.entity_fields = entities;
  return out;
}

export function PatternOptions({ pattern, admin, onSaved }: { pattern: PatternSettings; admin: boolean; onSaved(p: PatternSettings): void }) {
  const saved = draftOf(pattern);
  const [draft, setDraft] = useState<Draft>(saved);
  const { outcome, errors, save: send, reset, clearOutcome } = usePatternSave(pattern, onSaved);
  const changes = changesOf(draft, saved);
  const dirty = Object.keys(changes).length > 0;

  const set = (patch: Partial<Draft>) => {
    setDraft((d) => ({ ...d, ...patch }));
    clearOutcome();
  };
  const save = async () => {
    const updated = await send(changes, 'Settings saved.');
    if (updated) setDraft(draftOf(updated));
  };

  return (
    <form
      className="panel"
      aria-label={`Settings of ${pattern.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <h3>Other settings of {pattern.name}</h3>
      <SaveOutcome outcome={outcome} errors={errors} />
      <fieldset className="plain" disabled={!admin}>
        <div className="row">
          <label className="grow">
            Description
            <input value={draft.description} maxLength={2000} onChange={(e) => set({ description: e.target.value })} />
          </label>
          <label>
            Timestamp field
            <input value={draft.timestamp_field} required onChange={(e) => set({ timestamp_field: e.target.value })} />
          </label>
          <label>
            Retention (days)
            <input type="number" min={1} max={3650} required value={draft.retention_days} onChange={(e) => set({ retention_days: e.target.value })} />
          </label>
          <label className="inline">
            <input type="checkbox" checked={draft.is_default} onChange={(e) => set({ is_default: e.target.checked })} /> Default pattern for new rules
          </label>
        </div>
        <p className="muted small">An alert's source IP, user and host are read from the first of these event fields that holds a value (one field per line).</p>
        <div className="row">
          {ENTITIES.map(([kind, label]) => (
            <label key={kind} className="grow">
              {label}
              <textarea className="code" rows={5} spellCheck={false} value={draft.entity_fields[kind]} onChange={(e) => set({ entity_fields: { ...draft.entity_fields, [kind]: e.target.value } })} />
            </label>
          ))}
        </div>
      </fieldset>
      {admin && (
        <div className="button-row">
          <button type="submit" disabled={!dirty}>
            Save settings
          </button>
          <button
            type="button"
            className="secondary"
            disabled={!dirty}
            onClick={() => {
              setDraft(saved);
              reset();
            }}
          >
            Discard changes
          </button>
        </div>
      )}
    </form>
  );
}
