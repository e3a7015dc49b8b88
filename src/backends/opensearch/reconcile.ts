// Reconciliation: the database says which stored queries are deployed; the percolator indices on the
// cluster are made to hold exactly those, at their versions. Run at start and on demand
// (POST /api/rules/reconcile); reports what it wrote and removed. With local matching a query the
// cluster cannot take is written as its stand-in (percolator-document.ts), never left out.
import type { EmbeddedBackend } from '../embedded/embedded-backend.js';
import type { PercolatorIndices, PercolatorDocument } from './percolator-index.js';
import { documentToWrite, locallyMatchedDocument } from './percolator-document.js';
import { noFieldUse } from './document.js';

export interface ReconcileReport {
  /** Stored queries written because the cluster lacked them. */
  created: number;
  /** Stored queries written again because the cluster held another version. */
  updated: number;
  /** Documents removed because no deployed rule has them. */
  deleted: number;
  /** Deployed stored queries the DSL cannot express (left out; their rules should be undeployed). */
  refused: Array<{ index: string; id: string; reason: string }>;
}

export async function reconcile(local: EmbeddedBackend, indices: PercolatorIndices, matching: 'local' | 'cluster'): Promise<ReconcileReport> {
  const report: ReconcileReport = { created: 0, updated: 0, deleted: 0, refused: [] };
  const deployed = await local.deployedQueries();
  const names = new Set([...deployed.keys(), ...(await indices.names())]);
  const touched: string[] = [];
  for (const index of names) {
    const wanted = deployed.get(index) ?? new Map<string, number>();
    const held = await indices.list(index);
    const docs: PercolatorDocument[] = [];
    const use = noFieldUse();
    const stale = [...wanted].filter(([id, version]) => held.get(id) !== version).map(([id]) => id);
    for (const query of await local.storedQueries(index, stale)) {
      const built = documentToWrite(query, use, matching);
      if (!built.doc) {
        report.refused.push({ index, id: query.id, reason: built.reason });
        continue;
      }
      docs.push(built.doc);
      if (held.has(query.id)) report.updated++;
      else report.created++;
    }
    const extra = [...held.keys()].filter((id) => !wanted.has(id));
    if (docs.length > 0) {
      await indices.ensureFields(index, use);
      const refused = await indices.put(index, docs);
      const standIns = matching === 'local' ? refused.map((r) => locallyMatchedDocument(docs.find((d) => d.id === r.id)!, `OpenSearch refused it: ${r.reason}`)) : [];
      for (const r of [...(matching === 'local' ? [] : refused), ...(await indices.put(index, standIns))]) {
        report.refused.push({ index, id: r.id, reason: `OpenSearch refused it: ${r.reason}` });
        if (held.has(r.id)) report.updated--;
        else report.created--;
      }
    }
    await indices.remove(index, extra);
    report.deleted += extra.length;
    if (docs.length > 0 || extra.length > 0) touched.push(index);
  }
  await indices.refresh(touched);
  return report;
}
