// The rows of an index pattern's own field mappings (Sigma field → event field): inputs for admins,
// each with the validation error that belongs to it; plain text for everyone else.
import { useEffect } from 'react';
import type { FieldMapping } from './types';
import { ListTable } from './ListTable';
import type { DraftRow, RowErrors } from './mapping-draft';

interface MappingTableProps {
  rows: DraftRow[];
  errors: RowErrors;
  editable: boolean;
  /** Event fields offered while typing an event field (the field catalogue). */
  suggestions: string[];
  /** The input that gets the focus (in a row just added). */
  focus: { key: number; part: keyof FieldMapping } | null;
  onChange(key: number, part: keyof FieldMapping, value: string): void;
  onRemove(key: number): void;
}

const SUGGESTIONS_ID = 'catalogue-field-suggestions';

function inputId(key: number, part: keyof FieldMapping) {
  return `mapping-${key}-${part}`;
}

function Cell({ row, part, n, errors, onChange }: { row: DraftRow; part: keyof FieldMapping; n: number; errors: RowErrors; onChange: MappingTableProps['onChange'] }) {
  const error = errors[row.key]?.[part];
  const id = inputId(row.key, part);
  return (
    <td>
      <input
        id={id}
        className={error ? 'invalid' : undefined}
        aria-label={`${part === 'sigma_field' ? 'Sigma field' : 'Event field'} of mapping ${n}`}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        list={part === 'target_field' ? SUGGESTIONS_ID : undefined}
        autoComplete="off"
        spellCheck={false}
        value={row[part]}
        onChange={(e) => onChange(row.key, part, e.target.value)}
      />
      {error && (
        <span id={`${id}-error`} className="field-error">
          {error}
        </span>
      )}
    </td>
  );
}

export function MappingTable({ rows, errors, editable, suggestions, focus, onChange, onRemove }: MappingTableProps) {
  useEffect(() => {
    if (focus === null) return;
    const input = document.getElementById(inputId(focus.key, focus.part));
    if (input instanceof HTMLInputElement) {
      input.focus();
      input.select();
    }
  }, [focus]);

  if (rows.length === 0) return <p className="muted">This pattern has no mappings of its own{editable ? ': add one, or map a field from the catalogue.' : '.'}</p>;

  if (!editable)
    return (
      <ListTable caption="Field mappings of this pattern" columns={['Sigma field', 'Event field']}>
        {rows.map((row) => (
          <tr key={row.key}>
            <td className="mono">{row.sigma_field}</td>
            <td className="mono">{row.target_field}</td>
          </tr>
        ))}
      </ListTable>
    );

  return (
    <>
      <ListTable caption="Field mappings of this pattern" columns={['Sigma field', 'Event field', 'Actions']} className="mapping-table">
        {rows.map((row, i) => (
          <tr key={row.key} className={errors[row.key] ? 'mapping-error' : undefined}>
            <Cell row={row} part="sigma_field" n={i + 1} errors={errors} onChange={onChange} />
            <Cell row={row} part="target_field" n={i + 1} errors={errors} onChange={onChange} />
            <td>
              <button type="button" className="tiny danger" aria-label={`Remove mapping ${i + 1}`} onClick={() => onRemove(row.key)}>
                Remove
              </button>
            </td>
          </tr>
        ))}
      </ListTable>
      <datalist id={SUGGESTIONS_ID}>
        {suggestions.map((f) => (
          <option key={f} value={f} />
        ))}
      </datalist>
    </>
  );
}
