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
