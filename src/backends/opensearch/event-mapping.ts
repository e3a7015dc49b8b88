// The mapping of the event indices, and the index template that gives it to every daily index however
// it comes to exist (created by this service, or by a `_bulk` write racing a retention that deleted it).
// Indexed: the event's time, its arrival, its hash and its entities (host, user, source IP as its
// pattern's entity fields name them), so related events can be found by entity and time; the event
// itself is kept as written and not indexed (no mapping explosion, no type conflicts between events).
import type { Client } from '@opensearch-project/opensearch';
import { send } from './client.js';

export const EVENT_PROPERTIES = {
  event_time: { type: 'date' },
  received_at: { type: 'date' },
  hash: { type: 'keyword' },
  host: { type: 'keyword', ignore_above: 1024 },
  user: { type: 'keyword', ignore_above: 1024 },
  source_ip: { type: 'keyword', ignore_above: 1024 },
  event: { type: 'object', enabled: false },
} as const;

export const EVENT_INDEX_BODY = {
  settings: { 'index.auto_expand_replicas': '0-1', 'index.number_of_shards': 1 },
  mappings: { dynamic: false, properties: EVENT_PROPERTIES },
};

/** Writes the template of `{prefix}svc-events-*` (idempotent). */
export async function putEventTemplate(client: Client, prefix: string): Promise<void> {
  await send(client, {
    method: 'PUT',
    path: `/_index_template/${prefix}svc-events`,
    body: { index_patterns: [`${prefix}svc-events-*`], priority: 50, template: EVENT_INDEX_BODY, _meta: { managed_by: 'vigil' } },
  });
}

/** Adds the indexed fields to an index created with an earlier mapping (`dynamic: false` allows it). */
export async function putEventProperties(client: Client, index: string): Promise<void> {
  await send(client, { method: 'PUT', path: `/${index}/_mapping`, body: { properties: EVENT_PROPERTIES } });
}
