// Detection on ingest: a batch of accepted events runs through the deployed rules of its index pattern
// and their enabled exceptions (the backend's matcher, off this thread, which also says which selections
// held and refuses an event past the per-event work budget); every (rule, event) it answers becomes an
// alert draft with the rule's metadata, the selections that held, the event's entities and its
// threat-intel enrichment. Matching needs no database; the matched rules are read where the caller
// chooses (the chunk's own transaction). Nothing is written here.
import type { Queryable } from '../db/database.js';
import { percolatorIndexName, type BatchMatches, type SearchBackend } from '../backends/backend.js';
import { makeAccessor, type Accessor } from '../sigma/index.js';
import { shaperOfPattern } from '../index-patterns/event-shape.js';
import type { NewAlert } from '../alerts/store.js';
import { effectiveEntityFields } from '../index-patterns/entity-fields.js';
import type { EntityFields, IndexPatternRow } from '../index-patterns/store.js';
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
}

/** The matched rules' metadata, read in one query for the whole batch. */
export async function matchedRules(db: Queryable, ids: string[]): Promise<Map<string, MatchedRule>> {
  if (ids.length === 0) return new Map();
  const rules = await db.query<MatchedRule & Record<string, unknown>>('SELECT id, title, version, severity, level, tags FROM rules WHERE id = ANY($1::uuid[])', [ids]);
  return new Map(rules.map((r) => [r.id, r]));
}

type EntityAccessors = Record<keyof EntityFields, Accessor[]>;
const accessorCache = new Map<string, EntityAccessors>();

function entityAccessors(pattern: Pick<IndexPatternRow, 'entity_fields'>): EntityAccessors {
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
export function firstValue(accessors: Accessor[], event: object): string | undefined {
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

/**
 * The entities of an event of `pattern` as its alerts would name them: read from the event as the
 * pattern's preset shapes it, then, for an entity not found there, from the event as stored.
 */
export function eventEntities(pattern: Pick<IndexPatternRow, 'entity_fields' | 'preset'>, event: Record<string, unknown>): AlertEntities {
  const accessors = entityAccessors(pattern);
  const shape = shaperOfPattern(pattern);
  const shaped = shape ? entitiesOf(accessors, shape(event)) : {};
  return shape ? { ...entitiesOf(accessors, event), ...shaped } : entitiesOf(accessors, event);
}

/** The alerts a batch raises, and for each the event as the rules saw it (the pattern's preset applied). */
export interface Detection {
  alerts: NewAlert[];
  seen: object[];
}

/** The stored queries each event of a batch matched (exceptions applied), the rules among them, and the events refused. */
export interface Matches extends BatchMatches {
  ruleIds: string[];
}

/** The rules among the hits of a batch. */
export const ruleIdsOf = (hits: BatchMatches['hits']): string[] => [...new Set(hits.flatMap((matches) => matches.map((m) => m.id)))];

/** Runs a batch of accepted events through the pattern's deployed rules and their exceptions. */
export async function matchEvents(backend: SearchBackend, pattern: IndexPatternRow, events: AcceptedEvent[]): Promise<Matches> {
  if (events.length === 0) return { hits: [], ruleIds: [], refused: [] };
  // Rules see events as the pattern's preset shapes them; the matcher gets the text made for storage.
  const { hits, refused, excepted } = await backend.match(percolatorIndexName(pattern.name), { texts: events.map((e) => e.json), preset: pattern.preset });
  return { hits, refused, excepted, ruleIds: ruleIdsOf(hits) };
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
      // Entities and enrichment read the event as the rules saw it.
      if (!rule) continue;
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
