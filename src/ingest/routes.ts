// POST /api/logs/{index pattern}: events in (JSON object, JSON array or NDJSON, optionally gzip),
// authenticated by the pattern's ingest token, which is checked before any of the body is read. The
// events go through the ingest pipeline (service.ts): stored, matched and alerted before the answer.
import type { FastifyRequest } from 'fastify';
import { Type } from '@fastify/type-provider-typebox';
import { documentedBody } from '../http/openapi.js';
import type { App, AppContext } from '../http/context.js';
import { HttpError, forbidden, notFound, unauthorized } from '../http/errors.js';
import { PATTERN_NOT_FOUND } from '../index-patterns/service.js';
import { errorResponses } from '../http/schemas.js';
import { bearerToken } from '../auth/access.js';
import { findPatternByName, findPatternByTokenHash, type IndexPatternRow } from '../index-patterns/store.js';
import { INGEST_TOKEN_PREFIX, hashIngestToken } from '../index-patterns/ingest-token.js';
import { MAX_INGEST_BYTES, readEvents } from './parse-body.js';
import { ingestEvents } from './service.js';

const patterns = new WeakMap<FastifyRequest, IndexPatternRow>();

/** The index pattern an ingest token opens, checked against the one named in the path. */
export async function patternOfToken(ctx: AppContext, authorization: string | undefined, name: string): Promise<IndexPatternRow> {
  const token = bearerToken(authorization);
  if (!token || !token.startsWith(INGEST_TOKEN_PREFIX)) throw unauthorized();
  const pattern = await findPatternByTokenHash(ctx.db, hashIngestToken(token));
  if (!pattern) throw unauthorized();
  if (pattern.name !== name) {
    // The token is good but opens another pattern: say whether the named one exists at all.
    if (!(await findPatternByName(ctx.db, name))) throw notFound(PATTERN_NOT_FOUND);
    throw forbidden();
  }
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
        // Before the body is read: a wrong token never makes the server buffer up to 10 MiB.
        onRequest: async (request, reply) => {
          const name = (request.params as { name: string }).name;
          try {
            patterns.set(request, await patternOfToken(ctx, request.headers.authorization, name));
          } catch (error) {
            // The announced body is never read: the connection closes after the answer, so nothing (a
            // request timeout's 408) can follow it on the same connection.
            reply.header('connection', 'close');
            throw error;
          }
        },
        schema: {
          tags: ['ingest'],
          operationId: 'ingestEvents',
          summary: 'Send events to an index pattern (ingest token as Bearer; JSON, JSON array or NDJSON; gzip allowed; up to 10 MiB, also unzipped, and 100,000 events)',
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
            ...errorResponses(400, 401, 403, 404, 413, 415),
          },
        },
      },
      async (request) => {
        const pattern = patterns.get(request)!;
        const raw = request.body as Buffer | undefined;
        if (!raw || raw.length === 0) throw new HttpError(400, 'The body holds no events');
        const batch = await readEvents(raw, request.headers['content-encoding']);
        const outcome = await ingestEvents(ctx, pattern, batch.events, batch.errors);
        for (const warning of outcome.warnings) request.log.warn(warning);
        return {
          received: batch.received,
          accepted: outcome.accepted,
          rejected: outcome.errors.length,
          alerts_created: outcome.alertsCreated,
          errors: outcome.errors,
        };
      },
    );
  });
}
