// The delivery worker: once a second (at once again while there is a backlog) it claims the due
// deliveries (delivery-store.ts) under a lease, holds back what a channel's throttle does not admit,
// sends the rest several at a time per channel, and records the outcomes a lot at a time (outcome-book.ts): delivered, tried again later
// (exponential backoff with jitter, or the receiver's Retry-After, for up to a day), or failed. An attempt
// starts only if its bound ends before the lease does, so no other instance can claim a delivery while
// it is being sent; what could not be attempted in time is handed back. It also turns held deliveries
// into digests at the end of their window. A channel failing attempt after attempt is reported once as
// unhealthy (channel-health.ts). Nothing here runs inside an ingest request.
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { SecretBox } from '../auth/secret-box.js';
import { alertEventIds, findAlerts, type AlertDetailRow } from '../alerts/queries.js';
import { alertDetailView } from '../alerts/view.js';
import type { Database } from '../db/database.js';
import { recordHealth } from './channel-health.js';
import { findChannel, type ChannelRow } from './channel-store.js';
import { openSecrets } from './channel-service.js';
import { claimDue, digestHeld, LEASE_SECONDS, sentBefore, type DeliveryRow } from './delivery-store.js';
import { POST_TIMEOUT_MS } from './http-post.js';
import type { Message, AlertMessage, DigestMessage } from './messages.js';
import { OutcomeBook } from './outcome-book.js';
import { closeMailPools } from './mail-pools.js';
import { sendMessage } from './send.js';

export const POLL_MS = 1000;
/** Deliveries claimed at a time; a full claim means a backlog, and the next round starts at once. */
const CLAIM_LIMIT = 200;
/** Attempts in flight at once per channel. */
const PER_CHANNEL = 16;
/** The latest an attempt may start after its claim: its bound, and a margin, end before the lease does. */
const START_BY_MS = LEASE_SECONDS * 1000 - POST_TIMEOUT_MS - 10_000;
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
  /** This sender's id, the holder of the leases it takes. */
  readonly instance = randomUUID();

  constructor(private readonly options: DispatcherOptions) {}

  start(): void {
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    closeMailPools();
  }

  private schedule(delayMs = POLL_MS): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      let backlog = false;
      this.running = this.round()
        .then((claimed) => void (backlog = claimed >= CLAIM_LIMIT))
        .catch((error: unknown) => this.options.log?.warn({ err: error }, 'sending notifications failed'))
        .finally(() => this.schedule(backlog ? 0 : POLL_MS));
    }, delayMs);
    this.timer.unref();
  }

  /** One pass: digests first (they are due deliveries themselves), then the due deliveries; answers how many were claimed. */
  async round(): Promise<number> {
    const { db } = this.options;
    await digestHeld(db);
    const due = await claimDue(db, CLAIM_LIMIT, this.instance);
    const startBy = Date.now() + START_BY_MS;
    const alerts = await findAlerts(db, [...new Set(due.flatMap((d) => (d.alert_id ? [d.alert_id] : [])))]);
    const book = new OutcomeBook(db, this.instance);
    const byChannel = new Map<string, DeliveryRow[]>();
    for (const delivery of due) byChannel.set(delivery.channel_id, [...(byChannel.get(delivery.channel_id) ?? []), delivery]);
    try {
      await this.sendAll(byChannel, alerts, book, startBy);
    } finally {
      await book.settle();
    }
    return due.length;
  }

  /** Each channel's claimed deliveries, several at a time per channel, the outcomes into the book. */
  private async sendAll(byChannel: Map<string, DeliveryRow[]>, alerts: Map<string, AlertDetailRow>, book: OutcomeBook, startBy: number): Promise<void> {
    const { db } = this.options;
    await Promise.all(
      [...byChannel].map(async ([channelId, queue]) => {
        const channel = await findChannel(db, channelId);
        if (!channel) return; // deleted meanwhile: its deliveries went with it
        const held = await this.overThrottle(channel, queue);
        const health = { recordedHealthy: false };
        const worker = async () => {
          for (let next = queue.shift(); next; next = queue.shift()) {
            if (held.has(next.id)) book.add({ id: next.id, kind: 'held' });
            else if (Date.now() > startBy) book.add({ id: next.id, kind: 'released' });
            else await this.deliver(next, channel, health, alerts, book);
          }
        };
        await Promise.all(Array.from({ length: Math.min(PER_CHANNEL, queue.length) }, worker));
      }),
    );
  }

  /**
   * The first attempts (in creation order, as claimed) that the channel's throttle holds back: per rule,
   * the messages sent within the window before the first of them, counted once, and then each one admitted.
   */
  private async overThrottle(channel: ChannelRow, claimed: DeliveryRow[]): Promise<Set<string>> {
    const byRule = new Map<string, DeliveryRow[]>();
    for (const d of claimed) if (d.kind === 'alert' && d.rule_id && d.attempts === 1) byRule.set(d.rule_id, [...(byRule.get(d.rule_id) ?? []), d]);
    const held = new Set<string>();
    for (const group of byRule.values()) {
      let sent = await sentBefore(this.options.db, group[0], channel.throttle_window_seconds, channel.max_per_rule);
      for (const d of group) {
        if (sent >= channel.max_per_rule) held.add(d.id);
        else sent++;
      }
    }
    return held;
  }

  /** One attempt; a run of successes on a channel records its health once a round (the first of them). */
  private async deliver(delivery: DeliveryRow, channel: ChannelRow, health: { recordedHealthy: boolean }, alerts: Map<string, AlertDetailRow>, book: OutcomeBook): Promise<void> {
    const { db, box, allowPrivate, log } = this.options;
    const message = await this.messageOf(delivery, alerts);
    if (!message) return book.add({ id: delivery.id, kind: 'failed', error: 'the alert no longer exists', statusCode: null, retryInSeconds: null });
    let outcome;
    try {
      outcome = await sendMessage({ type: channel.type, config: { ...channel.config, ...openSecrets(box, channel) } }, message, delivery.id, allowPrivate);
    } catch (error) {
      outcome = { ok: false, error: (error as Error).message, retryable: false };
    }
    if (outcome.ok) {
      book.add({ id: delivery.id, kind: 'delivered', statusCode: outcome.statusCode ?? null });
    } else {
      const retryIn = outcome.retryable ? Math.max(outcome.retryAfterSeconds ?? 0, backoffSeconds(delivery.attempts)) : null;
      book.add({ id: delivery.id, kind: 'failed', error: outcome.error ?? 'failed', statusCode: outcome.statusCode ?? null, retryInSeconds: retryIn });
    }
    if (outcome.ok && health.recordedHealthy) return;
    await recordHealth(db, channel, outcome.ok ? null : (outcome.error ?? 'failed'), log);
    health.recordedHealthy = outcome.ok;
  }

  private async messageOf(delivery: DeliveryRow, alerts: Map<string, AlertDetailRow>): Promise<Message | undefined> {
    const { db, publicUrl } = this.options;
    if (delivery.kind === 'digest' && delivery.digest) {
      const digest = delivery.digest as unknown as Omit<DigestMessage, 'link'>;
      return { kind: 'digest', digest: { ...digest, link: `${publicUrl}/alerts?rule_id=${encodeURIComponent(delivery.rule_id ?? '')}` } };
    }
    if (!delivery.alert_id) return undefined;
    const row = alerts.get(delivery.alert_id);
    if (!row) return undefined;
    return { kind: 'alert', alert: alertDetailView(row, await alertEventIds(db, row)) as unknown as AlertMessage, link: `${publicUrl}/alerts/${delivery.alert_id}` };
  }
}
