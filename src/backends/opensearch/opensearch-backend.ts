// The OpenSearch search backend. The database stays the source of truth: stored queries are written to
// its change log exactly as the embedded backend does (so every instance compiles them too), and each one
// is also written as a percolator document in svc-percolator-{pattern} on the cluster; events are kept in
// svc-events-{pattern} (event-index.ts). Where events are matched is OPENSEARCH_MATCHING:
// - 'local' (the default): each instance matches what it ingests with the embedded engine on its matcher
//   threads, exactly as the embedded backend does, at the same speed. A rule the DSL cannot express (or
//   the cluster refuses) still deploys: its document is a stand-in that matches nothing on the cluster
//   and names the reason (percolator-document.ts).
// - 'cluster': the cluster's percolation decides what matches; a rule the DSL cannot express exactly is
//   refused with the reason. What the cluster matched is explained, and the rules' exceptions applied, on
//   matcher threads under the per-event work budget, so both modes raise the same alerts; this thread
//   keeps a copy of the rule sets to pick each request's candidate queries and fields.
// A document the cluster holds but the database does not (a rolled-back deploy) never reaches an alert,
// and reconciliation removes it.
import type { FastifyBaseLogger } from 'fastify';
import type { Client } from '@opensearch-project/opensearch';
import type { Config } from '../../config.js';
import type { Database, Queryable } from '../../db/database.js';
import { badRequest } from '../../http/errors.js';
import { BackendUnavailableError, type BatchMatches, type EventBatch, type SearchBackend, type StoredQuery } from '../backend.js';
import { EmbeddedBackend } from '../embedded/embedded-backend.js';
import { shapedEvents } from '../../index-patterns/event-shape.js';
import { openSearchClient, send } from './client.js';
import { EventProjection, fieldsOf, noFieldUse } from './document.js';
import { documentToWrite, inexpressible, locallyMatchedDocument, percolatorDocumentOf } from './percolator-document.js';
import { PercolatorIndices, type PercolatorDocument } from './percolator-index.js';
import { reconcile, type ReconcileReport } from './reconcile.js';

/** How long after a refused write the index is reconciled (the refusing transaction has rolled back by then). */
const RECONCILE_DELAY_MS = 2_000;
/** Events per percolate request. */
const PERCOLATE_BATCH = 250;

export class OpenSearchBackend implements SearchBackend {
  readonly kind = 'opensearch' as const;
  private readonly indices: PercolatorIndices;
  /** Indices written since the last sync (refreshed there, so the next event sees the change). */
  private readonly written = new Set<string>();
  /** Per index: the projection of its rules' fields and the rules with keyword searches, for a rule-set revision. */
  private readonly projections = new Map<string, { revision: number; projection: EventProjection; keywordRules: Set<string> }>();

  private constructor(
    readonly client: Client,
    /** Put before every index name on the cluster. */
    readonly indexPrefix: string,
    private readonly local: EmbeddedBackend,
    /** Where events are matched (see the file comment). */
    readonly matching: 'local' | 'cluster',
    private log?: FastifyBaseLogger,
  ) {
    this.indices = new PercolatorIndices(client, indexPrefix);
  }

  static async open(db: Database, settings: Config['opensearch'], options: { log?: FastifyBaseLogger; matcherThreads?: number } = {}): Promise<OpenSearchBackend> {
    const local = await EmbeddedBackend.open(db, { follow: true, log: options.log, matching: 'thread', threads: options.matcherThreads ?? 1, keepLocal: true });
    return new OpenSearchBackend(openSearchClient(settings), settings.indexPrefix, local, settings.matching, options.log);
  }

  attachLog(log: FastifyBaseLogger): void {
    this.log = log;
    this.local.attachLog(log);
  }

  /** Brings the cluster in line with the database in the background; logs what it fixed. */
  reconcileInBackground(): void {
    void this.reconcile()
      .then((report) => {
        if (report.refused.length > 0) {
          this.log?.warn({ refused: report.refused }, 'deployed rules the cluster cannot hold never match: undeploy or change them');
        }
        this.log?.info({ reconcile: { ...report, refused: report.refused.length } }, 'percolator indices reconciled with the deployed rules');
      })
      .catch((error: unknown) => this.log?.warn({ err: error }, 'reconciling the percolator indices failed; it runs again at the next start or on POST /api/rules/reconcile'));
  }

  async health(): Promise<boolean> {
    try {
      const answer = await send<{ status?: string }>(this.client, { method: 'GET', path: '/_cluster/health' });
      return answer.status === 'green' || answer.status === 'yellow';
    } catch {
      return false;
    }
  }

  async deploy(tx: Queryable, index: string, query: StoredQuery): Promise<void> {
    await this.deployMany(tx, index, [query]);
  }

