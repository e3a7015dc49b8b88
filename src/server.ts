// Composes the service: storage, secrets, the first admin, the HTTP app, the notification sender and
// housekeeping timers.
import { correlateDue, dueCheckInterval } from './correlation/correlation-due.js';
import { vacuumCorrelationStates } from './db/statistics.js';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import { openDatabase } from './db/open.js';
import { buildApp, type BuildOptions } from './http/app.js';
import type { App, AppContext } from './http/context.js';
import { TokenService } from './auth/tokens.js';
import { purgeExpiredSessions } from './auth/sessions.js';
import { purgeLoginThrottle } from './auth/login-throttle.js';
import { EmbeddedBackend } from './backends/embedded/embedded-backend.js';
import { DatabaseEventHistory } from './backends/embedded/event-history.js';
import type { OpenSearchBackend } from './backends/opensearch/opensearch-backend.js';
import type { EventHistory } from './backends/backend.js';
import { purgeExpiredEvents } from './ingest/retention.js';
import { ThreatIntelLookup } from './threat-intel/lookup.js';
import { getOrCreateSetting } from './settings/store.js';
import { bootstrapAdmin, type BootstrapResult } from './users/bootstrap.js';
import { channelSecretBox } from './notifications/channel-service.js';
import { Dispatcher } from './notifications/dispatcher.js';

export interface Service {
  app: App;
  db: Database;
  context: AppContext;
  bootstrap: BootstrapResult | null;
  close(): Promise<void>;
}

const HOUSEKEEPING_INTERVAL_MS = 10 * 60 * 1000;

export interface ServiceOptions extends BuildOptions {
  /** A database the caller keeps (tests): the service does not close it. */
  db?: Database;
  /** The configured database, already being opened by the caller (a process start opens it while the
   * service's modules load); the service owns it as if it had opened it. */
  opening?: Promise<Database>;
}

/** Starts everything but the listener. `db` may be given (tests); otherwise the configured one is opened. */
export async function createService(config: Config, options: ServiceOptions = {}): Promise<Service> {
  const db = options.db ?? (await (options.opening ?? openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir })));
  let backend: EmbeddedBackend | OpenSearchBackend | undefined;
  let threatIntel: ThreatIntelLookup | undefined;
  try {
    const secret = config.jwtSecret ?? (await getOrCreateSetting(db, 'jwt_secret', TokenService.generateSecret));
    let history: EventHistory;
    if (config.searchBackend === 'opensearch') {
      // Loaded only when configured: the cluster's client is a fifth of the modules' load time at start.
      const [{ OpenSearchBackend }, { OpenSearchEventHistory }] = await Promise.all([
        import('./backends/opensearch/opensearch-backend.js'),
        import('./backends/opensearch/event-index.js'),
      ]);
      const openSearch = await OpenSearchBackend.open(db, config.opensearch, { matcherThreads: config.matcherThreads });
      backend = openSearch;
      history = new OpenSearchEventHistory(db, openSearch.client, openSearch.indexPrefix);
    } else {
      backend = await EmbeddedBackend.open(db, { available: !config.searchBackendOffline, matching: 'thread', threads: config.matcherThreads });
      history = new DatabaseEventHistory(db);
    }
    threatIntel = await ThreatIntelLookup.open(db);
    const context: AppContext = { config, db, tokens: new TokenService(secret), backend, history, enricher: threatIntel };
    // Hashing a first admin's password (on libuv's pool) overlaps with building the app (this thread).
    const [bootstrapped, built] = await Promise.allSettled([bootstrapAdmin(db, config.adminUsername, config.adminPassword), buildApp(context, options)]);
    if (bootstrapped.status === 'rejected') {
      if (built.status === 'fulfilled') await built.value.close();
      throw bootstrapped.reason;
    }
    if (built.status === 'rejected') throw built.reason;
    const bootstrap = bootstrapped.value;
    const app = built.value;
    for (const warning of config.warnings) app.log.warn(warning);
    backend.attachLog(app.log);
    if (backend.kind === 'opensearch') backend.reconcileInBackground();
    const housekeeping = setInterval(() => {
      void purgeExpiredSessions(db).catch(() => {});
      void purgeLoginThrottle(db).catch(() => {});
      void purgeExpiredEvents(db, context.history).catch((error: unknown) => app.log.warn({ err: error }, 'event retention failed'));
      void vacuumCorrelationStates(db).catch((error: unknown) => app.log.warn({ err: error }, 'reclaiming correlation state space failed'));
    }, HOUSEKEEPING_INTERVAL_MS);
    housekeeping.unref();
    // With a lateness, waiting correlation matches are due the lateness after they arrived, events or not.
    let checkingDue = false;
    const deadlines = config.correlationLatenessMs > 0
      ? setInterval(() => {
          if (checkingDue) return;
          checkingDue = true;
          correlateDue(context)
            .then(({ warnings }) => {
              for (const w of warnings) app.log.warn(w);
            })
            .catch((error: unknown) => app.log.warn({ err: error }, 'evaluating due correlation matches failed'))
            .finally(() => (checkingDue = false));
        }, dueCheckInterval(config.correlationLatenessMs))
      : undefined;
    deadlines?.unref();
    const notifications = new Dispatcher({ db, box: channelSecretBox(context.tokens), publicUrl: config.publicUrl, allowPrivate: config.notifyAllowPrivate, log: app.log });
    notifications.start();
    return {
      app,
      db,
      context,
      bootstrap,
      async close() {
        clearInterval(housekeeping);
        clearInterval(deadlines);
        await notifications.stop();
        await app.close();
        await context.backend.close();
        await threatIntel?.close();
        if (!options.db) await db.close();
      },
    };
  } catch (error) {
    await backend?.close();
    await threatIntel?.close();
    if (!options.db) await db.close();
    throw error;
  }
}
