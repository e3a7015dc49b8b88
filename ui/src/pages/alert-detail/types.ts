// The answers the alert detail page reads besides the alert itself: its context (rule description,
// related alerts, where the matched fields sit in the event) and its process ancestry.
import type { Severity } from '../../types';

export interface RuleContext {
  id: string;
  title: string;
  description: string | null;
  author: string | null;
  false_positives: string[];
  references: string[];
  techniques: { id: string; url: string }[];
}

export interface RelatedAlert {
  id: string;
  rule_title: string;
  severity: Severity;
  status: string;
  event_time: string;
  created_at: string;
  shared: ('host' | 'user' | 'source_ip')[];
}

/** A field the rule matched on, with the paths of the stored event it stands for (empty: not found). */
export interface MatchedField {
  field: string;
  value: unknown;
  paths: string[];
}

export interface AlertContext {
  rule: RuleContext | null;
  related: RelatedAlert[];
  matched_fields: MatchedField[];
}

/** One indicator of an alert's enrichment, as the threat-intel lookup lists it. */
export interface IndicatorMatch {
  type?: string;
  value?: string;
  feed?: string;
  feed_id?: string;
  matched_field?: string;
  matched_value?: string;
  score?: number;
}

/** One process of an alert's ancestry (GET /api/alerts/{id}/process_tree). */
export interface ProcessNode {
  key: string;
  parent_key: string | null;
  depth: number;
  process_guid?: string;
  process_id: number | null;
  parent_process_guid?: string;
  parent_process_id: number | null;
  image: string | null;
  command_line: string | null;
  user: string | null;
  event_time: string | null;
  event_ids: string[];
  is_alert_process: boolean;
}

export interface ProcessTree {
  root: string | null;
  alert_process: string | null;
  nodes: ProcessNode[];
  truncated: boolean;
  scanned_events: number;
  window: { from: string; to: string };
  unavailable_reason?: string;
}
