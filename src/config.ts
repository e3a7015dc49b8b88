// Service configuration, read once from the environment (names and defaults as documented in the README).
import { resolve } from 'node:path';
import { parseRoleMap } from './auth/sso/role-map.js';

export type SearchBackendKind = 'embedded' | 'opensearch';

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl?: string;
  adminUsername: string;
  adminPassword?: string;
  jwtSecret?: string;
  publicUrl: string;
  secureCookies: boolean;
  searchBackend: SearchBackendKind;
  /** Make the embedded backend report itself unavailable (SEARCH_BACKEND_OFFLINE=true), for outage drills. */
  searchBackendOffline: boolean;
  /** Let notification channels reach private, loopback and link-local addresses (NOTIFY_ALLOW_PRIVATE=true). */
  notifyAllowPrivate: boolean;
  opensearch: {
    url?: string;
    username?: string;
    password?: string;
    /** An OpenSearch API key (OPENSEARCH_API_KEY), sent as `Authorization: ApiKey …`. */
    apiKey?: string;
    /** A PEM file of the certificate authorities to trust for https (OPENSEARCH_CA_FILE). */
    caFile?: string;
    /** Put before every index name on the cluster (OPENSEARCH_INDEX_PREFIX), so several services can share one. */
    indexPrefix: string;
    /**
     * Where ingested events are matched (OPENSEARCH_MATCHING): 'local', by the embedded engine on each
     * instance's matcher threads (the default; the cluster keeps the percolator documents and the
     * events); 'cluster', by percolation on the cluster.
     */
    matching: 'local' | 'cluster';
  };
  oidc: {
    issuer?: string;
    clientId?: string;
    clientSecret?: string;
    /** Where the provider sends the browser back (OIDC_REDIRECT_URI, default PUBLIC_URL + /api/auth/sso/callback). */
    redirectUri: string;
    /** Scopes asked for (OIDC_SCOPES, space-separated; `openid` is always included). */
    scopes: string;
    /** The provider's name shown on the sign-in page (OIDC_PROVIDER_NAME). */
    providerName: string;
    roleClaim: string;
    roleMap: string;
    defaultRole: string;
  };
  /** Lifetime of a session token, in seconds (8 hours). */
  sessionTtlSeconds: number;
  logLevel: string;
  /** The Elasticsearch version the /api/es facade reports to log shippers (ES_COMPAT_VERSION). */
  esCompatVersion: string;
  /** HTTP connection timeouts, in milliseconds (0: none); see src/http/timeouts.ts. */
  http: HttpTimeouts;
  /** Matcher threads of the embedded matcher, each with a copy of every rule set (MATCHER_THREADS, 1 to 64, default 2). */
  matcherThreads: number;
  /** Budget of one rule compilation or test on a worker thread (RULE_WORK_TIMEOUT seconds, RULE_WORK_MEMORY_MB). */
  ruleWork: { timeoutMs: number; memoryMb: number };
  /** How far behind the newest event time of its own group an event may arrive and still count in correlation windows, and how long a waiting match waits at most after it arrived (CORRELATION_LATENESS seconds). */
  correlationLatenessMs: number;
  /** Settings that leave a feature off rather than stop the start (single sign-on without its client
   * id): each a sentence naming what is missing, logged as a warning when the service starts. */
  warnings: string[];
}

export interface HttpTimeouts {
  /** Time to receive a request's headers (HTTP_HEADERS_TIMEOUT). */
  headersMs: number;
  /** Time to receive a whole request, headers and body (HTTP_REQUEST_TIMEOUT). */
  requestMs: number;
  /** Time an idle keep-alive connection is kept between requests (HTTP_KEEP_ALIVE_TIMEOUT). */
  keepAliveMs: number;
  /** Time a connection may go without any byte sent or received (HTTP_IDLE_TIMEOUT). */
  idleMs: number;
}

export class ConfigError extends Error {}

function optional(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

/** A duration in seconds (decimals allowed) read as milliseconds; 0 only where `zeroAllowed`. */
function seconds(env: NodeJS.ProcessEnv, name: string, defaultSeconds: number, zeroAllowed = true): number {
  const text = optional(env, name);
  if (text === undefined) return defaultSeconds * 1000;
  const value = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || value > 86_400 || (!zeroAllowed && value === 0)) {
    throw new ConfigError(`${name} must be a number of seconds ${zeroAllowed ? 'from 0' : 'above 0'} to 86400, got '${text.slice(0, 40)}'`);
  }
  return Math.round(value * 1000);
}

/** A whole number of threads from 1 to 64. */
function threads(env: NodeJS.ProcessEnv, name: string, defaultCount: number): number {
  const text = optional(env, name);
  if (text === undefined) return defaultCount;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || value > 64) throw new ConfigError(`${name} must be a whole number of threads from 1 to 64, got '${text.slice(0, 40)}'`);
  return value;
}

