// Correlation documents of an import: stored after the detection rules of the same import (which they
// usually reference), each as POST /api/rules would create it (deployed with the import's `deploy`). A
// correlation over another correlation of the same import is stored after it, whatever the order of
// the documents; one whose references never resolve fails with the reason.
import type { AppContext } from '../http/context.js';
import { HttpError } from '../http/errors.js';
import type { ImportFailure } from './import.js';
import { createRule, type Actor } from './service.js';

export interface CorrelationDocument {
  index: number;
  path?: string;
  title: string;
  yaml: string;
}

const missingReference = (error: unknown) => error instanceof HttpError && error.statusCode === 422 && (error.errors ?? []).some((e) => e.field.startsWith('correlation.rules['));

/** Creates the correlations; answers the ids created and the documents that failed. */
export async function importCorrelations(
  ctx: AppContext,
  actor: Actor,
  documents: CorrelationDocument[],
  options: { indexPattern: string | null; deploy: boolean },
): Promise<{ ids: string[]; failed: ImportFailure[] }> {
  const ids: string[] = [];
  const errors = new Map<number, HttpError>();
  let pending = documents;
  while (pending.length > 0) {
    const retry: CorrelationDocument[] = [];
    for (const doc of pending) {
      try {
        const rule = await createRule(ctx, actor, { yaml_content: doc.yaml, deploy: options.deploy, index_pattern: options.indexPattern });
        ids.push(rule.id);
        errors.delete(doc.index);
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        errors.set(doc.index, error);
        if (missingReference(error)) retry.push(doc);
      }
    }
    // Another pass helps only when this one stored something the others may reference.
    pending = retry.length < pending.length ? retry : [];
  }
  const failed: ImportFailure[] = [];
  for (const doc of documents) {
    const error = errors.get(doc.index);
    if (error) failed.push({ index: doc.index, ...(doc.path === undefined ? {} : { path: doc.path }), title: doc.title, error: error.detail, ...(error.errors ? { errors: error.errors } : {}) });
  }
  return { ids, failed };
}
