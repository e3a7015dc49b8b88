// Shared set-up of the correlation suites: Sigma detection and correlation documents built from a few
// words, an index pattern per scenario (so each scenario's correlations have windows and clocks of their
// own), event times counted in seconds from one instant, and the correlation alerts read back.
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import type { Service } from '../../src/server.js';
import type { Client, Response } from '../helpers/service.js';
import { createPattern, createRule, ingest, type CreatedPattern, type Json } from '../rules/fixtures.js';

/** A detection rule named `name` matching events whose fields equal `selection`. */
export function detection(name: string, selection: Record<string, string | number>, options: { id?: string; title?: string } = {}): string {
  return stringify({
    title: options.title ?? `Detection ${name}`,
    ...(options.id ? { id: options.id } : {}),
    name,
    status: 'test',
    logsource: { product: 'testing', service: 'correlation' },
    detection: { selection, condition: 'selection' },
    level: 'low',
  });
}

export interface CorrelationSpec {
  title: string;
  name?: string;
  id?: string;
  type: string;
  rules: string[];
  groupBy?: string[];
  timespan: string;
  condition?: Record<string, unknown>;
  aliases?: Record<string, Record<string, string>>;
  generate?: boolean;
  level?: string;
}

/** A Sigma correlation document. */
export function correlation(spec: CorrelationSpec): string {
  return stringify({
    title: spec.title,
    ...(spec.id ? { id: spec.id } : {}),
    ...(spec.name ? { name: spec.name } : {}),
    status: 'test',
    correlation: {
      type: spec.type,
      rules: spec.rules,
      ...(spec.aliases ? { aliases: spec.aliases } : {}),
      ...(spec.groupBy ? { 'group-by': spec.groupBy } : {}),
      timespan: spec.timespan,
      ...(spec.condition ? { condition: spec.condition } : {}),
    },
    ...(spec.generate === undefined ? {} : { generate: spec.generate }),
    level: spec.level ?? 'high',
  });
}

/** The instant event times are counted from. */
export const T0 = Date.parse('2026-11-20T10:00:00.000Z');

/** ISO text of T0 + `seconds`. */
export const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

/** An event at T0 + `seconds` with these fields. */
export const event = (seconds: number, fields: Record<string, unknown>) => ({ '@timestamp': at(seconds), ...fields });

let patterns = 0;

/** A new index pattern (its own windows), created by the admin. */
export async function newPattern(admin: Client, body: Record<string, unknown> = {}): Promise<CreatedPattern> {
  patterns += 1;
  return createPattern(admin, { name: `corr-${patterns}-${Math.random().toString(36).slice(2, 7)}`, ...body });
}

/** Stores each document on the pattern; answers the ids in the same order. */
export async function store(analyst: Client, pattern: { name: string }, ...documents: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const yaml_content of documents) ids.push((await createRule(analyst, { yaml_content, index_pattern: pattern.name })).id as string);
  return ids;
}

export async function deploy(analyst: Client, ruleId: string): Promise<Response> {
  const response = await analyst.post(`/api/rules/${ruleId}/deploy`);
  assert.equal(response.statusCode, 200, response.body);
  return response;
}

/** Stores the detection rules and the correlation (last) on a new pattern and deploys the correlation. */
export async function scenario(
  admin: Client,
  analyst: Client,
  detections: string[],
  correlationYaml: string,
  patternBody: Record<string, unknown> = {},
): Promise<{ pattern: CreatedPattern; detectionIds: string[]; correlationId: string }> {
  const pattern = await newPattern(admin, patternBody);
  const detectionIds = await store(analyst, pattern, ...detections);
  const [correlationId] = await store(analyst, pattern, correlationYaml);
  await deploy(analyst, correlationId);
  return { pattern, detectionIds, correlationId };
}

/** Ingests and asserts the request was accepted in full. */
export async function send(service: Service, pattern: CreatedPattern, events: unknown[]): Promise<Response> {
  const response = await ingest(service, pattern, events);
  assert.equal(response.statusCode, 200, response.body);
  assert.equal(response.data.accepted, events.length, response.body);
  return response;
}

/** The alerts of a rule, oldest event time first. */
export function alertsOf(service: Service, ruleId: string): Promise<Record<string, Json>[]> {
  return service.db.query<Record<string, Json>>('SELECT * FROM alerts WHERE rule_id = $1 ORDER BY event_time, created_at, id', [ruleId]);
}

/** The groups of a correlation's alerts, in event-time order (as JSON text, for deepEqual on lists). */
export async function firedGroups(service: Service, ruleId: string): Promise<Record<string, unknown>[]> {
  return (await alertsOf(service, ruleId)).map((a) => a.correlation.group as Record<string, unknown>);
}
