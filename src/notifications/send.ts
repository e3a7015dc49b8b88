// Sends one message to one channel in the format its receiver expects (mail and syslog in files of
// their own), and answers the attempt's outcome. Webhooks carry the delivery id (the same on every retry), a timestamp and, with a secret,
// an HMAC signature of "{timestamp}.{body}".
import { postJson, type PostOutcome } from './http-post.js';
import { restoreNumbers } from '../http/exact-json.js';
import { discordBody, signature, slackBody, teamsBody, webhookBody, type Message } from './messages.js';
import type { ChannelType } from './channel-types.js';
import { sendEmail, type EmailConfig } from './send-email.js';
import { sendSyslog, type SyslogConfig } from './send-syslog.js';

export interface Destination {
  type: ChannelType;
  /** The channel's whole config, secret settings opened. */
  config: Record<string, unknown>;
}

export async function sendMessage(destination: Destination, message: Message, deliveryId: string, allowPrivate: boolean): Promise<PostOutcome> {
  const config = destination.config;
  switch (destination.type) {
    case 'webhook': {
      const sentAt = new Date();
      const timestamp = Math.floor(sentAt.getTime() / 1000);
      // The alert's event keeps the digits its numbers were sent with (exact-json.ts).
      const body = restoreNumbers(JSON.stringify(webhookBody(message, deliveryId, sentAt)));
      const headers: Record<string, string> = { ...((config.headers as Record<string, string> | undefined) ?? {}), 'x-vigil-delivery': deliveryId, 'x-vigil-timestamp': String(timestamp) };
      if (typeof config.secret === 'string') headers['x-vigil-signature'] = signature(config.secret, timestamp, body);
      return postJson(String(config.url), body, headers, allowPrivate);
    }
    case 'slack':
      return postJson(String(config.url), restoreNumbers(JSON.stringify(slackBody(message))), {}, allowPrivate);
    case 'teams':
      return postJson(String(config.url), restoreNumbers(JSON.stringify(teamsBody(message))), {}, allowPrivate);
    case 'discord':
      return postJson(String(config.url), restoreNumbers(JSON.stringify(discordBody(message))), {}, allowPrivate);
    case 'email':
      return sendEmail(config as unknown as EmailConfig, message, deliveryId, allowPrivate);
    case 'syslog':
      return sendSyslog(config as unknown as SyslogConfig, message, deliveryId, allowPrivate);
  }
}
