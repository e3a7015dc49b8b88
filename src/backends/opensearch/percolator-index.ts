// The percolator indices (`svc-percolator-{pattern}`) on the cluster: created on first use with a
// percolator field and the rule fields mapped (never dynamically: only the layout of document.ts), rule
// queries written and removed in `_bulk` batches without a refresh per document, and percolation of many
// events in one request, paged through every matching query (never cut at the default ten hits).
import type { Client } from '@opensearch-project/opensearch';
import { BackendUnavailableError } from '../backend.js';
import { ClusterError, reasonOf, send, statusOf, type ClusterRequest } from './client.js';
import { mappingsOf, QUERY_FIELD, RULE_ID_FIELD, RULE_VERSION_FIELD, type FieldUse } from './document.js';

/** A rule query as the percolator index holds it. */
export interface PercolatorDocument {
  id: string;
  ruleId: string;
  ruleVersion: number;
  query: Record<string, unknown>;
}

/** A field's name and those of its subfields (`f`, `f.ip`, …), as the mapping holds them. */
function namesOf(field: string, mapping: Record<string, unknown>): string[] {
  return [field, ...Object.keys((mapping.fields as Record<string, unknown> | undefined) ?? {}).map((sub) => `${field}.${sub}`)];
}

/** A stored query the cluster would not take, with its reason. */
export interface Refusal {
  id: string;
  reason: string;
}

/** Queries per `_bulk` request. */
const BULK_BATCH = 500;
/** Mapped fields a percolator index may hold (three per rule field). */
const TOTAL_FIELDS_LIMIT = 100_000;
/** Matching queries per page of a percolation. */
const PAGE = 1_000;

interface BulkAnswer {
  errors: boolean;
  items: Array<Record<string, { _id: string; status: number; error?: { reason?: string; type?: string; caused_by?: { reason?: string } } }>>;
}

interface SearchAnswer {
  hits: { hits: Array<{ _id: string; sort?: unknown[]; _source?: Record<string, unknown>; fields?: Record<string, unknown[]> }> };
}

export class PercolatorIndices {
  /** Fields known mapped per index in this process (the mapping only grows). */
  private readonly mapped = new Map<string, Set<string>>();

  /** Index names given to these methods are the service's (`svc-percolator-…`); on the cluster they carry `prefix`. */
  constructor(
    private readonly client: Client,
    private readonly prefix = '',
  ) {}

  private at(index: string): string {
    return this.prefix + index;
  }

  /** Creates the index if absent and maps the document fields (and subfields) a use needs, if not yet mapped. */
  async ensureFields(index: string, use: FieldUse): Promise<void> {
    let known = this.mapped.get(index);
    if (!known) {
      known = await this.open(index);
      this.mapped.set(index, known);
    }
    const missing = [...mappingsOf(use)].filter(([f, mapping]) => !namesOf(f, mapping).every((n) => known.has(n)));
    if (missing.length === 0) return;
    // Subfields added to a field already mapped are merged with those it has.
    await this.send({ method: 'PUT', path: `/${this.at(index)}/_mapping`, body: { properties: Object.fromEntries(missing) } });
    for (const [f, mapping] of missing) for (const n of namesOf(f, mapping)) known.add(n);
  }

  /** Creates the index when it does not exist; answers the fields it maps. */
  private async open(index: string): Promise<Set<string>> {
    try {
      await this.send({
        method: 'PUT',
        path: `/${this.at(index)}`,
        body: {
          // Every rule field is three mapped fields (keyword, ip, num): thousands of rules need far more
          // than the default limit of 1,000.
          settings: { 'index.auto_expand_replicas': '0-1', 'index.number_of_shards': 1, 'index.mapping.total_fields.limit': TOTAL_FIELDS_LIMIT },
          mappings: {
            dynamic: false,
            properties: {
              [QUERY_FIELD]: { type: 'percolator' },
              [RULE_ID_FIELD]: { type: 'keyword' },
              [RULE_VERSION_FIELD]: { type: 'integer' },
            },
          },
        },
      });
    } catch (error) {
      if (!(error instanceof ClusterError && error.type === 'resource_already_exists_exception')) throw error;
    }
    const mapping = await this.send<Record<string, { mappings: { properties?: Record<string, Record<string, unknown>> } }>>({ method: 'GET', path: `/${this.at(index)}/_mapping` });
    const known = new Set<string>();
    for (const [f, m] of Object.entries(Object.values(mapping)[0]?.mappings.properties ?? {})) for (const n of namesOf(f, m)) known.add(n);
    return known;
  }

  /**
   * Writes rule queries (no refresh). Answers those the cluster refused, with its reason (for example a
   * regular expression too complex for Lucene to determinize); the others are written.
   */
  async put(index: string, docs: PercolatorDocument[]): Promise<Refusal[]> {
    const refused: Refusal[] = [];
    for (let i = 0; i < docs.length; i += BULK_BATCH) {
      const lines: string[] = [];
      for (const d of docs.slice(i, i + BULK_BATCH)) {
        lines.push(JSON.stringify({ index: { _index: this.at(index), _id: d.id } }));
        lines.push(JSON.stringify({ [QUERY_FIELD]: d.query, [RULE_ID_FIELD]: d.ruleId, [RULE_VERSION_FIELD]: d.ruleVersion }));
      }
      refused.push(...(await this.bulk(lines, (status) => status < 300)));
    }
    return refused;
  }

