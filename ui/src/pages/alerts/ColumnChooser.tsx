// "Columns": a disclosure with one checkbox per column of the queue and a reset to the defaults; at
// least one column stays shown. The boxes exist only while it is open, so their names never stand
// beside the filters' own ("Status", "Host"). The choice is stored by the caller (columns.ts).
import { useState } from 'react';
import { COLUMNS, DEFAULT_COLUMNS, type ColumnKey } from './columns';

export function ColumnChooser({ shown, onChange }: { shown: readonly ColumnKey[]; onChange(keys: ColumnKey[]): void }) {
  const [open, setOpen] = useState(false);
  const toggle = (key: ColumnKey, on: boolean) => {
    // The table keeps the columns' own order, whatever order they were ticked in.
    const next = COLUMNS.map((c) => c.key).filter((k) => (k === key ? on : shown.includes(k)));
    if (next.length > 0) onChange(next);
  };
  return (
    <details className="column-chooser" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>Columns</summary>
      {open && (
        <fieldset>
          <legend className="visually-hidden">Columns shown</legend>
          {COLUMNS.map((c) => (
            <label key={c.key} className="inline">
              <input type="checkbox" checked={shown.includes(c.key)} disabled={shown.length === 1 && shown.includes(c.key)} onChange={(e) => toggle(c.key, e.target.checked)} />
              {c.label}
            </label>
          ))}
          <button type="button" className="secondary tiny" onClick={() => onChange([...DEFAULT_COLUMNS])}>
            Default columns
          </button>
        </fieldset>
      )}
    </details>
  );
}
