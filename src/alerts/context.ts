// What an analyst needs around an alert: its rule as the YAML describes it (description, false
// positives, references, author, ATT&CK techniques with links to their pages) and the related alerts,
// those sharing its host, user or source IP whose events happened within an hour of its event; and where
// the fields its rule matched on sit in its stored event (matched-paths.ts).
import { parse } from 'yaml';
import type { Queryable } from '../db/database.js';
import { getPreset } from '../sigma/index.js';
import { matchedFields, type MatchedField } from './matched-paths.js';
import type { AlertDetailRow } from './queries.js';

/** Related alerts: events within this many seconds of the alert's event, at most RELATED_LIMIT, nearest in time first. */
export const RELATED_WINDOW_SECONDS = 3600;
export const RELATED_LIMIT = 50;

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
  severity: string;
  status: string;
  event_time: string;
  created_at: string;
  shared: ('host' | 'user' | 'source_ip')[];
}

const texts = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : typeof value === 'string' ? [value] : []);

/** ATT&CK technique tags (attack.t1003, attack.t1003.001) as technique ids with their pages. */
export function techniquesOf(tags: string[]): { id: string; url: string }[] {
  const out = new Map<string, string>();
  for (const tag of tags) {
    const m = /^attack\.t(\d{4})(?:\.(\d{3}))?$/i.exec(tag.trim());
    if (!m) continue;
    const id = m[2] ? `T${m[1]}.${m[2]}` : `T${m[1]}`;
    out.set(id, `https://attack.mitre.org/techniques/T${m[1]}/${m[2] ? `${m[2]}/` : ''}`);
  }
  return [...out].map(([id, url]) => ({ id, url }));
}

/** The alert's rule as its current YAML describes it; null when the rule was deleted. */
export async function ruleContext(db: Queryable, ruleId: string): Promise<RuleContext | null> {
  const [rule] = await db.query<{ id: string; title: string; yaml_content: string; description: string | null; author: string | null; tags: string[] }>(
    'SELECT id, title, yaml_content, description, author, tags FROM rules WHERE id = $1',
    [ruleId],
  );
  if (!rule) return null;
  let doc: Record<string, unknown> = {};
  try {
    const parsed: unknown = parse(rule.yaml_content, { maxAliasCount: 100 });
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) doc = parsed as Record<string, unknown>;
  } catch {
    // A stored rule parses; should it not, the columns still tell the essentials.
  }
  return {
    id: rule.id,
    title: rule.title,
    description: rule.description,
    author: rule.author,
    false_positives: texts(doc.falsepositives),
    references: texts(doc.references),
    techniques: techniquesOf(rule.tags),
  };
}

/** Alerts sharing the alert's host, user or source IP, their events within RELATED_WINDOW_SECONDS of its event. */
export async function relatedAlerts(db: Queryable, alert: AlertDetailRow): Promise<RelatedAlert[]> {
  const entities = { host: alert.host, user: alert.user, source_ip: alert.source_ip };
  if (!entities.host && !entities.user && !entities.source_ip) return [];
  const rows = await db.query<{ id: string; rule_title: string; severity: string; status: string; event_time: Date; created_at: Date; host: string | null; user: string | null; source_ip: string | null }>(
    `SELECT id, rule_title, severity, status, event_time, created_at, host, "user", source_ip FROM alerts
      WHERE id <> $1 AND (host = $2 OR "user" = $3 OR source_ip = $4)
        AND event_time BETWEEN $5::timestamptz - make_interval(secs => $6) AND $5::timestamptz + make_interval(secs => $6)
      ORDER BY abs(extract(epoch FROM event_time - $5::timestamptz)), id LIMIT ${RELATED_LIMIT}`,
    [alert.id, entities.host, entities.user, entities.source_ip, alert.event_time, RELATED_WINDOW_SECONDS],
  );
  return rows.map((r) => ({
    id: r.id,
    rule_title: r.rule_title,
    severity: r.severity,
    status: r.status,
    event_time: r.event_time.toISOString(),
    created_at: r.created_at.toISOString(),
    shared: (['host', 'user', 'source_ip'] as const).filter((k) => entities[k] !== null && r[k] === entities[k]),
  }));
}

/** The matched fields of the alert at their places in its stored event, read through its pattern's preset
 * (none for a correlation alert). */
export async function matchedFieldsOf(db: Queryable, alert: AlertDetailRow): Promise<MatchedField[]> {
  // A correlation's matched conditions are its count and group, not fields of an event.
  if (alert.correlation) return [];
  const [pattern] = await db.query<{ preset: string | null }>(
    'SELECT p.preset FROM alerts a JOIN index_patterns p ON p.id = a.index_pattern_id WHERE a.id = $1',
    [alert.id],
  );
  const preset = pattern?.preset ? getPreset(pattern.preset) : undefined;
  return matchedFields(alert.matched_conditions, alert.event, preset);
}
