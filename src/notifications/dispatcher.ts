// The delivery worker: once a second it claims the due deliveries (delivery-store.ts), holds back what a
// channel's throttle does not admit, sends the rest a few at a time, and records each outcome: delivered,
// tried again later (exponential backoff with jitter, or the receiver's Retry-After, for up to a day), or
// failed. It also turns held deliveries into digests at the end of their window. A channel failing
// attempt after attempt is logged once as unhealthy. Nothing here runs inside an ingest request.
import type { FastifyBaseLogger } from 'fastify';
import type { SecretBox } from '../auth/secret-box.js';
import { alertEventIds, findAlert } from '../alerts/queries.js';
import { alertDetailView } from '../alerts/view.js';
import type { Database } from '../db/database.js';
import { findChannel, recordChannelOutcome, type ChannelRow } from './channel-store.js';
import { openSecrets } from './channel-service.js';
import { claimDue, digestHeld, markDelivered, markFailed, markHeld, sentBefore, type DeliveryRow } from './delivery-store.js';
import type { Message, AlertMessage, DigestMessage } from './messages.js';
import { sendMessage } from './send.js';

export const POLL_MS = 1000;
const CLAIM_LIMIT = 20;
const PARALLEL = 4;
const BACKOFF_BASE_SECONDS = 10;
const BACKOFF_MAX_SECONDS = 3600;

/** The wait before attempt `attempts + 1`: doubling from 10 s up to an hour, with up to 25 % jitter. */
export function backoffSeconds(attempts: number): number {
  const plain = Math.min(BACKOFF_MAX_SECONDS, BACKOFF_BASE_SECONDS * 2 ** Math.max(0, attempts - 1));
  return plain * (0.75 + Math.random() * 0.25);
}

export interface DispatcherOptions {
  db: Database;
  box: SecretBox;
  publicUrl: string;
  allowPrivate: boolean;
  log?: FastifyBaseLogger;
}

export class Dispatcher {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly options: DispatcherOptions) {}

  start(): void {
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.round()
        .catch((error: unknown) => this.options.log?.warn({ err: error }, 'sending notifications failed'))
        .finally(() => this.schedule());
    }, POLL_MS);
    this.timer.unref();
  }

  /** One pass: digests first (they are due deliveries themselves), then the due deliveries. */
  async round(): Promise<void> {
    const { db } = this.options;
    await digestHeld(db);
    const due = await claimDue(db, CLAIM_LIMIT);
    const channels = new Map<string, Promise<ChannelRow | undefined>>();
    const channelOf = (id: string) => {
      if (!channels.has(id)) channels.set(id, findChannel(db, id));
      return channels.get(id)!;
    };
    const queue = [...due];
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) await this.deliver(next, await channelOf(next.channel_id));
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL, queue.length) }, worker));
  }

  private async deliver(delivery: DeliveryRow, channel: ChannelRow | undefined): Promise<void> {
    const { db, box, allowPrivate, log } = this.options;
    if (!channel) return; // deleted meanwhile: its deliveries went with it
    if (delivery.kind === 'alert' && delivery.rule_id && delivery.attempts === 1) {
      if ((await sentBefore(db, delivery, channel.throttle_window_seconds)) >= channel.max_per_rule) return markHeld(db, delivery.id);
    }
    const message = await this.messageOf(delivery);
    if (!message) return markFailed(db, delivery.id, 'the alert no longer exists', null, null);
    let outcome;
    try {
      outcome = await sendMessage({ type: channel.type, config: { ...channel.config, ...openSecrets(box, channel) } }, message, delivery.id, allowPrivate);
    } catch (error) {
      outcome = { ok: false, error: (error as Error).message, retryable: false };
    }
    if (outcome.ok) {
      await markDelivered(db, delivery.id, outcome.statusCode ?? null);
    } else {
      const retryIn = outcome.retryable ? Math.max(outcome.retryAfterSeconds ?? 0, backoffSeconds(delivery.attempts)) : null;
      await markFailed(db, delivery.id, outcome.error ?? 'failed', outcome.statusCode ?? null, retryIn);
    }
    const becameUnhealthy = await recordChannelOutcome(db, channel.id, outcome.ok ? null : (outcome.error ?? 'failed'));
    if (becameUnhealthy) log?.warn({ channel: channel.name, error: outcome.error }, `notification channel '${channel.name}' is unhealthy: its last attempts failed`);
  }

  private async messageOf(delivery: DeliveryRow): Promise<Message | undefined> {
    const { db, publicUrl } = this.options;
    if (delivery.kind === 'digest' && delivery.digest) {
      const digest = delivery.digest as unknown as Omit<DigestMessage, 'link'>;
      return { kind: 'digest', digest: { ...digest, link: `${publicUrl}/alerts?rule_id=${encodeURIComponent(delivery.rule_id ?? '')}` } };
    }
    if (!delivery.alert_id) return undefined;
    const row = await findAlert(db, delivery.alert_id);
    if (!row) return undefined;
    return { kind: 'alert', alert: alertDetailView(row, await alertEventIds(db, row)) as unknown as AlertMessage, link: `${publicUrl}/alerts/${delivery.alert_id}` };
  }
}
