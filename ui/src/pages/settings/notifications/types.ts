// The API records of notification channels and their deliveries (docs/notifications.md), and the
// settings each type of channel has, as the channel form shows them.
import type { Severity } from '../../../types.js';

export const CHANNEL_TYPES = ['webhook', 'slack', 'teams', 'discord', 'email', 'syslog'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

export const TYPE_LABELS: Record<ChannelType, string> = {
  webhook: 'Webhook',
  slack: 'Slack',
  teams: 'Microsoft Teams',
  discord: 'Discord',
  email: 'Email (SMTP)',
  syslog: 'Syslog',
};

/** What a secret setting reads as once stored. */
export const MASK = '***';

export interface Channel {
  id: string;
  name: string;
  type: ChannelType;
  config: Record<string, unknown>;
  enabled: boolean;
  min_severity: Severity;
  index_patterns: string[] | null;
  rule_tags: string[] | null;
  max_per_rule: number;
  window_seconds: number;
  health: 'healthy' | 'unhealthy' | 'unknown';
  last_delivered_at: string | null;
  last_error: string | null;
  failing_since: string | null;
}

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'held', 'digested'] as const;

export interface Delivery {
  id: string;
  alert_id: string | null;
  kind: 'alert' | 'digest' | 'test';
  status: (typeof DELIVERY_STATUSES)[number];
  attempts: number;
  last_error: string | null;
  last_status_code: number | null;
  next_retry_at: string | null;
  digest: { rule_title?: string; held?: number } | null;
  created_at: string;
  delivered_at: string | null;
}

export interface TestOutcome {
  delivered: boolean;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

/** One setting of a channel type: how it is edited. */
export interface ConfigField {
  name: string;
  label: string;
  kind: 'text' | 'url' | 'number' | 'secret' | 'select' | 'lines';
  required?: boolean;
  options?: readonly string[];
  hint?: string;
}

const incomingWebhook = (service: string): ConfigField[] => [
  { name: 'url', label: `${service} incoming-webhook URL`, kind: 'secret', required: true, hint: 'The address is the credential: it is kept sealed.' },
];

export const CONFIG_FIELDS: Record<ChannelType, ConfigField[]> = {
  webhook: [
    { name: 'url', label: 'URL', kind: 'url', required: true },
    { name: 'secret', label: 'Signing secret', kind: 'secret', hint: 'At least 16 characters; signs each request (X-Vigil-Signature).' },
    { name: 'headers', label: 'Extra headers', kind: 'lines', hint: 'One "Name: value" a line (up to 20); kept sealed.' },
  ],
  slack: incomingWebhook('Slack'),
  teams: incomingWebhook('Teams'),
  discord: incomingWebhook('Discord'),
  email: [
    { name: 'host', label: 'SMTP host', kind: 'text', required: true },
    { name: 'port', label: 'Port', kind: 'number', required: true },
    { name: 'security', label: 'Security', kind: 'select', options: ['starttls', 'tls', 'none'], required: true },
    { name: 'username', label: 'Username', kind: 'text' },
    { name: 'password', label: 'Password', kind: 'secret' },
    { name: 'from', label: 'From', kind: 'text', required: true },
    { name: 'to', label: 'To', kind: 'lines', required: true, hint: 'One address a line (up to 50).' },
  ],
  syslog: [
    { name: 'host', label: 'Host', kind: 'text', required: true },
    { name: 'port', label: 'Port', kind: 'number', required: true },
    { name: 'protocol', label: 'Protocol', kind: 'select', options: ['udp', 'tcp', 'tls'], required: true },
    { name: 'format', label: 'Format', kind: 'select', options: ['rfc5424', 'cef'], required: true },
  ],
};

/** The settings a new channel of the type starts with. */
export const CONFIG_DEFAULTS: Partial<Record<ChannelType, Record<string, string>>> = {
  email: { port: '587', security: 'starttls' },
  syslog: { port: '514', protocol: 'udp', format: 'rfc5424' },
};
