// Credentials of the Elasticsearch facade: an index pattern's ingest token, presented the ways log
// shippers can send it — Basic with the token as password (any user name), `ApiKey base64(id:token)`,
// `ApiKey <token>`, or `Bearer <token>`. The token alone decides which index pattern receives the events.
import type { AppContext } from '../../http/context.js';
import { unauthorized } from '../../http/errors.js';
import { findPatternByTokenHash, type IndexPatternRow } from '../../index-patterns/store.js';
import { INGEST_TOKEN_PREFIX, hashIngestToken } from '../../index-patterns/ingest-token.js';

/** Longest Authorization header read (a token is 47 characters; base64 and a user name add little). */
const MAX_HEADER = 1024;

const isToken = (text: string | undefined): text is string => text !== undefined && text.startsWith(INGEST_TOKEN_PREFIX);

function decodeBase64(text: string): string | undefined {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) return undefined;
  return Buffer.from(text, 'base64').toString('utf8');
}

/** The two halves of `user:password` (the password may hold colons; the user name cannot). */
function pair(text: string | undefined): [string, string] | undefined {
  if (text === undefined) return undefined;
  const colon = text.indexOf(':');
  return colon < 0 ? undefined : [text.slice(0, colon), text.slice(colon + 1)];
}

/** The ingest token an Authorization header presents, if it presents one in a form the facade reads. */
export function presentedToken(header: string | undefined): string | undefined {
  if (header === undefined || header.length > MAX_HEADER) return undefined;
  const match = /^\s*(Basic|ApiKey|Bearer)\s+(\S+)\s*$/i.exec(header);
  if (!match) return undefined;
  const scheme = match[1].toLowerCase();
  const value = match[2];
  if (scheme === 'bearer') return isToken(value) ? value : undefined;
  if (scheme === 'apikey' && isToken(value)) return value;
  const halves = pair(decodeBase64(value));
  if (!halves) return undefined;
  // Basic: the token is the password; a client that can only set a user name may put it there.
  const [first, second] = halves;
  if (isToken(second)) return second;
  if (isToken(first) && (scheme === 'basic' || second === '')) return first;
  return undefined;
}

/** The index pattern whose ingest token the header presents; 401 for anything else. */
export async function patternOfCredentials(ctx: Pick<AppContext, 'db'>, header: string | undefined): Promise<IndexPatternRow> {
  const token = presentedToken(header);
  if (!token) throw unauthorized();
  const pattern = await findPatternByTokenHash(ctx.db, hashIngestToken(token));
  if (!pattern) throw unauthorized();
  return pattern;
}
