// The public shape of a rule and of its versions.
import { Type } from '@fastify/type-provider-typebox';
import { Nullable, StringEnum, Timestamp, Uuid } from '../http/schemas.js';
import type { RuleRow, VersionRow } from './store.js';

export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'informational'] as const;

export const RuleSchema = Type.Object(
  {
    id: Uuid,
    title: Type.String(),
    yaml_content: Type.String(),
    status: StringEnum(['deployed', 'undeployed'] as const),
    severity: StringEnum(SEVERITIES),
    level: StringEnum(SEVERITIES),
    tags: Type.Array(Type.String()),
    description: Nullable(Type.String()),
    author: Nullable(Type.String()),
    logsource: Type.Record(Type.String(), Type.String()),
    sigma_id: Nullable(Type.String()),
    rule_type: StringEnum(['detection', 'correlation'] as const, { description: 'A detection matches single events; a correlation counts matches of other rules over time' }),
    sigma_name: Nullable(Type.String({ description: "The rule's Sigma name (correlations reference rules by Sigma id or name)" })),
    index_pattern: Nullable(Type.String()),
    version: Type.Integer(),
    deployed_version: Nullable(Type.Integer()),
    deployed_at: Nullable(Timestamp),
    percolator_id: Nullable(Type.String()),
    created_by: Type.String(),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { description: 'A Sigma detection or correlation rule' },
);

export function ruleView(row: RuleRow) {
  return {
    id: row.id,
    title: row.title,
    yaml_content: row.yaml_content,
    status: row.status,
    severity: row.severity as (typeof SEVERITIES)[number],
    level: row.level as (typeof SEVERITIES)[number],
    tags: row.tags,
    description: row.description,
    author: row.author,
    logsource: row.logsource,
    sigma_id: row.sigma_id,
    rule_type: row.rule_type,
    sigma_name: row.sigma_name,
    index_pattern: row.index_pattern,
    version: row.version,
    deployed_version: row.deployed_version,
    deployed_at: row.deployed_at ? row.deployed_at.toISOString() : null,
    percolator_id: row.percolator_id,
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export const VersionSchema = Type.Object(
  {
    version: Type.Integer(),
    title: Type.String(),
    yaml_content: Type.String(),
    changed_by: Type.String(),
    changed_at: Timestamp,
    change_reason: Nullable(Type.String()),
  },
  { description: 'One version of a rule' },
);

export function versionView(row: VersionRow) {
  return {
    version: row.version,
    title: row.title,
    yaml_content: row.yaml_content,
    changed_by: row.changed_by,
    changed_at: row.changed_at.toISOString(),
    change_reason: row.change_reason,
  };
}
