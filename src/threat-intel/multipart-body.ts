// Feed uploads as multipart/form-data: the fields of the JSON body (name, format, type, risk_score)
// as form fields and the feed file as one file part (or a `content` field). The form becomes the JSON
// body shape before schema validation, so both kinds of upload are validated alike. Bounded: one file
// of at most the upload limit, a few short fields.
import type { FastifyRequest } from 'fastify';
import { badRequest, HttpError } from '../http/errors.js';

const MAX_FIELDS = 10;
const MAX_FIELD_BYTES = 1024;

/** The upload's JSON body shape read from a multipart form. */
export async function feedBodyFromForm(request: FastifyRequest, maxBytes: number): Promise<Record<string, unknown>> {
  const body: Record<string, unknown> = {};
  let file: string | undefined;
  try {
    const parts = request.parts({ limits: { files: 1, fields: MAX_FIELDS, parts: MAX_FIELDS + 1, fileSize: maxBytes, fieldSize: maxBytes, headerPairs: 100 } });
    for await (const part of parts) {
      if (part.type === 'file') {
        file = (await part.toBuffer()).toString('utf8');
      } else {
        const value = typeof part.value === 'string' ? part.value : String(part.value);
        if (part.fieldname !== 'content' && Buffer.byteLength(value) > MAX_FIELD_BYTES) {
          throw badRequest('Invalid request', [{ field: `body.${part.fieldname}`, message: `must be at most ${MAX_FIELD_BYTES} bytes` }]);
        }
        body[part.fieldname] = part.fieldname === 'risk_score' && /^\d{1,3}$/.test(value) ? Number(value) : value;
      }
    }
  } catch (error) {
    if (error instanceof HttpError) throw error;
    const status = (error as { statusCode?: number }).statusCode;
    if (status === 413) throw new HttpError(413, `The feed file is larger than ${maxBytes / 1024 / 1024} MiB`);
    if (typeof status === 'number' && status >= 400 && status < 500) throw new HttpError(status, (error as Error).message);
    throw badRequest(`Malformed multipart body: ${(error as Error).message}`);
  }
  if (file !== undefined) {
    if (body.content !== undefined) throw badRequest('Invalid request', [{ field: 'body.content', message: 'give the feed as a file or as a content field, not both' }]);
    body.content = file;
  }
  return body;
}
