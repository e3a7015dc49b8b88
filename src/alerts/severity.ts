// Alert severities (from the rule's Sigma level) and their rank, so "sort by severity" means
// critical first (descending) rather than alphabetical.
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'informational'] as const;
export type Severity = (typeof SEVERITIES)[number];

const RANK: Record<Severity, number> = { critical: 4, high: 3, medium: 2, low: 1, informational: 0 };

export const severityRank = (severity: string): number => RANK[severity as Severity] ?? 0;
