// The error model: every failure leaves the service as {detail, status_code[, errors]} with the
// documented status and text, never a stack trace.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';

export interface FieldError {
  field: string;
  message: string;
}

export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly detail: string,
    readonly errors?: FieldError[],
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

export const UNAUTHORIZED = 'Could not validate credentials';
export const FORBIDDEN = 'Not enough permissions';

export const badRequest = (detail: string, errors?: FieldError[]) => new HttpError(400, detail, errors);
export const unauthorized = () => new HttpError(401, UNAUTHORIZED, undefined, { 'WWW-Authenticate': 'Bearer' });
export const forbidden = (detail = FORBIDDEN) => new HttpError(403, detail);
export const notFound = (detail = 'Not Found') => new HttpError(404, detail);
export const conflict = (detail: string) => new HttpError(409, detail);
export const unprocessable = (detail: string, errors: FieldError[]) => new HttpError(422, detail, errors);
export const tooManyRequests = (detail: string, retryAfterSeconds: number) =>
  new HttpError(429, detail, undefined, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) });

export function sendError(reply: FastifyReply, error: HttpError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  const body: Record<string, unknown> = { detail: error.detail, status_code: error.statusCode };
  if (error.errors) body.errors = error.errors;
  return reply.code(error.statusCode).type('application/json; charset=utf-8').send(JSON.stringify(body));
}

interface AjvIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** The schema pattern of text that must hold more than white space (its error reads "must not be blank"). */
export const NOT_BLANK = '\\S';

/** The message for a field the schema does not allow. */
const NOT_ALLOWED = 'is not an allowed field';

const LOCATION: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

/** Turns schema-validation issues into {field, message} pairs naming the offending input. */
export function fieldErrors(context: string | undefined, issues: AjvIssue[]): FieldError[] {
  const prefix = LOCATION[context ?? 'body'] ?? 'body';
  return issues.map((issue) => {
    const path = issue.instancePath.split('/').filter(Boolean).join('.');
    let field = path;
    let message = issue.message ?? 'is invalid';
    if (issue.keyword === 'required') {
      field = [path, String(issue.params.missingProperty)].filter(Boolean).join('.');
      message = 'is required';
    } else if (issue.keyword === 'additionalProperties') {
      field = [path, String(issue.params.additionalProperty)].filter(Boolean).join('.');
      message = NOT_ALLOWED;
    } else if (issue.keyword === 'enum') {
      message = `must be one of: ${(issue.params.allowedValues as unknown[]).join(', ')}`;
    } else if (issue.keyword === 'pattern' && issue.params.pattern === NOT_BLANK) {
      message = 'must not be blank';
    } else if (issue.keyword === 'format') {
      message = `must be a valid ${String(issue.params.format)}`;
    }
    return { field: field ? `${prefix}.${field}` : prefix, message };
  });
}

/** Maps anything thrown while handling a request onto the error model. */
export function toHttpError(error: FastifyError | Error, request: FastifyRequest): HttpError {
  if (error instanceof HttpError) return error;
  const fe = error as FastifyError & { validation?: AjvIssue[]; validationContext?: string };
  if (fe.validation) {
    if (fe.validationContext === 'params') {
      return notFound((request.routeOptions.config as { notFound?: string } | undefined)?.notFound ?? 'Not Found');
    }
    const errors = fieldErrors(fe.validationContext, fe.validation);
    // The spec's own text for a bad status (a filter or a status change).
    // (A `status` field where the route takes none is an unknown field, not a bad status value.)
    const onlyStatus = errors.every((e) => (e.field === 'query.status' || e.field === 'body.status') && e.message !== NOT_ALLOWED);
    return badRequest(onlyStatus ? 'Invalid status value' : 'Invalid request', errors);
  }
  switch (fe.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return badRequest('Malformed JSON body');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return badRequest('Request body must not be empty when Content-Type is application/json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new HttpError(413, 'Request body too large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new HttpError(415, 'Unsupported Content-Type');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return badRequest('Invalid Content-Length');
  }
  if (error instanceof SyntaxError && fe.statusCode === 400) return badRequest('Malformed JSON body');
  const status = fe.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) return new HttpError(status, error.message);
  return new HttpError(500, 'Internal server error');
}
