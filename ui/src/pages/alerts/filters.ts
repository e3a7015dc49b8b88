// The queue's filters as kept in the URL, and the same filters as the API's list filters (for the list,
// the groups, the histogram and bulk changes by filter). Time filters are on the events' own time
// (`event_time`): a preset counted back from now (`range=24h`), or absolute bounds (`event_after`,
// `event_before`, ISO times) which win over a preset.
export const RANGES: Record<string, { label: string; ms: number }> = {
  '1h': { label: 'Last hour', ms: 3600_000 },
  '24h': { label: 'Last 24 hours', ms: 86_400_000 },
  '7d': { label: 'Last 7 days', ms: 7 * 86_400_000 },
  '30d': { label: 'Last 30 days', ms: 30 * 86_400_000 },
};

/** What the queue can group by: the URL's `group` value and its name. */
export const GROUPINGS: Record<string, string> = { rule_id: 'Rule', host: 'Host', user: 'User' };

/** The exact-value filters on an alert's entities and pattern, with their labels (URL name = API name). */
export const ENTITY_FILTERS = { host: 'Host', user: 'User', source_ip: 'Source IP', index_pattern: 'Index pattern' } as const;
export type EntityFilter = keyof typeof ENTITY_FILTERS;

export interface Filters {
  status: string;
  severity: string;
  rule_id: string;
  /** '' anyone, 'me' or 'none' (unassigned). */
  assignee: string;
  /** A key of RANGES, or '' (then the absolute bounds, if any). */
  range: string;
  /** Absolute event-time bounds (exclusive), ISO times or ''. */
  event_after: string;
  event_before: string;
  host: string;
  user: string;
  source_ip: string;
  index_pattern: string;
  q: string;
  /** '' for the plain list, else a key of GROUPINGS. */
  group: string;
  sort_by: string;
  sort_order: string;
  page: number;
  page_size: number;
}

const isoOrEmpty = (value: string | null) => (value && !Number.isNaN(Date.parse(value)) ? value : '');

export function filtersOf(params: URLSearchParams): Filters {
  const group = params.get('group') ?? '';
  const event_after = isoOrEmpty(params.get('event_after'));
  const event_before = isoOrEmpty(params.get('event_before'));
  const range = params.get('range') ?? '';
  return {
    status: params.get('status') ?? '',
    severity: params.get('severity') ?? '',
    rule_id: params.get('rule_id') ?? '',
    assignee: params.get('assignee') ?? '',
    range: event_after || event_before || !(range in RANGES) ? '' : range,
    event_after,
    event_before,
    host: params.get('host') ?? '',
    user: params.get('user') ?? '',
    source_ip: params.get('source_ip') ?? '',
    index_pattern: params.get('index_pattern') ?? '',
    q: params.get('q') ?? '',
    group: group in GROUPINGS ? group : '',
    sort_by: params.get('sort_by') ?? 'created_at',
    sort_order: params.get('sort_order') ?? 'desc',
    page: Math.max(1, Number(params.get('page') ?? 1) || 1),
    page_size: Number(params.get('page_size') ?? 50) || 50,
  };
}

export type ApiFilter = Record<string, string>;

/** The event-time bounds of these filters: a preset ends now, absolute bounds are as given. */
export function eventBounds(filters: Filters, now = Date.now()): { event_after?: string; event_before?: string } {
  const range = RANGES[filters.range];
  if (range) return { event_after: new Date(now - range.ms).toISOString(), event_before: new Date(now).toISOString() };
  return { event_after: filters.event_after || undefined, event_before: filters.event_before || undefined };
}

/** The API's filter for these filters (a preset counted back from now; it has no upper bound, so arrivals stay in). */
export function apiFilter(filters: Filters): ApiFilter {
  const bounds = eventBounds(filters);
  const all: Record<string, string | undefined> = {
    status: filters.status,
    severity: filters.severity,
    rule_id: filters.rule_id,
    assignee: filters.assignee,
    host: filters.host,
    user: filters.user,
    source_ip: filters.source_ip,
    index_pattern: filters.index_pattern,
    search: filters.q.length >= 3 ? filters.q : undefined,
    event_after: bounds.event_after,
    event_before: filters.range ? undefined : bounds.event_before,
  };
  return Object.fromEntries(Object.entries(all).filter((entry): entry is [string, string] => !!entry[1]));
}

/** True when any filter narrows the list (the "Clear filters" button shows then). */
export function anyFilter(filters: Filters): boolean {
  return Object.keys(apiFilter(filters)).length > 0;
}
