// The seam between detection and threat intelligence: given a matched event and its entities, the
// indicators it carries (looked up in memory, never a round trip per event) as an alert's enrichment.
export interface Enrichment {
  risk_level: 'low' | 'medium' | 'high' | 'critical';
  risk_score: number;
  indicators: Record<string, unknown>[];
}

export interface AlertEntities {
  source_ip?: string;
  user?: string;
  host?: string;
}

export interface Enricher {
  /** The enrichment of an alert on `event`, or undefined when no observable is a known indicator. */
  enrich(event: Record<string, unknown>, entities: AlertEntities): Enrichment | undefined;
}

/** No feeds loaded: nothing is ever enriched. */
export const NO_ENRICHMENT: Enricher = { enrich: () => undefined };
