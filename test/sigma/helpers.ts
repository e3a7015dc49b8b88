// Test helpers: build a rule from a detection snippet and compile it.
import assert from 'node:assert/strict';
import { compileRule, parseRule } from '../../src/sigma/index.js';
import type { CompiledRule, Pipeline } from '../../src/sigma/index.js';

export function ruleText(detection: string, logsource = 'product: windows'): string {
  const indented = detection
    .trim()
    .split('\n')
    .map((l) => '    ' + l)
    .join('\n');
  return `title: Test\nlogsource:\n    ${logsource}\nlevel: medium\ndetection:\n${indented}\n`;
}

export function compile(detection: string, pipeline?: Pipeline, logsource?: string): CompiledRule {
  const parsed = parseRule(ruleText(detection, logsource));
  assert.ok(parsed.ok, JSON.stringify(parsed));
  const c = compileRule(parsed.rule, pipeline);
  assert.ok(c.ok, JSON.stringify(c));
  return c.matcher;
}

/** Errors from parsing or compiling (empty when both succeed). */
export function problems(detection: string, pipeline?: Pipeline): { field: string; message: string }[] {
  const parsed = parseRule(ruleText(detection));
  if (!parsed.ok) return parsed.kind === 'yaml' ? [{ field: '(yaml)', message: parsed.message }] : parsed.errors;
  const c = compileRule(parsed.rule, pipeline);
  return c.ok ? [] : c.errors;
}
