// POST /api/rules/import: many rules in one request, as multi-document YAML (application/yaml) or a zip
// of rule files (application/zip); query parameters index_pattern and deploy.
import { Type } from '@fastify/type-provider-typebox';
import type { App, AppContext } from '../http/context.js';
import { badRequest } from '../http/errors.js';
import { documentedBody } from '../http/openapi.js';
import { utf8Text } from '../http/storable-text.js';
import { errorResponses, FieldErrorSchema } from '../http/schemas.js';
import { documentsFromZip } from './import-sources.js';
import { runRuleJob } from './rule-workers.js';
import { importRules } from './import.js';
import { actorOf, analyst } from './routes.js';

export const IMPORT_BODY_LIMIT = 32 * 1024 * 1024;
const YAML_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml', 'text/plain'];
const ZIP_TYPES = ['application/zip', 'application/x-zip-compressed'];

export async function importRoutes(app: App, ctx: AppContext): Promise<void> {
  await app.register(async (scope: App) => {
    // YAML text that is not UTF-8 is refused, never read as U+FFFD (a zip entry is checked the same way).
    scope.addContentTypeParser(YAML_TYPES, { parseAs: 'buffer', bodyLimit: IMPORT_BODY_LIMIT }, (_req, body, done) => {
      const text = utf8Text(body as Buffer);
      return text === null ? done(badRequest('The body is not valid UTF-8'), undefined) : done(null, text);
    });
    // JSON is not rules: answered 415 like any other content type the route does not read.
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser(ZIP_TYPES, { parseAs: 'buffer', bodyLimit: IMPORT_BODY_LIMIT }, (_req, body, done) => done(null, body));

    scope.post(
      '/api/rules/import',
      {
        config: {
          ...analyst,
          ...documentedBody('Rules: multi-document YAML (one rule per document) or a zip of .yml/.yaml rule files', {
            'application/yaml': { type: 'string' },
            'application/zip': { type: 'string', format: 'binary' },
          }),
        },
        bodyLimit: IMPORT_BODY_LIMIT,
        schema: {
          tags: ['rules'],
          operationId: 'importRules',
          summary: 'Import many rules: multi-document YAML or a zip of rule files (up to 32 MiB, 10,000 rules)',
          querystring: Type.Object({
            index_pattern: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
            deploy: Type.Boolean({ default: false }),
          }),
          response: {
            200: Type.Object({
              created: Type.Integer(),
              deployed: Type.Integer(),
              failed: Type.Array(
                Type.Object({
                  index: Type.Integer({ description: '0-based position of the document (or zip entry, sorted by path)' }),
                  path: Type.Optional(Type.String()),
                  title: Type.Optional(Type.String()),
                  error: Type.String(),
                  errors: Type.Optional(Type.Array(FieldErrorSchema)),
                }),
              ),
              rule_ids: Type.Array(Type.String({ format: 'uuid' })),
            }),
            ...errorResponses(400, 401, 403, 413, 415, 422, 503),
          },
        },
      },
      async (request) => {
        const body = request.body as unknown;
        const documents = Buffer.isBuffer(body) ? await documentsFromZip(body) : typeof body === 'string' ? await runRuleJob(ctx, { kind: 'split', text: body }) : null;
        if (documents === null) throw badRequest('The body holds no rules: send them as application/yaml (multi-document) or application/zip');
        if (documents.length === 0) throw badRequest('The upload contains no rule documents');
        return importRules(ctx, actorOf(request), documents, { indexPattern: request.query.index_pattern, deploy: request.query.deploy }, request.log);
      },
    );
  });
}
