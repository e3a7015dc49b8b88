// The field-mapping table being edited: rows with stable keys, what is sent to the API, and where the
// API's (or our own) validation errors belong.
import type { FieldError } from '../../api';
import type { FieldMapping } from './types';

export interface DraftRow extends FieldMapping {
  key: number;
}

export type RowErrors = Record<number, Partial<Record<keyof FieldMapping, string>>>;

let nextKey = 1;

export function newRow(mapping: FieldMapping = { sigma_field: '', target_field: '' }): DraftRow {
  return { key: nextKey++, sigma_field: mapping.sigma_field, target_field: mapping.target_field };
}

export function rowsOf(mappings: FieldMapping[] | undefined): DraftRow[] {
  return (mappings ?? []).map((m) => newRow(m));
}

/** The same mappings in the same order (keys and surrounding blanks aside). */
export function sameMappings(a: FieldMapping[], b: FieldMapping[]): boolean {
  return a.length === b.length && a.every((m, i) => m.sigma_field.trim() === b[i].sigma_field && m.target_field.trim() === b[i].target_field);
}

export interface Prepared {
  mappings: FieldMapping[];
  /** The key of the row each sent mapping came from (the API names errors by position). */
  keys: number[];
  errors: RowErrors;
}

/** Trims the rows and leaves out the empty ones; a half-filled row is an error at that row. */
export function prepare(rows: DraftRow[]): Prepared {
  const out: Prepared = { mappings: [], keys: [], errors: {} };
  for (const row of rows) {
    const sigma_field = row.sigma_field.trim();
    const target_field = row.target_field.trim();
    if (!sigma_field && !target_field) continue;
    if (!sigma_field) out.errors[row.key] = { sigma_field: 'Enter the Sigma field that rules name' };
    else if (!target_field) out.errors[row.key] = { target_field: 'Enter the event field it is read from' };
    out.mappings.push({ sigma_field, target_field });
    out.keys.push(row.key);
  }
  return out;
}

/**
 * Splits the API's field errors into those of a mapping row (`body.field_mappings.3.target_field`,
 * placed at the row that was sent in position 3) and the others.
 */
export function placeErrors(errors: FieldError[], keys: number[]): { rows: RowErrors; other: FieldError[] } {
  const rows: RowErrors = {};
  const other: FieldError[] = [];
  for (const error of errors) {
    const match = /^body\.field_mappings\.(\d+)(?:\.(sigma_field|target_field))?$/.exec(error.field);
    const key = match ? keys[Number(match[1])] : undefined;
    if (!match || key === undefined) {
      other.push(error);
      continue;
    }
    const part = (match[2] ?? 'target_field') as keyof FieldMapping;
    rows[key] = { ...rows[key], [part]: error.message };
  }
  return { rows, other };
}

/** A first guess at the Sigma name of an event field: its last path segment (`process.executable` → `executable`). */
export function guessSigmaField(eventField: string): string {
  const parts = eventField.split('.').filter(Boolean);
  return parts[parts.length - 1] ?? eventField;
}
