// The notification channel form's conversions, without a browser: a stored channel as the form edits
// it (secrets as "***", lists one a line), the request body a save sends (a secret left "***" kept,
// headers and recipients parsed, empty routing as null), and the API's field errors keyed by form field.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { channelBody, draftOf, emptyDraft, errorsByField } from '../../ui/src/pages/settings/notifications/channel-draft.js';
import type { Channel } from '../../ui/src/pages/settings/notifications/types.js';

const stored: Channel = {
  id: '0f6c3d57-6a39-4a7f-9d0c-9f1f0d3c2b11',
  name: 'SOC webhook',
  type: 'webhook',
  config: { url: 'https://hooks.example.org/vigil', secret: '***', headers: '***' },
  enabled: true,
  min_severity: 'medium',
  index_patterns: ['windows', 'linux'],
  rule_tags: null,
  max_per_rule: 5,
  window_seconds: 600,
  health: 'healthy',
  last_delivered_at: null,
  last_error: null,
  failing_since: null,
};

test('a stored channel sent back unchanged keeps its secrets as "***"', () => {
  const draft = draftOf(stored);
  assert.equal(draft.config.secret, '***');
  assert.equal(draft.index_patterns, 'windows, linux');
  assert.deepEqual(channelBody(draft), {
    name: 'SOC webhook',
    type: 'webhook',
    config: { url: 'https://hooks.example.org/vigil', secret: '***', headers: '***' },
    enabled: true,
    min_severity: 'medium',
    index_patterns: ['windows', 'linux'],
    rule_tags: null,
    max_per_rule: 5,
    window_seconds: 600,
  });
});

test('new headers, a removed secret, and recipients one a line', () => {
  const draft = draftOf(stored);
  draft.config.headers = 'Authorization: Bearer abc:def\n\nX-Team: soc';
  draft.config.secret = '';
  assert.deepEqual(channelBody(draft).config, { url: 'https://hooks.example.org/vigil', headers: { Authorization: 'Bearer abc:def', 'X-Team': 'soc' } });

  const mail = emptyDraft('email');
  assert.deepEqual(mail.config, { port: '587', security: 'starttls' });
  Object.assign(mail.config, { host: 'smtp.example.org', from: 'vigil@example.org', to: 'a@example.org\n b@example.org \n' });
  mail.rule_tags = 'attack.t1003, attack.t1059 ,';
  const body = channelBody(mail);
  assert.deepEqual(body.config, { host: 'smtp.example.org', port: 587, security: 'starttls', from: 'vigil@example.org', to: ['a@example.org', 'b@example.org'] });
  assert.deepEqual(body.rule_tags, ['attack.t1003', 'attack.t1059']);
  assert.equal(body.index_patterns, null);
});

test('a number that is not one goes as typed, for the server to name', () => {
  const draft = emptyDraft('syslog');
  draft.config.port = '5x';
  draft.max_per_rule = '';
  const body = channelBody(draft);
  assert.equal((body.config as Record<string, unknown>).port, '5x');
  assert.equal(body.max_per_rule, '');
});

test('field errors are keyed by the form field they name; others are kept for the form', () => {
  const errors = errorsByField(
    [
      { field: 'body.config.secret', message: 'must be at least 16 characters' },
      { field: 'body.config.to.1', message: 'must match pattern' },
      { field: 'body.index_patterns', message: 'unknown index pattern: nope' },
      { field: 'body.config.password', message: 'is not a setting of a webhook channel' },
      { field: 'body', message: 'must have at least 1 property' },
    ],
    emptyDraft('webhook'),
  );
  assert.deepEqual(errors, {
    'config.secret': 'must be at least 16 characters',
    index_patterns: 'unknown index pattern: nope',
    '': 'config.to.1: must match pattern; config.password: is not a setting of a webhook channel; body: must have at least 1 property',
  });
});
