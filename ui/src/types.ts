// The API records the UI reads (the parts of them it uses).
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'informational'] as const;
export type Severity = (typeof SEVERITIES)[number];
export const ALERT_STATUSES = ['new', 'acknowledged', 'resolved', 'false_positive'] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];

export interface User {
  id: string;
  username: string;
  role: 'admin' | 'analyst' | 'viewer';
  two_factor_enabled?: boolean;
  auth_method?: 'local' | 'sso';
  /** The signed-in user's own setting: alerts they acknowledge without an owner become theirs. */
  assign_on_acknowledge?: boolean;
}

export interface Enrichment {
  risk_level: string;
  risk_score: number;
  indicators: Record<string, unknown>[];
}

export interface Alert {
  id: string;
  rule_id: string;
  rule_title: string;
  severity: Severity;
  level?: string;
  status: AlertStatus;
  tags?: string[];
  index_pattern?: string;
  event_time?: string;
  created_at: string;
  updated_at: string;
  source_ip?: string;
  user?: string;
  host?: string;
  enrichment?: Enrichment;
  acknowledged_at?: string;
  acknowledged_by?: string;
  occurrences?: number;
  last_seen_at?: string;
  suppression_group?: Record<string, unknown>;
  /** The owner's user id, null when no one owns the alert; `assignee_name` is their username. */
  assignee?: string | null;
  assignee_name?: string;
}

export interface AlertDetail extends Alert {
  event: Record<string, unknown>;
  matched_conditions: Record<string, Record<string, unknown>>[];
  comments_count: number;
  event_ids?: string[];
}

/** A rule's suppression setting. */
export interface RuleSuppression {
  rule_id: string;
  group_by: string[];
  window_seconds: number;
  updated_by: string;
  updated_at: string;
}

export interface Comment {
  id: string;
  alert_id: string;
  user: string;
  text: string;
  created_at: string;
}

export interface Rule {
  id: string;
  title: string;
  yaml_content: string;
  status: 'deployed' | 'undeployed';
  severity: Severity;
  level: Severity;
  tags: string[];
  description: string | null;
  author: string | null;
  logsource: Record<string, string>;
  index_pattern: string | null;
  version: number;
  deployed_version: number | null;
  deployed_at: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export interface RuleVersion {
  version: number;
  title: string;
  yaml_content: string;
  changed_by: string;
  changed_at: string;
  change_reason: string | null;
}

export interface RuleException {
  id: string;
  rule_id: string;
  field: string;
  operator: string;
  value: string | string[];
  reason: string;
  enabled: boolean;
  created_by: string;
  created_at: string;
  expires_at: string | null;
  expired: boolean;
  hit_count: number;
  last_hit_at: string | null;
  /** On creation with close_matching: the open alerts closed. */
  closed_alerts?: number;
}

/** What an exception would cover (POST /api/rules/{id}/exceptions/preview). */
export interface ExceptionPreview {
  open_alerts: number;
  sample_alert_ids: string[];
  open_alerts_scanned: number;
  open_alerts_capped: boolean;
  events_last_7_days: number;
  events_scanned: number;
  events_capped: boolean;
}

export interface TestResult {
  matches: boolean;
  rule_id: string | null;
  rule_title: string;
  matched_conditions: Record<string, Record<string, unknown>>[];
  excepted?: boolean;
  /** Correlation rules: every window that fires over the samples. */
  firings?: { group: Record<string, unknown>; window_start: string; window_end: string; value: number; event_count: number; events: (number | string)[] }[];
}

export interface HistoricalResult {
  rule_id: string;
  rule_title: string;
  time_range: string;
  matches: number;
  events_scanned?: number;
  sample_matches: Record<string, unknown>[];
}

export interface Stats {
  alerts: { total: number; open: number; last_24h: number; by_status: Record<string, number>; by_severity: Record<string, number> };
  rules: { total: number; deployed: number; undeployed: number };
  top_rules: { rule_id: string; rule_title: string; count: number }[];
  timeline: { time: string; count: number }[];
  triage: {
    mean_time_to_acknowledge_seconds: number | null;
    mean_time_to_resolve_seconds: number | null;
    oldest_open_alert_age_seconds: number | null;
    open_by_assignee: { assignee: string | null; assignee_name: string | null; count: number }[];
    rule_precision: { rule_id: string; rule_title: string; closed: number; false_positives: number; false_positive_rate: number }[];
  };
  /** `timeline`: events received per UTC hour, the same 24 hours as the alert timeline. */
  ingest: { events_total: number; events_last_24h: number; timeline: { time: string; count: number }[] };
}

export interface IndexPattern {
  id: string;
  name: string;
  description?: string | null;
  timestamp_field?: string;
  is_default?: boolean;
  retention_days?: number;
  percolator_index?: string;
  ingest_token?: string;
  created_at?: string;
}

export interface ApiKey {
  id: string;
  name: string;
  key?: string;
  prefix?: string;
  tier?: string;
  created_at: string;
  owner?: string;
  last_used_at?: string | null;
}

export interface AuditEntry {
  id?: string | number;
  actor?: string | null;
  action: string;
  target?: string | null;
  target_type?: string | null;
  target_id?: string | null;
  ip?: string | null;
  created_at?: string;
  at?: string;
  details?: unknown;
}
