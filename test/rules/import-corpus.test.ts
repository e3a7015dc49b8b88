// Importing the whole SigmaHQ corpus (../shared/corpus/sigma-rules/rules) as one zip with deploy=true:
// every rule the engine accepts is created and deployed; the time taken and the failures are printed.
// Reads the shared corpus.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { zipSync } from 'fflate';
import { buildPipeline, compileRule, parseRule } from '../../src/sigma/index.js';
import { describeEachDatabase, loginAdmin, type Client } from '../helpers/service.js';
import { backendOf, countRows, createPattern, postBinary, type CreatedPattern } from './fixtures.js';

const repoRoot = resolve(fileURLToPath(import.meta.url), '../../..');
const corpusRules = join(resolve(repoRoot, '../shared/corpus'), 'sigma-rules/rules');

function ruleFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...ruleFiles(path));
    else if (/\.ya?ml$/i.test(name)) out.push(path);
  }
  return out;
}

/** Whether the engine itself accepts a document as a deployable detection rule (identity mapping). */
function engineAccepts(yaml: string): boolean {
  const parsed = parseRule(yaml);
  if (!parsed.ok || parsed.rule.kind !== 'detection') return false;
  return compileRule(parsed.rule, buildPipeline({ defaultMapping: 'identity', fieldMappings: [] })).ok;
}

let expectedFailuresCache: string[] | undefined;

/** Files the engine refuses, computed once per process (both database suites share it). */
function expectedFailures(names: string[], texts: Record<string, string>): string[] {
  expectedFailuresCache ??= names.filter((name) => !engineAccepts(texts[name])).sort();
  return expectedFailuresCache;
}

describeEachDatabase('import of the SigmaHQ corpus', (ctx) => {
  let admin: Client;
  let pattern: CreatedPattern;
  const files: Record<string, Uint8Array> = {};
  const texts: Record<string, string> = {};

  before(async () => {
    admin = await loginAdmin(ctx.service);
    pattern = await createPattern(admin, { name: 'sigmahq', default_mapping: 'identity' });
    for (const path of ruleFiles(corpusRules)) {
      const name = `rules/${relative(corpusRules, path)}`;
      files[name] = readFileSync(path);
      texts[name] = files[name].toString();
    }
  });

  test('every rule the engine accepts is created and deployed (well under a minute)', async () => {
    const names = Object.keys(files).sort();
    assert.ok(names.length > 3000, `corpus has ${names.length} rule files`);
    const zip = Buffer.from(zipSync(files, { level: 6 }));
    const started = performance.now();
    const response = await postBinary(admin, '/api/rules/import?index_pattern=sigmahq&deploy=true', zip);
    const seconds = (performance.now() - started) / 1000;
    assert.equal(response.statusCode, 200, response.body.slice(0, 500));
    const { created, deployed, failed } = response.data as { created: number; deployed: number; failed: { index: number; path?: string; error: string; errors?: { message: string }[] }[] };

    const reasons = new Map<string, number>();
    for (const f of failed) {
      const reason = (f.errors?.[0]?.message ?? f.error).replace(/'[^']*'/g, "'…'").replace(/\d+/g, 'N').slice(0, 90);
      reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    }
    console.log(
      `[${ctx.service.kind}] imported ${names.length} files (${(zip.length / 1024 / 1024).toFixed(1)} MiB zip) in ${seconds.toFixed(1)} s: ` +
        `${created} created, ${deployed} deployed, ${failed.length} failed`,
    );
    for (const [reason, count] of [...reasons].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`  ${String(count).padStart(4)} × ${reason}`);

    assert.equal(created + failed.length, names.length);
    assert.equal(deployed, created);
    assert.deepEqual(failed.map((f) => names[f.index]).sort(), expectedFailures(names, texts));
    for (const f of failed) assert.equal(f.path, names[f.index]);

    assert.equal(await countRows(ctx.service, "rules WHERE status = 'deployed'", []), created);
    assert.equal(await countRows(ctx.service, 'stored_queries WHERE percolator_index = $1 AND NOT deleted', [pattern.percolator_index]), created);
    assert.equal(await countRows(ctx.service, 'rule_versions', []), created);

    // The whole set is live: a whoami process creation is caught by the corpus' whoami rules.
    const [hits] = await backendOf(ctx.service).percolate(pattern.percolator_index, [
      { EventID: 1, Image: 'C:\\Windows\\System32\\whoami.exe', OriginalFileName: 'whoami.exe', CommandLine: 'whoami /priv', User: 'alice' },
    ]);
    assert.ok(hits.length > 0, 'some corpus rule matches a whoami execution');
  });
});
