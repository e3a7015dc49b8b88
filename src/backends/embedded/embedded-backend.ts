// The embedded search backend: stored queries live in the database (table stored_queries, one row per
// percolator index and id, every write stamped with a sequence number); each instance compiles them,
// each with its rule's enabled exceptions read beside it, into in-memory rule sets (live-rules.ts: on
// matcher threads in the service, in this thread where another backend builds on it) and follows the
// sequence, so a deploy or an exception change on one instance is live on all of them within a second. A stored query that does not compile (a rule over a work limit, stored by an
// older version) is set aside: left out, with a warning in the log and an audit entry, and the rest load.
// A switch makes it report "unavailable" (SEARCH_BACKEND_OFFLINE) for drills.
import type { FastifyBaseLogger } from 'fastify';
import type { Database, Queryable } from '../../db/database.js';
import { BackendUnavailableError, type BatchMatches, type EventBatch, type SearchBackend, type StoredQuery } from '../backend.js';
import type { RuleSet } from './rule-set.js';
import type { StoredQueryDocument } from './stored-query-compiler.js';
import { recordAudit } from '../../audit/log.js';
import type { ExceptionSpec } from '../../rules/exceptions/matcher.js';
import { LocalRules, type LiveRules, type SetAside } from './live-rules.js';
import { MatcherPool } from './matcher-pool.js';

const POLL_INTERVAL_MS = 400;
/** Rows per INSERT when many stored queries are written at once. */
const DEPLOY_BATCH = 500;
/**
 * Writers of stored queries hold this transaction-level advisory lock from taking their sequence
 * numbers until they commit, so changes commit in sequence order and a follower that has applied
 * sequence n can never later see a commit below n. Callers take their row locks (rules) before it.
 */
const STORED_QUERY_WRITE_LOCK = 0x5647494c;

interface ChangeRow {
  percolator_index: string;
  id: string;
  query: StoredQueryDocument | null;
  exceptions: ExceptionSpec[] | null;
  deleted: boolean;
  seq: number;
  [key: string]: unknown;
}

/** Where the rule sets live: matched on `threads` matcher threads (default 1), or in this thread; `keepLocal` keeps a copy here too. */
export interface MatchingOptions {
  matching?: 'thread' | 'local';
  threads?: number;
  keepLocal?: boolean;
}

export class EmbeddedBackend implements SearchBackend {
  readonly kind = 'embedded' as const;
  private readonly rules: LiveRules;
  /** The rule sets in this thread, when kept here (to read them: ruleSet()). */
  private readonly local?: LocalRules;
  private lastSeq = 0;
  private syncing: Promise<void> = Promise.resolve();
  private loaded: Promise<void> = Promise.resolve();
  private timer?: NodeJS.Timeout;

  private constructor(
    private readonly db: Database,
    private available: boolean,
    matching: MatchingOptions,
    private log?: FastifyBaseLogger,
  ) {
    if (matching.matching === 'thread') {
      this.rules = new MatcherPool(matching.threads ?? 1);
      if (matching.keepLocal) this.local = new LocalRules();
    } else this.rules = this.local = new LocalRules();
  }

  /** Warnings given before a log was attached (the first load starts before the service's log exists). */
  private readonly unlogged: Array<[Record<string, unknown>, string]> = [];

  private warn(details: Record<string, unknown>, message: string): void {
    if (this.log) this.log.warn(details, message);
    else if (this.unlogged.length < 100) this.unlogged.push([details, message]);
  }

  /** Sends warnings to `log` from now on, and those given before. */
  attachLog(log: FastifyBaseLogger): void {
    this.log = log;
    for (const [details, message] of this.unlogged.splice(0)) log.warn(details, message);
  }

  /**
   * Loads every stored query; on a shared PostgreSQL also follows other instances' changes. `matching`
   * says where the rule sets live: on matcher threads, or in this thread (default).
   */
  static async open(db: Database, options: { available?: boolean; log?: FastifyBaseLogger; follow?: boolean } & MatchingOptions = {}): Promise<EmbeddedBackend> {
    const backend = new EmbeddedBackend(db, options.available ?? true, options, options.log);
    // The first load compiles every stored query (seconds for thousands of rules). It runs in the
    // background (on the matcher thread, or here yielding between slices), so the service answers
    // meanwhile; percolation waits for it, so no event is ever matched against a partial rule set.
    backend.loaded = backend.sync();
    backend.loaded.catch((error: unknown) => options.log?.error({ err: error }, 'loading the stored queries failed'));
    if (options.follow ?? db.kind === 'postgres') {
      backend.timer = setInterval(() => void backend.sync().catch(() => {}), POLL_INTERVAL_MS);
      backend.timer.unref();
    }
    return backend;
  }

