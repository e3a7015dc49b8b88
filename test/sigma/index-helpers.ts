// Shared fixtures for the candidate-index and OpenSearch tests: the compiled corpus rule set, the
// regression events, and a seeded generator of event variants (random values, mutated strings, case
// changes, missing fields) built from them.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { compileRule, getPreset, parseRules } from '../../src/sigma/index.js';
import type { CompiledRule, SigmaRule } from '../../src/sigma/index.js';
import { regressionCases, rulesRoot, yamlFiles } from './corpus-helpers.js';

export interface LoadedRule {
  path: string;
  rule: SigmaRule;
  matcher: CompiledRule;
}

const cache = new Map<string, LoadedRule[]>();

/** Every rule under the given corpus folders that compiles with the preset (placeholder rules skipped). */
export function corpusRules(preset = 'sigma-native', dirs = ['rules', 'rules-emerging-threats', 'rules-threat-hunting']): LoadedRule[] {
  const ck = `${preset}|${dirs.join(',')}`;
  const hit = cache.get(ck);
  if (hit) return hit;
  const pipeline = getPreset(preset);
  const out: LoadedRule[] = [];
  for (const dir of dirs) {
    for (const file of yamlFiles(join(rulesRoot, dir))) {
      for (const r of parseRules(readFileSync(file, 'utf8'))) {
        if (!r.ok) continue;
        const c = compileRule(r.rule, pipeline);
        if (c.ok) out.push({ path: relative(rulesRoot, file), rule: r.rule, matcher: c.matcher });
      }
    }
  }
  cache.set(ck, out);
  return out;
}

export function regressionEvents(): Record<string, unknown>[] {
  return regressionCases().flatMap((c) => c.events);
}

/** Deterministic PRNG, shared with the benchmark's event generator. */
export { prng } from '../../bench/events.js';

const ALPHABET = 'abcXYZ019 \\/.-_:"\'=%*?éİΣς🙂\u0000';

function mutateString(s: string, rnd: () => number): string {
  const pick = rnd();
  if (pick < 0.2) return s.toUpperCase();
  if (pick < 0.35) return s.toLowerCase();
  if (pick < 0.5) return s.slice(0, Math.floor(rnd() * s.length));
  if (pick < 0.65) return s.slice(Math.floor(rnd() * s.length));
  if (pick < 0.8) {
    const i = Math.floor(rnd() * (s.length + 1));
    let ins = '';
    for (let k = Math.floor(rnd() * 4); k >= 0; k--) ins += ALPHABET[Math.floor(rnd() * ALPHABET.length)];
    return s.slice(0, i) + ins + s.slice(i);
  }
  return [...s].map((ch) => (rnd() < 0.3 ? (ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase()) : ch)).join('');
}

/** A variant of an event: some fields dropped, values mutated, swapped in from other events, or retyped. */
export function variant(event: Record<string, unknown>, pool: Record<string, unknown>[], rnd: () => number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(event)) {
    const r = rnd();
    if (r < 0.1) continue; // missing field
    if (r < 0.45 && typeof v === 'string') out[k] = mutateString(v, rnd);
    else if (r < 0.55) {
      const other = pool[Math.floor(rnd() * pool.length)];
      const keys = Object.keys(other);
      out[k] = keys.length ? other[keys[Math.floor(rnd() * keys.length)]] : v;
    } else if (r < 0.6) out[k] = typeof v === 'number' ? String(v) : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
    else if (r < 0.62) out[k] = null;
    else out[k] = v;
  }
  if (rnd() < 0.1) out.Details = { nested: mutateString(String(event.CommandLine ?? 'x'), rnd) };
  return out;
}
