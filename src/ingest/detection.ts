// Detection on ingest: a batch of accepted events runs through the deployed rules of its index pattern
// (the backend's percolator, which also says which selections held), then each matched rule's enabled
// exceptions; every (rule, event) left becomes an alert draft with the rule's metadata, the selections
// that held, the event's entities and its threat-intel enrichment. Matching needs no database; the
// matched rules are read where the caller chooses (the chunk's own transaction). Nothing is written here.
import type { Queryable } from '../db/database.js';
import { percolatorIndexName, type RuleMatch, type SearchBackend } from '../backends/backend.js';
import { makeAccessor, type Accessor } from '../sigma/index.js';
import { shaperOfPattern } from '../index-patterns/event-shape.js';
import type { NewAlert } from '../alerts/store.js';
import { effectiveEntityFields } from '../index-patterns/entity-fields.js';
import type { EntityFields, IndexPatternRow } from '../index-patterns/store.js';
import { compileExceptions, type ExceptionSpec } from '../rules/exceptions/matcher.js';
import type { AlertEntities, Enricher } from '../threat-intel/enricher.js';

export interface AcceptedEvent {
  time: Date;
  hash: string;
  json: string;
  event: Record<string, unknown>;
}

export interface MatchedRule {
  id: string;
  title: string;
  version: number;
  severity: string;
  level: string;
  tags: string[];
  excepted: (event: object) => boolean;
}

/** Compiled exception sets by their specification, so a busy rule's exceptions compile once. */
const exceptionCache = new Map<string, (event: object) => boolean>();
const EXCEPTION_CACHE_LIMIT = 5000;

function exceptionsOf(specs: ExceptionSpec[]): (event: object) => boolean {
  if (specs.length === 0) return () => false;
  const key = JSON.stringify(specs);
  let predicate = exceptionCache.get(key);
  if (!predicate) {
    if (exceptionCache.size >= EXCEPTION_CACHE_LIMIT) exceptionCache.clear();
    predicate = compileExceptions(specs);
    exceptionCache.set(key, predicate);
  }
  return predicate;
}

/** The matched rules' metadata and enabled exceptions, read in one query for the whole batch. */
export async function matchedRules(db: Queryable, ids: string[]): Promise<Map<string, MatchedRule>> {
  if (ids.length === 0) return new Map();
  const rules = await db.query<{ id: string; title: string; version: number; severity: string; level: string; tags: string[]; exceptions: ExceptionSpec[] }>(
    `SELECT id, title, version, severity, level, tags,
            coalesce((SELECT json_agg(json_build_object('field', e.field, 'operator', e.operator, 'value', e.value) ORDER BY e.created_at, e.id)
                        FROM rule_exceptions e WHERE e.rule_id = rules.id AND e.enabled), '[]'::json) AS exceptions
       FROM rules WHERE id = ANY($1::uuid[])`,
    [ids],
  );
  return new Map(
    rules.map(({ exceptions, ...r }) => [
      r.id,
      { ...r, excepted: exceptionsOf(exceptions.map((e) => ({ field: e.field, operator: e.operator, value: e.value }))) },
    ]),
  );
}

type EntityAccessors = Record<keyof EntityFields, Accessor[]>;
const accessorCache = new Map<string, EntityAccessors>();

function entityAccessors(pattern: IndexPatternRow): EntityAccessors {
  const fields = effectiveEntityFields(pattern.entity_fields);
  const key = JSON.stringify(fields);
  let accessors = accessorCache.get(key);
  if (!accessors) {
    if (accessorCache.size > 1000) accessorCache.clear();
    accessors = {
      source_ip: fields.source_ip.map(makeAccessor),
      user: fields.user.map(makeAccessor),
      host: fields.host.map(makeAccessor),
    };
    accessorCache.set(key, accessors);
  }
  return accessors;
}

/** The first scalar value found in the listed fields, as text (bounded). */
function firstValue(accessors: Accessor[], event: object): string | undefined {
  for (const accessor of accessors) {
    let found: string | undefined;
    accessor.each(event, (value) => {
      if (value === null || value === undefined || typeof value === 'object' || value === '') return false;
      found = String(value).slice(0, 1024);
      return true;
    });
    if (found !== undefined) return found;
  }
  return undefined;
}

function entitiesOf(accessors: EntityAccessors, event: object): AlertEntities {
  const entities: AlertEntities = {};
  const sourceIp = firstValue(accessors.source_ip, event);
  const user = firstValue(accessors.user, event);
  const host = firstValue(accessors.host, event);
  if (sourceIp !== undefined) entities.source_ip = sourceIp;
  if (user !== undefined) entities.user = user;
  if (host !== undefined) entities.host = host;
  return entities;
}

/** The alerts a batch raises, and for each the event as the rules saw it (the pattern's preset applied). */
export interface Detection {
  alerts: NewAlert[];
  seen: object[];
}

/** The stored queries each event of a batch matched, and the rules among them. */
export interface Matches {
  hits: RuleMatch[][];
  ruleIds: string[];
}

/** Runs a batch of accepted events through the pattern's deployed rules. */
export async function matchEvents(backend: SearchBackend, pattern: IndexPatternRow, events: AcceptedEvent[]): Promise<Matches> {
  if (events.length === 0) return { hits: [], ruleIds: [] };
  // Rules see events as the pattern's preset shapes them; the matcher gets the text made for storage.
  const hits = await backend.match(percolatorIndexName(pattern.name), { texts: events.map((e) => e.json), preset: pattern.preset });
  return { hits, ruleIds: [...new Set(hits.flatMap((matches) => matches.map((m) => m.id)))] };
}

/** The alerts of a matched batch (before idempotent insertion), given its matched rules (matchedRules). */
export function draftAlerts(
  matches: Matches,
  rules: Map<string, MatchedRule>,
  enricher: Enricher,
  pattern: IndexPatternRow,
  events: AcceptedEvent[],
): Detection {
  if (matches.ruleIds.length === 0) return { alerts: [], seen: [] };
  const accessors = entityAccessors(pattern);
  const alerts: NewAlert[] = [];
  const seenBy: object[] = [];
  const shape = shaperOfPattern(pattern);
  events.forEach((accepted, i) => {
    let entities: AlertEntities | undefined;
    let seen: Record<string, unknown> | undefined;
    for (const { id, matchedConditions } of matches.hits[i]) {
      const rule = rules.get(id);
      // Exceptions read the event as stored; entities and enrichment the event as the rules saw it.
      if (!rule || rule.excepted(accepted.event)) continue;
      seen ??= shape ? shape(accepted.event) : accepted.event;
      entities ??= entitiesOf(accessors, seen);
      seenBy.push(seen);
      alerts.push({
        ruleId: rule.id,
        ruleTitle: rule.title,
        ruleVersion: rule.version,
        severity: rule.severity,
        level: rule.level,
        tags: rule.tags,
        indexPatternId: pattern.id,
        indexPattern: pattern.name,
        eventHash: accepted.hash,
        eventTime: accepted.time,
        eventJson: accepted.json,
        matchedConditions,
        sourceIp: entities.source_ip,
        user: entities.user,
        host: entities.host,
        enrichment: enricher.enrich(seen, entities),
      });
    }
  });
  return { alerts, seen: seenBy };
}