  /** Removes rule queries (absent ones are fine). */
  async remove(index: string, ids: string[]): Promise<void> {
    if (ids.length === 0 || !(await this.exists(index))) return;
    for (let i = 0; i < ids.length; i += BULK_BATCH) {
      const lines = ids.slice(i, i + BULK_BATCH).map((id) => JSON.stringify({ delete: { _index: this.at(index), _id: id } }));
      const refused = await this.bulk(lines, (status) => status < 300 || status === 404);
      if (refused.length > 0) throw new Error(`OpenSearch did not remove stored query ${refused[0].id}: ${refused[0].reason}`);
    }
  }

  private async bulk(lines: string[], ok: (status: number) => boolean): Promise<Refusal[]> {
    const answer = await this.send<BulkAnswer>({ method: 'POST', path: '/_bulk', ndjson: lines });
    const refused: Refusal[] = [];
    if (!answer.errors) return refused;
    for (const item of answer.items) {
      const result = Object.values(item)[0];
      if (ok(result.status)) continue;
      // A refused item with a server-side status is the cluster failing, not the query being wrong.
      if (result.status >= 500 || result.status === 429) throw new BackendUnavailableError();
      const reason = result.error?.caused_by?.reason ?? result.error?.reason ?? result.error?.type ?? `status ${result.status}`;
      refused.push({ id: result._id, reason });
    }
    return refused;
  }

  private send<T = unknown>(request: ClusterRequest): Promise<T> {
    return send<T>(this.client, request);
  }

  async exists(index: string): Promise<boolean> {
    if (this.mapped.has(index)) return true;
    try {
      await this.send({ method: 'HEAD', path: `/${this.at(index)}` });
      return true;
    } catch (error) {
      if (statusOf(error) === 404) return false;
      throw error;
    }
  }

  /** Makes the queries written so far visible to percolation. */
  async refresh(indices: string[]): Promise<void> {
    if (indices.length === 0) return;
    await this.send({ method: 'POST', path: `/${indices.map((i) => this.at(i)).join(',')}/_refresh`, query: { ignore_unavailable: true } });
  }

  /**
   * For each document, the ids of the queries that match it, among `candidates` when given (the only
   * stored queries the node then evaluates). Pages through every matching query, sorted by rule id, so
   * none is ever left out.
   */
  async percolate(index: string, documents: Record<string, unknown>[], candidates?: string[]): Promise<string[][]> {
    const matches: string[][] = documents.map(() => []);
    if (documents.length === 0) return matches;
    let after: unknown[] | undefined;
    for (;;) {
      let answer: SearchAnswer;
      try {
        answer = await this.send<SearchAnswer>({
          method: 'POST',
          path: `/${this.at(index)}/_search`,
          body: {
            query: {
              bool: {
                filter: [{ percolate: { field: QUERY_FIELD, documents } }, ...(candidates ? [{ ids: { values: candidates } }] : [])],
              },
            },
            size: PAGE,
            sort: [{ [RULE_ID_FIELD]: 'asc' }],
            _source: false,
            track_total_hits: false,
            ...(after ? { search_after: after } : {}),
          },
        });
      } catch (error) {
        if (statusOf(error) === 404) return matches;
        if (error instanceof BackendUnavailableError) throw error;
        throw new Error(`percolation in ${index} failed: ${reasonOf(error)}`);
      }
      const hits = answer.hits.hits;
      for (const hit of hits) {
        for (const slot of (hit.fields?._percolator_document_slot ?? []) as number[]) matches[slot]?.push(hit._id);
      }
      if (hits.length < PAGE) return matches;
      after = hits[hits.length - 1].sort;
    }
  }

  /** Every stored query of an index: id → rule version (for reconciliation). */
  async list(index: string): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (!(await this.exists(index))) return out;
    let after: unknown[] | undefined;
    for (;;) {
      const answer = await this.send<SearchAnswer>({
        method: 'POST',
        path: `/${this.at(index)}/_search`,
        body: { query: { match_all: {} }, size: PAGE, sort: [{ [RULE_ID_FIELD]: 'asc' }], _source: [RULE_VERSION_FIELD], ...(after ? { search_after: after } : {}) },
      });
      for (const hit of answer.hits.hits) out.set(hit._id, Number(hit._source?.[RULE_VERSION_FIELD] ?? 0));
      if (answer.hits.hits.length < PAGE) return out;
      after = answer.hits.hits[answer.hits.hits.length - 1].sort;
    }
  }

  /** Names of the percolator indices on the cluster. */
  async names(): Promise<string[]> {
    const answer = await this.send<Array<{ index: string }>>({ method: 'GET', path: `/_cat/indices/${this.at('svc-percolator-*')}`, query: { format: 'json' } });
    return answer.map((r) => r.index.slice(this.prefix.length));
  }
}