  /** Simulates an outage (or ends it): while unavailable, deploys and history searches fail with 503. */
  setAvailable(available: boolean): void {
    this.available = available;
  }

  async health(): Promise<boolean> {
    return this.available;
  }

  private ensureAvailable(): void {
    if (!this.available) throw new BackendUnavailableError();
  }

  async deploy(tx: Queryable, index: string, query: StoredQuery): Promise<void> {
    await this.deployMany(tx, index, [query]);
  }

  async deployMany(tx: Queryable, index: string, queries: StoredQuery[]): Promise<void> {
    this.ensureAvailable();
    if (queries.length === 0) return;
    await this.lockWrites(tx);
    for (let start = 0; start < queries.length; start += DEPLOY_BATCH) {
      const params: unknown[] = [index];
      const values: string[] = [];
      for (const query of queries.slice(start, start + DEPLOY_BATCH)) {
        const doc: StoredQueryDocument = { ruleId: query.ruleId, ruleVersion: query.ruleVersion, yaml: query.yaml, pipeline: query.pipeline };
        params.push(query.id, query.ruleId, query.ruleVersion, JSON.stringify(doc));
        const n = params.length;
        values.push(`($1, $${n - 3}, $${n - 2}::uuid, $${n - 1}::integer, $${n}::jsonb, false, nextval('stored_query_seq'), now())`);
        (this.local ?? this.rules).remember(index, query);
      }
      await tx.query(
        `INSERT INTO stored_queries (percolator_index, id, rule_id, rule_version, query, deleted, seq, updated_at)
         VALUES ${values.join(', ')}
         ON CONFLICT (percolator_index, id) DO UPDATE SET rule_id = EXCLUDED.rule_id, rule_version = EXCLUDED.rule_version,
           query = EXCLUDED.query, deleted = false, seq = EXCLUDED.seq, updated_at = now()`,
        params,
      );
    }
  }

