// What each kind of HTTP receiver is sent: the webhook's envelope (the alert as the API answers it, with
// its delivery id and a link to it in the web UI) and the chat messages (Slack blocks, a Teams Adaptive
// Card, a Discord embed) naming severity, rule, host, user and the link. A digest is one message saying
// how many alerts of a rule were held back.
import { createHmac } from 'node:crypto';

/** An alert as a message needs it (the fields of GET /api/alerts/{id}). */
export interface AlertMessage {
  id: string;
  rule_title: string;
  severity: string;
  host?: string | null;
  user?: string | null;
  source_ip?: string | null;
  index_pattern?: string;
  created_at?: string;
  [field: string]: unknown;
}

/** A digest: what a channel held back of one rule in one throttle window. */
export interface DigestMessage {
  rule_title: string;
  held: number;
  hosts: number;
  window_start: string;
  window_end: string;
  link: string;
}

export type Message = { kind: 'alert'; alert: AlertMessage; link: string } | { kind: 'digest'; digest: DigestMessage } | { kind: 'test'; channel: string };

const SEVERITY_COLOUR: Record<string, number> = { critical: 0x8b0000, high: 0xd9480f, medium: 0xf0a30a, low: 0x1c7ed6, informational: 0x868e96 };

function headline(message: Message): string {
  switch (message.kind) {
    case 'alert':
      return `[${message.alert.severity.toUpperCase()}] ${message.alert.rule_title}`;
    case 'digest':
      return `${message.digest.held} more alerts of rule ${message.digest.rule_title} on ${message.digest.hosts} ${message.digest.hosts === 1 ? 'host' : 'hosts'}`;
    case 'test':
      return `Vigil test message for channel ${message.channel}`;
  }
}

/** The facts a chat message lists, as label and text. */
function facts(message: Message): [string, string][] {
  if (message.kind === 'alert') {
    const a = message.alert;
    const rows: [string, string][] = [['Severity', a.severity], ['Rule', a.rule_title]];
    if (a.host) rows.push(['Host', String(a.host)]);
    if (a.user) rows.push(['User', String(a.user)]);
    if (a.source_ip) rows.push(['Source IP', String(a.source_ip)]);
    if (a.index_pattern) rows.push(['Index pattern', a.index_pattern]);
    return rows;
  }
  if (message.kind === 'digest') return [['Held back', `${message.digest.held} alerts`], ['Window', `${message.digest.window_start} – ${message.digest.window_end}`]];
  return [['Sent', new Date().toISOString()]];
}

const linkOf = (message: Message): string | undefined => (message.kind === 'alert' ? message.link : message.kind === 'digest' ? message.digest.link : undefined);

export function slackBody(message: Message): unknown {
  const link = linkOf(message);
  return {
    text: headline(message),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: headline(message).slice(0, 150) } },
      { type: 'section', fields: facts(message).map(([label, text]) => ({ type: 'mrkdwn', text: `*${label}*\n${text.slice(0, 500)}` })) },
      ...(link ? [{ type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open in Vigil' }, url: link }] }] : []),
    ],
  };
}

export function teamsBody(message: Message): unknown {
  const link = linkOf(message);
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body: [
            { type: 'TextBlock', size: 'Medium', weight: 'Bolder', wrap: true, text: headline(message) },
            { type: 'FactSet', facts: facts(message).map(([title, value]) => ({ title, value })) },
          ],
          actions: link ? [{ type: 'Action.OpenUrl', title: 'Open in Vigil', url: link }] : [],
        },
      },
    ],
  };
}

export function discordBody(message: Message): unknown {
  const severity = message.kind === 'alert' ? message.alert.severity : 'informational';
  return {
    content: headline(message).slice(0, 2000),
    embeds: [
      {
        title: headline(message).slice(0, 256),
        url: linkOf(message),
        color: SEVERITY_COLOUR[severity] ?? SEVERITY_COLOUR.informational,
        fields: facts(message).map(([name, value]) => ({ name, value: value.slice(0, 1024), inline: true })),
      },
    ],
    allowed_mentions: { parse: [] },
  };
}

/** The webhook's JSON: the delivery id, when it was sent, and the alert (with its link) or the digest. */
export function webhookBody(message: Message, deliveryId: string, sentAt: Date): unknown {
  const base = { delivery_id: deliveryId, sent_at: sentAt.toISOString() };
  if (message.kind === 'alert') return { ...base, alert: { ...message.alert, url: message.link } };
  if (message.kind === 'digest') return { ...base, digest: message.digest };
  return { ...base, test: true, message: headline(message) };
}

/** X-Vigil-Signature: sha256=<hex HMAC-SHA256 of "{timestamp}.{body}" under the secret>. */
export function signature(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** A plain-text rendering (mail, syslog) of a message. */
export function plainText(message: Message): { subject: string; text: string } {
  const lines = facts(message).map(([label, text]) => `${label}: ${text}`);
  const link = linkOf(message);
  if (link) lines.push('', `Open in Vigil: ${link}`);
  return { subject: headline(message), text: lines.join('\n') };
}
