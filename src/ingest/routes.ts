// POST /api/logs/{index pattern}: events in (JSON object, JSON array or NDJSON, optionally gzip),
// authenticated by the pattern's ingest token. Accepted events are stored durably (idempotently:
// the same event twice is stored once) and counted in the field catalogue before the answer.
import { createHash } from 'node:crypto';
import { Type } from '@fastify/type-provider-typebox';
import { documentedBody } from '../http/openapi.js';
import type { App, AppContext } from '../http/context.js';
import { HttpError, forbidden, unauthorized } from '../http/errors.js';
import { errorResponses } from '../http/schemas.js';
import { bearerToken } from '../auth/access.js';
import { MAX_EVENT_DEPTH, makeAccessor, nestedTooDeep, type Accessor } from '../sigma/index.js';
import { findPatternByTokenHash, type IndexPatternRow } from '../index-patterns/store.js';
import { INGEST_TOKEN_PREFIX, hashIngestToken } from '../index-patterns/ingest-token.js';
import { recordFields } from './field-catalogue.js';
import { MAX_INGEST_BYTES, decodeBody, parseEvents } from './parse-body.js';

/** The event's time from the pattern's timestamp field (now when absent or unreadable); null when out of range. */
function eventTime(timestampField: Accessor, event: Record<string, unknown>, now: Date): Date | null {
  let found: unknown;
  timestampField.each(event, (value) => {
    found = value;
    return true;
  });
  let ms: number | undefined;
  if (typeof found === 'number' && Number.isFinite(found)) ms = Math.abs(found) < 1e12 ? found * 1000 : found;
  else if (typeof found === 'string') {
    const parsed = Date.parse(found);
    if (!Number.isNaN(parsed)) ms = parsed;
  }
  if (ms === undefined) return now;
  const date = new Date(ms);
  if (Number.isNaN(date.getTime()) || date.getUTCFullYear() < 1 || date.getUTCFullYear() > 9999) return null;
  return date;
}

/** Whether any key or string value holds a NUL character (the database cannot store those in JSON). */
function containsNul(event: unknown): boolean {
  const stack: unknown[] = [event];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return true;
    } else if (Array.isArray(value)) stack.push(...value);
    else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        if (key.includes('\u0000')) return true;
        stack.push(child);
      }
    }
  }
  return false;
}

async function patternOfToken(ctx: AppContext, authorization: string | undefined, name: string): Promise<IndexPatternRow> {
  const token = bearerToken(authorization);
  if (!token || !token.startsWith(INGEST_TOKEN_PREFIX)) throw unauthorized();
  const pattern = await findPatternByTokenHash(ctx.db, hashIngestToken(token));
  if (!pattern) throw unauthorized();
  if (pattern.name !== name) throw forbidden();
  return pattern;
}

export async function ingestRoutes(app: App, ctx: AppContext): Promise<void> {
  await app.register(async (scope: App) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_INGEST_BYTES }, (_req, body, done) => done(null, body));

    scope.post(
      '/api/logs/:name',
      {
        config: {
          access: { auth: 'public' },
          ...documentedBody('Events: a JSON object, a JSON array of objects or NDJSON (one object per line); Content-Encoding: gzip allowed', {
            'application/json': { type: 'string' },
            'application/x-ndjson': { type: 'string' },
          }),
        },
        bodyLimit: MAX_INGEST_BYTES,
        schema: {
          tags: ['ingest'],
          summary: 'Send events to an index pattern (ingest token as Bearer; JSON, JSON array or NDJSON; gzip allowed; up to 10 MiB)',
          security: [{ ingestToken: [] }],
          params: Type.Object({ name: Type.String({ maxLength: 100 }) }),
          response: {
            200: Type.Object({
              received: Type.Integer(),
              accepted: Type.Integer(),
              rejected: Type.Integer(),
              alerts_created: Type.Integer(),
              errors: Type.Array(Type.Object({ index: Type.Integer(), error: Type.String() })),
            }),
            ...errorResponses(400, 401, 403, 413),
          },
        },
      },
      async (request) => {
        const pattern = await patternOfToken(ctx, request.headers.authorization, request.params.name);
        const raw = request.body as Buffer | undefined;
        if (!raw || raw.length === 0) throw new HttpError(400, 'The body holds no events');
        const batch = parseEvents(decodeBody(raw, request.headers['content-encoding']));
        const now = new Date();
        const errors = [...batch.errors];
        const timestampField = makeAccessor(pattern.timestamp_field);
        const rows: { time: Date; hash: string; json: string; event: Record<string, unknown> }[] = [];
        for (const { index, event } of batch.events) {
          if (nestedTooDeep(event)) {
            errors.push({ index, error: `the event is nested deeper than ${MAX_EVENT_DEPTH} levels` });
            continue;
          }
          if (containsNul(event)) {
            errors.push({ index, error: 'the event contains NUL characters, which cannot be stored' });
            continue;
          }
          const time = eventTime(timestampField, event, now);
          if (!time) {
            errors.push({ index, error: `the timestamp in '${pattern.timestamp_field}' is out of range (years 1 to 9999)` });
            continue;
          }
          const json = JSON.stringify(event);
          rows.push({ time, hash: createHash('sha256').update(json).digest('hex'), json, event });
        }
        errors.sort((a, b) => a.index - b.index);
        await ctx.db.transaction(async (tx) => {
          // The catalogue counts stored events: a repeat (kept once) is not counted again.
          const stored = await ctx.history.store(tx, pattern.id, rows);
          const counted = rows.filter((r) => stored.delete(r.hash));
          await recordFields(tx, pattern.id, counted.map((r) => r.event));
        });
        return { received: batch.received, accepted: rows.length, rejected: errors.length, alerts_created: 0, errors };
      },
    );
  });
}
