// What every feature's routes receive: configuration, the database and the token service.
import type { FastifyInstance, FastifyBaseLogger, RawServerDefault } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import type { TokenService } from '../auth/tokens.js';
import type { EventHistory, SearchBackend } from '../backends/backend.js';
import type { Enricher } from '../threat-intel/enricher.js';

export interface AppContext {
  config: Config;
  db: Database;
  tokens: TokenService;
  /** Where deployed rules live as stored queries; health() is false while it is unreachable. */
  backend: SearchBackend;
  /** Stored events per index pattern (history searches, retention). */
  history: EventHistory;
  /** Threat-intel lookups for new alerts (in memory, following feed changes). */
  enricher: Enricher;
}

export type App = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;
