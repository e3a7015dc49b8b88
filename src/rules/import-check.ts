// The checks of one imported document, as POST /api/rules makes them (and, with deploy, as deploy makes
// them, in deploy's order): run on a rule worker thread, one job per document, so a document that takes
// seconds to parse or compile holds up neither the event loop nor the rest of the import, and one past
// the work budget fails alone. Plain data in, plain data out.
import { badRequest } from '../http/errors.js';
import type { IndexPatternRow } from '../index-patterns/store.js';
import { checkCorrelation, compileFor, contentOf, parseSigma } from './analysis.js';
import { NO_INDEX_PATTERN, checkInScope, checkPlaceholderValues } from './deployment.js';
import type { RuleContent } from './store.js';

export type ImportChecked = { kind: 'correlation'; title: string } | { kind: 'detection'; content: RuleContent };

/** Throws the HttpError the document is refused with, as POST /api/rules would answer it. */
export function checkImportDocument(yaml: string, pattern: IndexPatternRow | null, deploy: boolean): ImportChecked {
  const sigma = parseSigma(yaml, 'Validation failed');
  if (sigma.kind === 'correlation') {
    checkCorrelation(sigma, 'Validation failed');
    if (deploy && !pattern) throw badRequest(NO_INDEX_PATTERN);
    return { kind: 'correlation', title: sigma.title };
  }
  if (deploy && pattern) checkInScope(sigma, pattern);
  compileFor(sigma, pattern ?? undefined, 'Validation failed');
  if (deploy && !pattern) throw badRequest(NO_INDEX_PATTERN);
  if (deploy && pattern) checkPlaceholderValues(sigma, pattern);
  return { kind: 'detection', content: contentOf(sigma, yaml, undefined, pattern?.id ?? null) };
}
