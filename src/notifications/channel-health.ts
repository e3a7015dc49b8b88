// A channel's health after each attempt, and what its turns leave behind: when a channel's attempts have
// failed 3 times in a row it reads `unhealthy`, and once per unhealthy period (across instances: the
// channel row's own update decides which attempt turned it) the audit log gets a
// `notification_channel.unhealthy` entry (no actor: the service wrote it) naming the channel, its type,
// the last error and since when it fails, and the service logs a warning; the first delivery after that
// writes `notification_channel.recovered` and logs it. The entry commits with the health it reports.
import type { FastifyBaseLogger } from 'fastify';
import { recordAudit } from '../audit/log.js';
import type { Database } from '../db/database.js';
import { recordChannelOutcome, UNHEALTHY_AFTER, type ChannelRow, type HealthTurn } from './channel-store.js';

export async function recordHealth(db: Database, channel: Pick<ChannelRow, 'id' | 'name' | 'type'>, error: string | null, log?: FastifyBaseLogger): Promise<HealthTurn> {
  const turn = await db.transaction(async (tx) => {
    const turned = await recordChannelOutcome(tx, channel.id, error);
    if (turned === 'unhealthy') {
      const [row] = await tx.query<{ failing_since: Date }>('SELECT failing_since FROM notification_channels WHERE id = $1', [channel.id]);
      const details = { name: channel.name, type: channel.type, failed_attempts: UNHEALTHY_AFTER, last_error: error, failing_since: row?.failing_since ?? null };
      await recordAudit(tx, { actor: null, action: 'notification_channel.unhealthy', targetType: 'notification_channel', targetId: channel.id, details });
    } else if (turned === 'recovered') {
      await recordAudit(tx, { actor: null, action: 'notification_channel.recovered', targetType: 'notification_channel', targetId: channel.id, details: { name: channel.name, type: channel.type } });
    }
    return turned;
  });
  if (turn === 'unhealthy') {
    log?.warn({ channel: channel.name, channel_id: channel.id, error }, `notification channel '${channel.name}' is unhealthy: its last ${UNHEALTHY_AFTER} attempts failed (${error})`);
  } else if (turn === 'recovered') {
    log?.info({ channel: channel.name, channel_id: channel.id }, `notification channel '${channel.name}' delivered again: healthy`);
  }
  return turn;
}