/** A whole number of megabytes from 16 to 16384. */
function megabytes(env: NodeJS.ProcessEnv, name: string, defaultMb: number): number {
  const text = optional(env, name);
  if (text === undefined) return defaultMb;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 16 || value > 16_384) throw new ConfigError(`${name} must be a whole number of megabytes from 16 to 16384, got '${text.slice(0, 40)}'`);
  return value;
}

function httpTimeouts(env: NodeJS.ProcessEnv): HttpTimeouts {
  const timeouts = {
    headersMs: seconds(env, 'HTTP_HEADERS_TIMEOUT', 20),
    requestMs: seconds(env, 'HTTP_REQUEST_TIMEOUT', 120),
    keepAliveMs: seconds(env, 'HTTP_KEEP_ALIVE_TIMEOUT', 72, false),
    idleMs: seconds(env, 'HTTP_IDLE_TIMEOUT', 300),
  };
  if (timeouts.headersMs > 0 && timeouts.requestMs > 0 && timeouts.headersMs > timeouts.requestMs) {
    throw new ConfigError('HTTP_HEADERS_TIMEOUT must not be longer than HTTP_REQUEST_TIMEOUT');
  }
  return timeouts;
}

/** `http://host:port`, an IPv6 host in brackets: the default PUBLIC_URL, and the address a server listens on. */
export function httpUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const host = optional(env, 'HOST') ?? '127.0.0.1';
  const portText = optional(env, 'PORT') ?? '8080';
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`PORT must be an integer between 0 and 65535, got '${portText}'`);
  }
  const searchBackend = optional(env, 'SEARCH_BACKEND') ?? 'embedded';
  if (searchBackend !== 'embedded' && searchBackend !== 'opensearch') {
    throw new ConfigError(`SEARCH_BACKEND must be 'embedded' or 'opensearch', got '${searchBackend}'`);
  }
  const opensearchUrl = optional(env, 'OPENSEARCH_URL');
  if (searchBackend === 'opensearch' && !opensearchUrl) {
    throw new ConfigError('SEARCH_BACKEND=opensearch needs OPENSEARCH_URL');
  }
  if (opensearchUrl && !/^https?:\/\//.test(opensearchUrl)) {
    throw new ConfigError('OPENSEARCH_URL must start with http:// or https://');
  }
  const opensearchPrefix = optional(env, 'OPENSEARCH_INDEX_PREFIX') ?? '';
  if (opensearchPrefix && !/^[a-z0-9][a-z0-9_.-]{0,49}$/.test(opensearchPrefix)) {
    throw new ConfigError('OPENSEARCH_INDEX_PREFIX must be lowercase letters, digits, ".", "_" or "-" (up to 50), starting with a letter or digit');
  }
  const opensearchMatching = optional(env, 'OPENSEARCH_MATCHING') ?? 'local';
  if (opensearchMatching !== 'local' && opensearchMatching !== 'cluster') {
    throw new ConfigError(`OPENSEARCH_MATCHING must be 'local' or 'cluster', got '${opensearchMatching}'`);
  }
  const opensearchUser = optional(env, 'OPENSEARCH_USERNAME');
  const opensearchApiKey = optional(env, 'OPENSEARCH_API_KEY');
  if (opensearchUser && opensearchApiKey) {
    throw new ConfigError('Give either OPENSEARCH_USERNAME/OPENSEARCH_PASSWORD or OPENSEARCH_API_KEY, not both');
  }
  const databaseUrl = optional(env, 'DATABASE_URL');
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with postgres:// or postgresql://');
  }
  const esCompatVersion = optional(env, 'ES_COMPAT_VERSION') ?? '8.19.0';
  if (!/^\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(esCompatVersion)) {
    throw new ConfigError(`ES_COMPAT_VERSION must be a version such as 8.17.0, got '${esCompatVersion.slice(0, 40)}'`);
  }
  const adminPassword = optional(env, 'ADMIN_PASSWORD');
  if (adminPassword !== undefined && adminPassword.length < 12) {
    throw new ConfigError('ADMIN_PASSWORD must be at least 12 characters');
  }
  const jwtSecret = optional(env, 'JWT_SECRET');
  if (jwtSecret !== undefined && jwtSecret.length < 32) {
    throw new ConfigError('JWT_SECRET must be at least 32 characters');
  }
  const publicUrl = (optional(env, 'PUBLIC_URL') ?? httpUrl(host, port)).replace(/\/+$/, '');
  let parsedPublicUrl: URL;
  try {
    parsedPublicUrl = new URL(publicUrl);
  } catch {
    throw new ConfigError(`PUBLIC_URL is not a valid URL: '${publicUrl}'`);
  }
  const oidcIssuer = optional(env, 'OIDC_ISSUER')?.replace(/\/\.well-known\/openid-configuration\/?$/, '');
  const oidcClientId = optional(env, 'OIDC_CLIENT_ID');
  const warnings: string[] = [];
  const ssoMissing = missingSsoSettings(env, oidcIssuer, oidcClientId);
  if (ssoMissing) warnings.push(ssoMissing);
  else checkOidc(env, oidcIssuer, oidcClientId);
  return {
    host,
    port,
    dataDir: resolve(optional(env, 'DATA_DIR') ?? './data'),
    databaseUrl,
    adminUsername: optional(env, 'ADMIN_USERNAME') ?? 'admin',
    adminPassword,
    jwtSecret,
    publicUrl,
    secureCookies: parsedPublicUrl.protocol === 'https:',
    searchBackend,
    searchBackendOffline: optional(env, 'SEARCH_BACKEND_OFFLINE') === 'true',
    notifyAllowPrivate: optional(env, 'NOTIFY_ALLOW_PRIVATE') === 'true',
    opensearch: {
      url: opensearchUrl,
      username: opensearchUser,
      password: optional(env, 'OPENSEARCH_PASSWORD'),
      apiKey: opensearchApiKey,
      caFile: optional(env, 'OPENSEARCH_CA_FILE'),
      indexPrefix: opensearchPrefix,
      matching: opensearchMatching,
    },
    oidc: {
      issuer: oidcIssuer,
      clientId: oidcClientId,
      clientSecret: optional(env, 'OIDC_CLIENT_SECRET'),
      redirectUri: optional(env, 'OIDC_REDIRECT_URI') ?? `${publicUrl}/api/auth/sso/callback`,
      scopes: optional(env, 'OIDC_SCOPES') ?? 'openid email profile',
      providerName: optional(env, 'OIDC_PROVIDER_NAME') ?? 'OpenID Connect',
      roleClaim: optional(env, 'OIDC_ROLE_CLAIM') ?? 'groups',
      roleMap: optional(env, 'OIDC_ROLE_MAP') ?? '',
      defaultRole: optional(env, 'OIDC_DEFAULT_ROLE') ?? 'viewer',
    },
    sessionTtlSeconds: 8 * 60 * 60,
    logLevel: optional(env, 'LOG_LEVEL') ?? 'info',
    esCompatVersion,
    http: httpTimeouts(env),
    matcherThreads: threads(env, 'MATCHER_THREADS', 2),
    ruleWork: { timeoutMs: seconds(env, 'RULE_WORK_TIMEOUT', 10, false), memoryMb: megabytes(env, 'RULE_WORK_MEMORY_MB', 256) },
    correlationLatenessMs: seconds(env, 'CORRELATION_LATENESS', 0),
    warnings,
  };
}

