// A channel as the form edits it (every setting as text) and back: the request body of a save, and the
// API's validation errors keyed by the form field they name.
// (Imports name their .js files: the module also runs under Node in test/ui/channel-draft.test.ts.)
import type { Severity } from '../../../types.js';
import { CONFIG_DEFAULTS, CONFIG_FIELDS, MASK, type Channel, type ChannelType, type ConfigField } from './types.js';

/** A validation error of the API's error model (as api.ts reads it). */
export interface FieldError {
  field: string;
  message: string;
}

export interface ChannelDraft {
  name: string;
  type: ChannelType;
  enabled: boolean;
  min_severity: Severity;
  /** Comma-separated; empty: every pattern, every tag. */
  index_patterns: string;
  rule_tags: string;
  max_per_rule: string;
  window_seconds: string;
  config: Record<string, string>;
}

export function emptyDraft(type: ChannelType = 'webhook'): ChannelDraft {
  return { name: '', type, enabled: true, min_severity: 'low', index_patterns: '', rule_tags: '', max_per_rule: '10', window_seconds: '300', config: { ...CONFIG_DEFAULTS[type] } };
}

/** The text a stored setting is edited as: lists one item a line, header maps "Name: value" a line. */
function settingText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return value.join('\n');
  if (typeof value === 'object') return Object.entries(value as Record<string, unknown>).map(([k, v]) => `${k}: ${String(v)}`).join('\n');
  return String(value);
}

export function draftOf(channel: Channel): ChannelDraft {
  const config: Record<string, string> = {};
  for (const field of CONFIG_FIELDS[channel.type]) config[field.name] = settingText(channel.config[field.name]);
  return {
    name: channel.name,
    type: channel.type,
    enabled: channel.enabled,
    min_severity: channel.min_severity,
    index_patterns: (channel.index_patterns ?? []).join(', '),
    rule_tags: (channel.rule_tags ?? []).join(', '),
    max_per_rule: String(channel.max_per_rule),
    window_seconds: String(channel.window_seconds),
    config,
  };
}

const list = (text: string) =>
  text
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter(Boolean);

const lines = (text: string) =>
  text
    .split('\n')
    .map((s) => s.trim())
    .filter(Boolean);

function headersOf(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines(text)) {
    const colon = line.indexOf(':');
    if (colon < 0) headers[line] = '';
    else headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return headers;
}

/** The settings of the type as the API takes them; a secret left as "***" keeps its stored value. */
function configBody(draft: ChannelDraft): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const field of CONFIG_FIELDS[draft.type]) {
    const text = (draft.config[field.name] ?? '').trim();
    if (text === '') continue;
    if (text === MASK) config[field.name] = MASK;
    else if (field.kind === 'number') config[field.name] = /^\d+$/.test(text) ? Number(text) : text;
    else if (field.kind === 'lines') config[field.name] = field.name === 'headers' ? headersOf(text) : lines(text);
    else config[field.name] = text;
  }
  return config;
}

const whole = (text: string) => (/^\d+$/.test(text.trim()) ? Number(text.trim()) : text);

/** The body of a create (POST) or a change (PATCH): every setting of the form. */
export function channelBody(draft: ChannelDraft): Record<string, unknown> {
  const patterns = list(draft.index_patterns);
  const tags = list(draft.rule_tags);
  return {
    name: draft.name,
    type: draft.type,
    config: configBody(draft),
    enabled: draft.enabled,
    min_severity: draft.min_severity,
    index_patterns: patterns.length > 0 ? patterns : null,
    rule_tags: tags.length > 0 ? tags : null,
    max_per_rule: whole(draft.max_per_rule),
    window_seconds: whole(draft.window_seconds),
  };
}

/**
 * The API's field errors keyed by form field: `body.config.to.1` → `config.to`, `body.name` → `name`.
 * Errors naming no field of the form stay under the key '' (shown with the form's outcome).
 */
export function errorsByField(errors: FieldError[], draft: ChannelDraft): Record<string, string> {
  const known = new Set(['name', 'type', 'enabled', 'min_severity', 'index_patterns', 'rule_tags', 'max_per_rule', 'window_seconds', ...CONFIG_FIELDS[draft.type].map((f: ConfigField) => `config.${f.name}`)]);
  const byField: Record<string, string> = {};
  for (const error of errors) {
    const parts = error.field.replace(/^body\.?/, '').split('.');
    const key = parts[0] === 'config' ? parts.slice(0, 2).join('.') : parts[0];
    const at = known.has(key) ? key : '';
    const text = at ? error.message : `${error.field.replace(/^body\./, '')}: ${error.message}`;
    byField[at] = byField[at] ? `${byField[at]}; ${text}` : text;
  }
  return byField;
}
