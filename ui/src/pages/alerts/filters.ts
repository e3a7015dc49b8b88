// The queue's filters as kept in the URL, and the same filters as the API's list filters (for the list,
// the groups, and bulk changes by filter).
export const RANGES: Record<string, { label: string; ms: number }> = {
  '1h': { label: 'Last hour', ms: 3600_000 },
  '24h': { label: 'Last 24 hours', ms: 86_400_000 },
  '7d': { label: 'Last 7 days', ms: 7 * 86_400_000 },
  '30d': { label: 'Last 30 days', ms: 30 * 86_400_000 },
};

/** What the queue can group by: the URL's `group` value and its name. */
export const GROUPINGS: Record<string, string> = { rule_id: 'Rule', host: 'Host', user: 'User' };

export interface Filters {
  status: string;
  severity: string;
  rule_id: string;
  /** '' anyone, 'me' or 'none' (unassigned). */
  assignee: string;
  range: string;
  q: string;
  /** '' for the plain list, else a key of GROUPINGS. */
  group: string;
  sort_by: string;
  sort_order: string;
  page: number;
  page_size: number;
}

export function filtersOf(params: URLSearchParams): Filters {
  const group = params.get('group') ?? '';
  return {
    status: params.get('status') ?? '',
    severity: params.get('severity') ?? '',
    rule_id: params.get('rule_id') ?? '',
    assignee: params.get('assignee') ?? '',
    range: params.get('range') ?? '',
    q: params.get('q') ?? '',
    group: group in GROUPINGS ? group : '',
    sort_by: params.get('sort_by') ?? 'created_at',
    sort_order: params.get('sort_order') ?? 'desc',
    page: Math.max(1, Number(params.get('page') ?? 1) || 1),
    page_size: Number(params.get('page_size') ?? 50) || 50,
  };
}

export type ApiFilter = Record<string, string>;

/** The API's filter for these filters (the time range counted back from now). */
export function apiFilter(filters: Filters): ApiFilter {
  const range = RANGES[filters.range];
  const all: Record<string, string | undefined> = {
    status: filters.status,
    severity: filters.severity,
    rule_id: filters.rule_id,
    assignee: filters.assignee,
    search: filters.q.length >= 3 ? filters.q : undefined,
    created_after: range ? new Date(Date.now() - range.ms).toISOString() : undefined,
  };
  return Object.fromEntries(Object.entries(all).filter((entry): entry is [string, string] => !!entry[1]));
}
