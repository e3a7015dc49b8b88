// Locating the shared corpus from the test tree (repo root is two levels up from this file).
import { readdirSync, statSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const corpus = resolve(repoRoot, '../shared/corpus');
export const rulesRoot = join(corpus, 'sigma-rules');

export function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? yamlFiles(p) : p.endsWith('.yml') || p.endsWith('.yaml') ? [p] : [];
  });
}
