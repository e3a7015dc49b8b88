// How matches become an alert's risk: each matched indicator scores its own score when its feed format
// gave one (ThreatFox confidence_level, STIX confidence, MISP threat level, a CSV score column), else
// its feed's risk_score (DEFAULT_FEED_SCORE unless set at upload). The alert's risk_score is the highest
// of them; risk_level follows the bands <40 low, 40–69 medium, 70–89 high, ≥90 critical.
import type { Enrichment } from './enricher.js';

export const DEFAULT_FEED_SCORE = 75;

export function riskLevel(score: number): Enrichment['risk_level'] {
  if (score >= 90) return 'critical';
  if (score >= 70) return 'high';
  if (score >= 40) return 'medium';
  return 'low';
}
