// The audit actions the docs list are exactly the ones the service writes: docs/api.md against
// src/audit/actions.ts (which the compiler holds every recordAudit call to), and that list against the
// source, so an action is neither written undocumented nor documented and never written.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { AUDIT_ACTIONS, THROTTLED_CHECKS } from '../../src/audit/actions.js';
import { repoRoot } from '../sigma/corpus-helpers.js';

const ACTION = /^[a-z][a-z0-9_]*\.[a-z0-9_]+$/;

/** The action names of the "Actions recorded" section of docs/api.md (it ends at the first blank line after its list). */
function documentedActions(): string[] {
  const text = readFileSync(join(repoRoot, 'docs/api.md'), 'utf8');
  const start = text.indexOf('Actions recorded');
  assert.ok(start >= 0, 'docs/api.md has an "Actions recorded" section');
  const listStart = text.indexOf('\n- ', start);
  const end = text.indexOf('\n\n', listStart);
  const section = text.slice(start, end);
  return [...section.matchAll(/`([^`]+)`/g)].map((m) => m[1]).filter((name) => ACTION.test(name));
}

/** The text of every TypeScript file under src/ but the list itself. */
function sources(): Array<{ path: string; text: string }> {
  const out: Array<{ path: string; text: string }> = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts') && !path.endsWith(join('audit', 'actions.ts'))) out.push({ path, text: readFileSync(path, 'utf8') });
    }
  };
  walk(join(repoRoot, 'src'));
  return out;
}

test('the actions list holds each action once, and docs/api.md lists exactly those', () => {
  assert.equal(new Set(AUDIT_ACTIONS).size, AUDIT_ACTIONS.length, 'no action twice');
  const documented = documentedActions();
  assert.equal(new Set(documented).size, documented.length, 'the docs name no action twice');
  assert.deepEqual(
    [...AUDIT_ACTIONS].filter((a) => !documented.includes(a)).sort(),
    [],
    'written by the service but not in docs/api.md',
  );
  assert.deepEqual(
    documented.filter((a) => !(AUDIT_ACTIONS as readonly string[]).includes(a)).sort(),
    [],
    'in docs/api.md but never written',
  );
});

test('every listed action is written somewhere in src/, and every action written is listed', () => {
  const files = sources();
  const all = files.map((f) => f.text).join('\n');
  const derived = new Set(THROTTLED_CHECKS.flatMap((c) => [`${c}_failed`, `${c}_blocked`]));
  // Actions recorded under their own name appear as that literal; derived ones through their check's name.
  for (const action of AUDIT_ACTIONS) {
    const literal = derived.has(action) ? action.replace(/_(failed|blocked)$/, '') : action;
    assert.ok(all.includes(`'${literal}'`), `${action}: no '${literal}' in src/`);
  }
  // Every `action: '<area>.<what>'` literal in the source is a listed action (or a throttled check).
  const known = new Set<string>([...AUDIT_ACTIONS, ...THROTTLED_CHECKS]);
  const unknown = files.flatMap(({ path, text }) =>
    [...text.matchAll(/\baction: '([^']+)'/g)].map((m) => m[1]).filter((a) => ACTION.test(a) && !known.has(a)).map((a) => `${path}: ${a}`),
  );
  assert.deepEqual(unknown, []);
});
