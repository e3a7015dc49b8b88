// The queue's columns: their labels, the sort field each offers, which are shown by default, and the
// analyst's choice of columns kept in this browser (localStorage), read back on the next visit.
export const COLUMNS = [
  { key: 'severity', label: 'Severity', sort: 'severity' },
  { key: 'event_time', label: 'Event time', sort: 'event_time' },
  { key: 'created_at', label: 'Detected', sort: 'created_at' },
  { key: 'rule_title', label: 'Rule', sort: 'rule_title' },
  { key: 'status', label: 'Status', sort: 'status' },
  { key: 'assignee', label: 'Assignee' },
  { key: 'host', label: 'Host', sort: 'host' },
  { key: 'user', label: 'User', sort: 'user' },
  { key: 'source_ip', label: 'Source IP', sort: 'source_ip' },
  { key: 'index_pattern', label: 'Index pattern' },
  { key: 'risk', label: 'Risk', sort: 'risk_score' },
] as const;

export type ColumnKey = (typeof COLUMNS)[number]['key'];

/** Shown until the analyst chooses: every column but the index pattern. */
export const DEFAULT_COLUMNS: readonly ColumnKey[] = COLUMNS.map((c) => c.key).filter((k) => k !== 'index_pattern');

const STORAGE_KEY = 'vigil.alerts.columns';
const KNOWN = new Set<string>(COLUMNS.map((c) => c.key));

/** The columns chosen in this browser (the defaults when none were, or the stored value is unreadable). */
export function storedColumns(): ColumnKey[] {
  try {
    const raw = window.localStorage.getItem(STORAGE_KEY);
    const parsed: unknown = raw ? JSON.parse(raw) : null;
    if (Array.isArray(parsed)) {
      const keys = parsed.filter((k): k is ColumnKey => typeof k === 'string' && KNOWN.has(k));
      if (keys.length > 0) return keys;
    }
  } catch {
    // Storage refused (private mode) or a broken value: the defaults.
  }
  return [...DEFAULT_COLUMNS];
}

export function storeColumns(keys: readonly ColumnKey[]): void {
  try {
    window.localStorage.setItem(STORAGE_KEY, JSON.stringify(keys));
  } catch {
    // Not kept; the choice still holds for this page.
  }
}