  private async lockWrites(tx: Queryable): Promise<void> {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [STORED_QUERY_WRITE_LOCK]);
  }

  /** Only the change log moves: it works while the backend is reported unavailable. */
  async reissue(tx: Queryable, ruleId: string): Promise<void> {
    await this.lockWrites(tx);
    await tx.query(`UPDATE stored_queries SET seq = nextval('stored_query_seq'), updated_at = now() WHERE rule_id = $1 AND NOT deleted`, [ruleId]);
  }

  async undeploy(tx: Queryable, index: string, id: string): Promise<void> {
    this.ensureAvailable();
    await this.lockWrites(tx);
    await tx.query(
      `UPDATE stored_queries SET deleted = true, query = NULL, seq = nextval('stored_query_seq'), updated_at = now()
       WHERE percolator_index = $1 AND id = $2 AND NOT deleted`,
      [index, id],
    );
  }

  sync(): Promise<void> {
    // A failed pass (a database blip) must not stop every later one: each pass starts afresh.
    this.syncing = this.syncing.catch(() => {}).then(() => this.applyChanges());
    return this.syncing;
  }

  private async applyChanges(): Promise<void> {
    // Each stored query with its rule's enabled exceptions as they are now (an exception change
    // reissues the rule's stored queries: reissue()).
    const rows = await this.db.query<ChangeRow>(
      `SELECT percolator_index, s.id, query, deleted, seq,
              CASE WHEN deleted THEN NULL ELSE (
                SELECT json_agg(json_build_object('id', e.id, 'field', e.field, 'operator', e.operator, 'value', e.value, 'expires_at', e.expires_at) ORDER BY e.created_at, e.id)
                  FROM rule_exceptions e WHERE e.rule_id = s.rule_id AND e.enabled) END AS exceptions
         FROM stored_queries s WHERE seq > $1 ORDER BY seq`,
      [this.lastSeq],
    );
    if (rows.length === 0) return;
    const changes = rows.map((row) => ({ index: row.percolator_index, id: row.id, doc: row.deleted ? null : row.query, exceptions: row.exceptions ?? [] }));
    const [setAside] = await Promise.all([this.rules.apply(changes), this.local && this.local !== this.rules ? this.local.apply(changes) : undefined]);
    this.lastSeq = Math.max(this.lastSeq, ...rows.map((row) => Number(row.seq)));
    for (const entry of setAside) this.warn({ index: entry.index, id: entry.id, reason: entry.reason }, 'stored query does not compile: rule set aside');
    if (setAside.length > 0) await this.auditSetAside(setAside);
  }

  /**
   * One audit entry per rule version set aside (a stored query that does not compile, for example a rule
   * over a work limit stored by an older version): written once, not again on every start or instance.
   */
  private async auditSetAside(entries: SetAside[]): Promise<void> {
    for (const entry of entries) {
      try {
        const known = await this.db.query(
          `SELECT 1 FROM audit_log WHERE action = 'rule.set_aside' AND target_id = $1 AND details->>'version' = $2 AND details->>'index' = $3 LIMIT 1`,
          [entry.ruleId, String(entry.version), entry.index],
        );
        if (known.length > 0) continue;
        await recordAudit(this.db, {
          actor: null,
          action: 'rule.set_aside',
          targetType: 'rule',
          targetId: entry.ruleId,
          details: { index: entry.index, version: entry.version, reason: entry.reason.slice(0, 1000) },
        });
      } catch (error) {
        this.warn({ err: error, id: entry.ruleId }, 'recording a rule set aside failed');
      }
    }
  }

  /** The ids of what match() answers (rules' exceptions and the per-event work budget applied). */
  async percolate(index: string, events: object[]): Promise<string[][]> {
    const batch = { texts: events.map((e) => JSON.stringify(e)), preset: null };
    return (await this.match(index, batch)).hits.map((matches) => matches.map((m) => m.id));
  }

  async match(index: string, batch: EventBatch): Promise<BatchMatches> {
    this.ensureAvailable();
    await this.loaded;
    return this.rules.match(index, batch);
  }

  /** For events another matcher found to match `hits`: budget and exceptions applied, what held (LiveRules's `explain`). */
  async explain(index: string, batch: EventBatch, hits: string[][]): Promise<BatchMatches> {
    this.ensureAvailable();
    await this.loaded;
    return this.rules.explain(index, batch, hits);
  }

  rulesRevision(): number {
    return this.lastSeq;
  }

  async hasStoredQuery(index: string, id: string): Promise<boolean> {
    const rows = await this.db.query('SELECT 1 FROM stored_queries WHERE percolator_index = $1 AND id = $2 AND NOT deleted', [index, id]);
    return rows.length > 0;
  }

  /** The live detections of a percolator index in this thread (after the first load); none when they live only on matcher threads. */
  async ruleSet(index: string): Promise<RuleSet | undefined> {
    await this.loaded;
    return this.local?.ruleSet(index);
  }

  /** The percolator indices and stored-query ids the database holds as deployed, with their rule versions. */
  async deployedQueries(): Promise<Map<string, Map<string, number>>> {
    const rows = await this.db.query<{ percolator_index: string; id: string; rule_version: number }>(
      'SELECT percolator_index, id, rule_version FROM stored_queries WHERE NOT deleted',
    );
    const out = new Map<string, Map<string, number>>();
    for (const r of rows) {
      let ids = out.get(r.percolator_index);
      if (!ids) out.set(r.percolator_index, (ids = new Map()));
      ids.set(r.id, Number(r.rule_version));
    }
    return out;
  }

  /** The stored query documents of deployed stored queries of an index (to write them to another store). */
  async storedQueries(index: string, ids: string[]): Promise<StoredQuery[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.query<{ id: string; query: StoredQueryDocument | null }>(
      'SELECT id, query FROM stored_queries WHERE percolator_index = $1 AND id = ANY($2::text[]) AND NOT deleted',
      [index, ids],
    );
    return rows.flatMap((r) => (r.query ? [{ id: r.id, ...r.query }] : []));
  }

  /** Whether this process currently has the stored query compiled and live. */
  isLive(index: string, id: string): boolean {
    return this.rules.isLive(index, id);
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.syncing.catch(() => {});
    await this.rules.close();
    await this.local?.close();
  }
}
