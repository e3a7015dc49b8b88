// Errors of the Elasticsearch facade: the shape Elasticsearch clients read ({error: {root_cause, type,
// reason}, status}) together with the service's own {detail, status_code}, and the headers every facade
// answer carries (X-Elastic-Product, which the official clients require since 7.14).
import type { FastifyReply } from 'fastify';
import type { HttpError } from '../../http/errors.js';

export const PRODUCT_HEADERS: Readonly<Record<string, string>> = { 'X-Elastic-Product': 'Elasticsearch' };

/** The challenge that makes clients which wait for one (curl --anyauth, some HTTP stacks) send Basic. */
export const BASIC_CHALLENGE = 'Basic realm="vigil", charset="UTF-8"';

/** The Elasticsearch exception name that matches a status (clients log it; none branches on it). */
function errorType(status: number): string {
  switch (status) {
    case 401:
      return 'security_exception';
    case 403:
      return 'security_exception';
    case 404:
      return 'resource_not_found_exception';
    case 413:
      return 'content_too_long_exception';
    case 429:
      return 'es_rejected_execution_exception';
    case 503:
      return 'unavailable_shards_exception';
    default:
      return status >= 500 ? 'exception' : 'illegal_argument_exception';
  }
}

export function esErrorBody(status: number, reason: string, type = errorType(status)) {
  return { error: { root_cause: [{ type, reason }], type, reason }, status, detail: reason, status_code: status };
}

/** Sends an error of the facade; a 401 challenges for Basic credentials. */
export function sendEsError(reply: FastifyReply, error: HttpError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  if (error.statusCode === 401) reply.header('WWW-Authenticate', BASIC_CHALLENGE);
  reply.headers(PRODUCT_HEADERS);
  return reply.code(error.statusCode).type('application/json; charset=utf-8').send(JSON.stringify(esErrorBody(error.statusCode, error.detail)));
}