  /** Why this backend cannot hold a stored query (undefined: it can; with local matching it holds every one). */
  refusal(query: StoredQuery): string | undefined {
    if (this.matching === 'local') return undefined;
    const built = percolatorDocumentOf(query);
    return built.ok ? undefined : inexpressible(built.reason);
  }

  async deployMany(tx: Queryable, index: string, queries: StoredQuery[]): Promise<void> {
    if (queries.length === 0) return;
    const docs: PercolatorDocument[] = [];
    const use = noFieldUse();
    for (const query of queries) {
      const built = documentToWrite(query, use, this.matching);
      if (!built.doc) throw badRequest(inexpressible(built.reason));
      docs.push(built.doc);
    }
    await this.indices.ensureFields(index, use);
    await this.local.deployMany(tx, index, queries);
    let refused = await this.indices.put(index, docs);
    this.written.add(index);
    if (refused.length > 0 && this.matching === 'local') {
      // Too large for the cluster (its clause limit, say): matched here all the same, the stand-in says why.
      refused = await this.indices.put(index, refused.map((r) => locallyMatchedDocument(docs.find((d) => d.id === r.id)!, `OpenSearch refused it: ${r.reason}`)));
    }
    if (refused.length > 0) {
      // The caller's transaction rolls back; the other documents of this call may already be written,
      // so the index is brought back in line with the database once it has.
      this.reconcileLater();
      throw badRequest(inexpressible(`OpenSearch refused it: ${refused[0].reason}`));
    }
  }

  private reconcileLater(): void {
    setTimeout(() => this.reconcileInBackground(), RECONCILE_DELAY_MS).unref();
  }

  /** The cluster's documents hold no exceptions: only the change log carries them. */
  async reissue(tx: Queryable, ruleId: string): Promise<void> {
    await this.local.reissue(tx, ruleId);
  }

  async undeploy(tx: Queryable, index: string, id: string): Promise<void> {
    await this.local.undeploy(tx, index, id);
    await this.indices.remove(index, [id]);
    this.written.add(index);
  }

  async sync(): Promise<void> {
    await this.local.sync();
    const indices = [...this.written];
    this.written.clear();
    await this.indices.refresh(indices);
  }

  async percolate(index: string, events: object[]): Promise<string[][]> {
    if (this.matching === 'local') return this.local.percolate(index, events);
    const set = await this.local.ruleSet(index);
    if (!set || set.size === 0) return events.map(() => []);
    let cached = this.projections.get(index);
    if (!cached || cached.revision !== set.revision) {
      const use = noFieldUse();
      const keywordRules = new Set<string>();
      for (const [id, rule] of set.entries()) {
        fieldsOf(rule.ir, use);
        if (fieldsOf(rule.ir).keywords) keywordRules.add(id);
      }
      cached = { revision: set.revision, projection: new EventProjection(use), keywordRules };
      this.projections.set(index, cached);
    }
    const { projection, keywordRules } = cached;
    const out: string[][] = [];
    for (let start = 0; start < events.length; start += PERCOLATE_BATCH) {
      const batch = events.slice(start, start + PERCOLATE_BATCH);
      // The node evaluates only the stored queries the candidate index says may match some event of the
      // batch (a superset of those that do): every query is a wildcard or regex automaton it would
      // otherwise build and run for every request. Only deployed ones count (see the file comment).
      const candidates = new Set<string>();
      for (const event of batch) for (const id of set.candidates(event)) candidates.add(id);
      if (candidates.size === 0) {
        for (let i = 0; i < batch.length; i++) out.push([]);
        continue;
      }
      // The keywords field (every value of the event) is sent only when a keyword rule is a candidate.
      const keywords = [...keywordRules].some((id) => candidates.has(id));
      const matches = await this.indices.percolate(index, batch.map((e) => projection.project(e, keywords)), [...candidates]);
      for (const ids of matches) out.push(ids.filter((id) => set.has(id)));
    }
    return out;
  }

  async match(index: string, batch: EventBatch): Promise<BatchMatches> {
    if (this.matching === 'local') return this.local.match(index, batch);
    const hits = await this.percolate(index, shapedEvents(batch.texts, batch));
    // The per-event work budget, the exceptions and the explanations run on a matcher thread.
    return this.local.explain(index, batch, hits);
  }

  async hasStoredQuery(index: string, id: string): Promise<boolean> {
    return this.local.hasStoredQuery(index, id);
  }

  /** Makes every percolator index hold exactly the deployed stored queries; reports what it changed. */
  async reconcile(): Promise<ReconcileReport> {
    if (!(await this.health())) throw new BackendUnavailableError();
    await this.local.sync();
    return reconcile(this.local, this.indices, this.matching);
  }

  async close(): Promise<void> {
    await this.local.close();
    await this.client.close();
  }
}
