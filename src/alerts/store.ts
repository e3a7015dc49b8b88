// SQL for alerts written by detection: many at once, idempotently (one alert per rule, index pattern
// and stored event: a re-delivered event never adds an alert nor touches an existing one's triage).
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/database.js';
import type { Enrichment } from '../threat-intel/enricher.js';
import { routedInsert } from '../notifications/outbox.js';
import { severityRank } from './severity.js';

export interface NewAlert {
  ruleId: string;
  ruleTitle: string;
  ruleVersion: number;
  severity: string;
  level: string;
  tags: string[];
  indexPatternId: string;
  indexPattern: string;
  eventHash: string;
  eventTime: Date;
  /** The event exactly as stored (serialised once by the caller). */
  eventJson: string;
  matchedConditions: unknown[];
  sourceIp?: string;
  user?: string;
  host?: string;
  enrichment?: Enrichment;
  /** A correlation alert: what fired (group, window, value, contributing events). */
  correlation?: object;
  /** The id to give the alert (a fresh one when absent). */
  id?: string;
  /** The group of a rule with suppression: its key (a hash of the values) and the values by field. */
  suppression?: { key: string; group: Record<string, unknown> };
}

const BATCH = 400;
const COLUMNS = 22;

/** Inserts the alerts not already raised, with their notifications (outbox.ts); answers how many were new. */
export async function insertAlerts(tx: Queryable, alerts: NewAlert[]): Promise<number> {
  return (await insertAlertRows(tx, alerts)).length;
}

/** Inserts the alerts not already raised, with their notifications; answers the ids of the new ones. */
export async function insertAlertRows(tx: Queryable, alerts: NewAlert[]): Promise<string[]> {
  const created: string[] = [];
  for (let start = 0; start < alerts.length; start += BATCH) {
    const params: unknown[] = [];
    const values: string[] = [];
    for (const a of alerts.slice(start, start + BATCH)) {
      const n = params.length;
      params.push(
        a.id ?? randomUUID(), a.ruleId, a.ruleTitle, a.ruleVersion, a.severity, severityRank(a.severity), a.level, JSON.stringify(a.tags),
        a.indexPatternId, a.indexPattern, a.eventHash, a.eventTime, a.eventJson, JSON.stringify(a.matchedConditions),
        a.sourceIp ?? null, a.user ?? null, a.host ?? null, a.enrichment ? JSON.stringify(a.enrichment) : null, a.enrichment?.risk_score ?? null,
        a.correlation ? JSON.stringify(a.correlation) : null, a.suppression?.key ?? null, a.suppression ? JSON.stringify(a.suppression.group) : null,
      );
      const p = Array.from({ length: COLUMNS }, (_, i) => `$${n + i + 1}`);
      values.push(`(${p.join(', ')})`);
    }
    const rows = await tx.query<{ id: string }>(
      routedInsert(`INSERT INTO alerts (id, rule_id, rule_title, rule_version, severity, severity_rank, level, tags, index_pattern_id, index_pattern,
          event_hash, event_time, event, matched_conditions, source_ip, "user", host, enrichment, risk_score, correlation, suppression_key, suppression_group)
       VALUES ${values.join(', ')}
       ON CONFLICT (rule_id, index_pattern_id, event_hash) DO NOTHING RETURNING id`),
      params,
    );
    for (const row of rows) created.push(row.id);
  }
  return created;
}