/** Why single sign-on stays off although some of its settings are given (decisions §1: it is on when
 * the issuer is set, but signing in also needs the client id), naming what is missing; undefined when
 * it is fully configured or not configured at all. */
function missingSsoSettings(env: NodeJS.ProcessEnv, issuer: string | undefined, clientId: string | undefined): string | undefined {
  if (issuer && !clientId) {
    const missing = optional(env, 'OIDC_CLIENT_SECRET') === undefined ? 'OIDC_CLIENT_ID and OIDC_CLIENT_SECRET are' : 'OIDC_CLIENT_ID is';
    return (
      `Single sign-on is off: OIDC_ISSUER is set but ${missing} not. Set OIDC_CLIENT_ID to the client registered ` +
      'with the identity provider, and OIDC_CLIENT_SECRET unless that client is public (PKCE only).'
    );
  }
  if (!issuer && clientId) return 'Single sign-on is off: OIDC_CLIENT_ID is set but OIDC_ISSUER is not. Set OIDC_ISSUER to the identity provider.';
  return undefined;
}

/** Single sign-on settings, when both issuer and client id are set: https (http only on this machine), a valid role map and default role. */
function checkOidc(env: NodeJS.ProcessEnv, issuer: string | undefined, clientId: string | undefined): void {
  if (!issuer || !clientId) return;
  let issuerUrl: URL;
  try {
    issuerUrl = new URL(issuer);
  } catch {
    throw new ConfigError(`OIDC_ISSUER is not a valid URL: '${issuer.slice(0, 200)}'`);
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(issuerUrl.hostname);
  if (issuerUrl.protocol !== 'https:' && !(issuerUrl.protocol === 'http:' && loopback)) {
    throw new ConfigError('OIDC_ISSUER must be an https:// URL (http:// only for a provider on localhost)');
  }
  const redirectUri = optional(env, 'OIDC_REDIRECT_URI');
  if (redirectUri !== undefined && !URL.canParse(redirectUri)) {
    throw new ConfigError(`OIDC_REDIRECT_URI is not a valid URL: '${redirectUri.slice(0, 200)}'`);
  }
  try {
    parseRoleMap(optional(env, 'OIDC_ROLE_MAP') ?? '');
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  const defaultRole = optional(env, 'OIDC_DEFAULT_ROLE') ?? 'viewer';
  if (!['admin', 'analyst', 'viewer'].includes(defaultRole)) {
    throw new ConfigError(`OIDC_DEFAULT_ROLE must be admin, analyst or viewer, got '${defaultRole.slice(0, 40)}'`);
  }
}
