// Per-key rate limiting in fixed windows (a minute by default), counted in the database so every
// instance sharing it spends one budget: each request is one atomic upsert that opens the current
// window or adds one to it. Requests past the limit still count (a client hammering a closed window
// does not get it reopened early). The window clock is the database's, unless a clock is given
// (tests move it to open the next window without waiting).
import type { Queryable } from '../db/database.js';
import type { Tier } from './store.js';

/** Requests per window of each tier (the spec's per-minute limits). */
export const TIER_LIMITS: Record<Tier, number> = { standard: 60, high: 300 };

export interface RateLimitOptions {
  /** Window length in seconds (60). */
  windowSeconds?: number;
  /** The time requests are counted at; the database's clock when absent. */
  now?: () => Date;
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until the window closes (at least 1). */
  resetSeconds: number;
}

export class RateLimiter {
  private readonly windowSeconds: number;

  constructor(
    private readonly db: Queryable,
    private readonly options: RateLimitOptions = {},
  ) {
    this.windowSeconds = options.windowSeconds ?? 60;
  }

  /** Counts one request of a key and says whether it is within the tier's limit. */
  async admit(keyId: string, tier: Tier): Promise<RateDecision> {
    const limit = TIER_LIMITS[tier];
    const at = this.options.now?.() ?? null;
    const [row] = await this.db.query<{ requests: number; seconds_left: number }>(
      `WITH clock AS (SELECT COALESCE($2::timestamptz, now()) AS at),
            slot AS (SELECT at, to_timestamp(floor(extract(epoch FROM at) / $3::int) * $3::int) AS start FROM clock)
       INSERT INTO api_key_windows AS w (key_id, window_start, requests)
       SELECT $1, start, 1 FROM slot
       ON CONFLICT (key_id) DO UPDATE SET
         requests = CASE WHEN EXCLUDED.window_start <= w.window_start THEN w.requests + 1 ELSE 1 END,
         window_start = GREATEST(w.window_start, EXCLUDED.window_start)
       RETURNING requests, extract(epoch FROM window_start + make_interval(secs => $3::int) - (SELECT at FROM slot))::float8 AS seconds_left`,
      [keyId, at, this.windowSeconds],
    );
    const requests = Number(row.requests);
    return {
      allowed: requests <= limit,
      limit,
      remaining: Math.max(0, limit - requests),
      resetSeconds: Math.max(1, Math.ceil(Number(row.seconds_left))),
    };
  }
}
