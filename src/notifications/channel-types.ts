// The kinds of notification channel and what each one's `config` holds: its schema, which settings are
// secret (sealed at rest, answered as "***"), and the checks a schema cannot say (a URL's scheme).
import { Type, type TSchema } from '@fastify/type-provider-typebox';
import { Value } from 'typebox/value';
import type { FieldError } from '../http/errors.js';

export const CHANNEL_TYPES = ['webhook', 'slack', 'teams', 'discord', 'email', 'syslog'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

/** What a secret setting reads as in every answer after the channel's creation. */
export const MASK = '***';

const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'http:// or https:// address of the receiver' });
const Host = Type.String({ minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9.:\\[\\]-]+$' });
const Port = Type.Integer({ minimum: 1, maximum: 65535 });
const Email = Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@<>]+@[^\\s@<>]+$' });

interface ChannelKind {
  schema: TSchema;
  /** Settings kept sealed and never answered. */
  secrets: readonly string[];
  /** Settings holding a URL the service will call. */
  urls: readonly string[];
}

const chat: ChannelKind = {
  schema: Type.Object({ url: Url }, { additionalProperties: false }),
  // A chat's incoming-webhook address is itself the credential.
  secrets: ['url'],
  urls: ['url'],
};

export const CHANNEL_KINDS: Record<ChannelType, ChannelKind> = {
  webhook: {
    schema: Type.Object(
      {
        url: Url,
        secret: Type.Optional(Type.String({ minLength: 16, maxLength: 256, description: 'Signs each request (X-Vigil-Signature); at least 16 characters' })),
        headers: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Za-z0-9-]{1,64}$' }), Type.String({ maxLength: 1024 }), { maxProperties: 20 })),
      },
      { additionalProperties: false },
    ),
    secrets: ['secret', 'headers'],
    urls: ['url'],
  },
  slack: chat,
  teams: chat,
  discord: chat,
  email: {
    schema: Type.Object(
      {
        host: Host,
        port: Port,
        security: Type.Union([Type.Literal('starttls'), Type.Literal('tls'), Type.Literal('none')]),
        username: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
        password: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
        from: Email,
        to: Type.Array(Email, { minItems: 1, maxItems: 50 }),
      },
      { additionalProperties: false },
    ),
    secrets: ['password'],
    urls: [],
  },
  syslog: {
    schema: Type.Object(
      {
        host: Host,
        port: Port,
        protocol: Type.Union([Type.Literal('udp'), Type.Literal('tcp'), Type.Literal('tls')]),
        format: Type.Union([Type.Literal('rfc5424'), Type.Literal('cef')]),
      },
      { additionalProperties: false },
    ),
    secrets: [],
    urls: [],
  },
};

export const isChannelType = (type: string): type is ChannelType => (CHANNEL_TYPES as readonly string[]).includes(type);

interface Issue {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message: string;
}

/** The problems of a channel's config for its type, each naming the field (body.config.<name>). */
export function configProblems(type: ChannelType, config: unknown): FieldError[] {
  const field = (path: string) => ['body.config', ...path.split('/').filter(Boolean)].join('.');
  const problems: FieldError[] = [];
  for (const issue of Value.Errors(CHANNEL_KINDS[type].schema, config) as Issue[]) {
    if (issue.keyword === 'required') {
      for (const name of issue.params.requiredProperties as string[]) problems.push({ field: field(`${issue.instancePath}/${name}`), message: 'is required' });
    } else if (issue.keyword === 'additionalProperties') {
      for (const name of issue.params.additionalProperties as string[]) problems.push({ field: field(`${issue.instancePath}/${name}`), message: `is not a setting of a ${type} channel` });
    } else if (issue.keyword !== 'boolean' && issue.keyword !== 'anyOf') {
      problems.push({ field: field(issue.instancePath), message: issue.message });
    }
  }
  if (problems.length > 0) return problems;
  for (const name of CHANNEL_KINDS[type].urls) {
    const text = (config as Record<string, string>)[name];
    let url: URL | undefined;
    try {
      url = new URL(text);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) {
      problems.push({ field: field(name), message: 'must be an http:// or https:// URL' });
    } else if (url.username || url.password) {
      problems.push({ field: field(name), message: 'must not hold a user name or password (use headers or the secret)' });
    }
  }
  return problems;
}

/** Splits a valid config into what is stored in the clear and what is sealed. */
export function splitSecrets(type: ChannelType, config: Record<string, unknown>): { plain: Record<string, unknown>; secret: Record<string, unknown> } {
  const plain: Record<string, unknown> = {};
  const secret: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(config)) (CHANNEL_KINDS[type].secrets.includes(name) ? secret : plain)[name] = value;
  return { plain, secret };
}

/** The config as answered: secret settings that are set read "***". */
export function maskedConfig(type: ChannelType, plain: Record<string, unknown>, secretNames: string[]): Record<string, unknown> {
  const masked: Record<string, unknown> = { ...plain };
  for (const name of CHANNEL_KINDS[type].secrets) if (secretNames.includes(name)) masked[name] = MASK;
  return masked;
}
