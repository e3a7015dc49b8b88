// Back-pressure for _bulk: at most MAX_BULK_IN_FLIGHT requests per server are read and processed at
// once (each may hold 10 MiB of body and its parsed events); one more is refused with 429 and
// Retry-After, which every shipper retries with back-off, instead of queueing without bound.
import type { FastifyReply } from 'fastify';
import { tooManyRequests } from '../../http/errors.js';

export const MAX_BULK_IN_FLIGHT = 16;

export class BulkSlots {
  private inFlight = 0;

  constructor(private readonly max = MAX_BULK_IN_FLIGHT) {}

  /** Takes a slot until the request's answer is finished or its connection abandoned; 429 when none
   * is free. */
  take(reply: FastifyReply): void {
    if (this.inFlight >= this.max) throw tooManyRequests(`Too many bulk requests in progress (${this.max}); retry later`, 1);
    this.inFlight++;
    reply.raw.once('close', () => {
      this.inFlight--;
    });
  }
}
