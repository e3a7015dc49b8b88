// The percolator indices (`svc-percolator-{pattern}`) on the cluster: created on first use with a
// percolator field and the rule fields mapped (never dynamically: only the layout of document.ts), rule
// queries written and removed in `_bulk` batches without a refresh per document, and percolation of many
// events in one request, paged through every matching query (never cut at the default ten hits).
import type { Client } from '@opensearch-project/opensearch';
import { reasonOf, send, statusOf, type ClusterRequest } from './client.js';
import { documentField, fieldMapping, KEYWORDS_FIELD } from './document.js';

/** A rule query as the percolator index holds it. */
export interface PercolatorDocument {
  id: string;
  ruleId: string;
  ruleVersion: number;
  query: Record<string, unknown>;
}

/** Queries per `_bulk` request. */
const BULK_BATCH = 500;
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

  /** Creates the index if absent and maps the given rule fields (plus the keywords field) if not yet mapped. */
  async ensureFields(index: string, fields: Iterable<string>): Promise<void> {
    let known = this.mapped.get(index);
    if (!known) {
      known = await this.open(index);
      this.mapped.set(index, known);
    }
    const missing = [...new Set([...fields].map(documentField))].filter((f) => !known.has(f));
    if (missing.length === 0) return;
    const properties = Object.fromEntries(missing.map((f) => [f, fieldMapping()]));
    await this.send({ method: 'PUT', path: `/${this.at(index)}/_mapping`, body: { properties } });
    for (const f of missing) known.add(f);
  }

  /** Creates the index when it does not exist; answers the fields it maps. */
  private async open(index: string): Promise<Set<string>> {
    try {
      await this.send({
        method: 'PUT',
        path: `/${this.at(index)}`,
        body: {
          settings: { 'index.auto_expand_replicas': '0-1', 'index.number_of_shards': 1 },
          mappings: {
            dynamic: false,
            properties: {
              query: { type: 'percolator' },
              rule_id: { type: 'keyword' },
              rule_version: { type: 'integer' },
              [KEYWORDS_FIELD]: fieldMapping(),
            },
          },
        },
      });
    } catch (error) {
      if (!/resource_already_exists_exception/.test(JSON.stringify((error as { meta?: { body?: unknown } }).meta?.body ?? ''))) throw error;
    }
    const mapping = await this.send<Record<string, { mappings: { properties?: Record<string, unknown> } }>>({ method: 'GET', path: `/${this.at(index)}/_mapping` });
    return new Set(Object.keys(Object.values(mapping)[0]?.mappings.properties ?? {}));
  }

  /** Writes rule queries (no refresh); throws with OpenSearch's reason when one is refused. */
  async put(index: string, docs: PercolatorDocument[]): Promise<void> {
    for (let i = 0; i < docs.length; i += BULK_BATCH) {
      const lines: string[] = [];
      for (const d of docs.slice(i, i + BULK_BATCH)) {
        lines.push(JSON.stringify({ index: { _index: this.at(index), _id: d.id } }));
        lines.push(JSON.stringify({ query: d.query, rule_id: d.ruleId, rule_version: d.ruleVersion }));
      }
      await this.bulk(lines, (status) => status < 300);
    }
  }

  /** Removes rule queries (absent ones are fine). */
  async remove(index: string, ids: string[]): Promise<void> {
    if (ids.length === 0 || !(await this.exists(index))) return;
    for (let i = 0; i < ids.length; i += BULK_BATCH) {
      const lines = ids.slice(i, i + BULK_BATCH).map((id) => JSON.stringify({ delete: { _index: this.at(index), _id: id } }));
      await this.bulk(lines, (status) => status < 300 || status === 404);
    }
  }

  private async bulk(lines: string[], ok: (status: number) => boolean): Promise<void> {
    const answer = await this.send<BulkAnswer>({ method: 'POST', path: '/_bulk', ndjson: lines });
    if (!answer.errors) return;
    for (const item of answer.items) {
      const result = Object.values(item)[0];
      if (!ok(result.status)) {
        const reason = result.error?.caused_by?.reason ?? result.error?.reason ?? result.error?.type ?? `status ${result.status}`;
        throw new Error(`OpenSearch refused stored query ${result._id}: ${reason}`);
      }
    }
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
   * For each document, the ids of the queries that match it. Pages through every matching query, sorted
   * by rule id, so none is ever left out.
   */
  async percolate(index: string, documents: Record<string, unknown>[]): Promise<string[][]> {
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
            query: { constant_score: { filter: { percolate: { field: 'query', documents } } } },
            size: PAGE,
            sort: [{ rule_id: 'asc' }],
            _source: false,
            track_total_hits: false,
            ...(after ? { search_after: after } : {}),
          },
        });
      } catch (error) {
        if (statusOf(error) === 404) return matches;
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
        body: { query: { match_all: {} }, size: PAGE, sort: [{ rule_id: 'asc' }], _source: ['rule_version'], ...(after ? { search_after: after } : {}) },
      });
      for (const hit of answer.hits.hits) out.set(hit._id, Number(hit._source?.rule_version ?? 0));
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
