// Rule testing without side effects: against a sample event (saved or unsaved rule) and against
// stored history (dry run over 1h/6h/1d/7d, scanned in bounded batches, each matched with the rule's
// exceptions on a rule worker under the per-event work budget). Tests never create alerts.
import { Type } from '@fastify/type-provider-typebox';
import { nestedTooDeep } from '../sigma/index.js';
import type { App, AppContext } from '../http/context.js';
import { HttpError, badRequest, notFound, unprocessable } from '../http/errors.js';
import { errorResponses, Nullable, Timestamp, Uuid } from '../http/schemas.js';
import { findPatternById, findPatternByName, type IndexPatternRow } from '../index-patterns/store.js';
import { parseSigma } from './analysis.js';
import { compileTester, samplesOf, testAgainstHistory, testAgainstSamples } from './correlation-testing.js';
import type { SigmaRule } from '../sigma/index.js';
import { NO_INDEX_PATTERN } from './deployment.js';
import { enabledExceptionSpecs } from './exceptions/store.js';
import { RULE_NOT_FOUND } from './service.js';
import { findRule } from './store.js';
import { analyst } from './routes.js';
import { closeRuleWorkers, runRuleJob } from './rule-workers.js';
import { MAX_EVENTS_SCANNED, testOverHistory } from './history-scan.js';

export const INVALID_SAMPLE = 'Invalid sample log format';
export const HISTORY_UNAVAILABLE = 'Search backend unavailable: the historical test cannot run';
const TIME_RANGES = { '1h': 3600, '6h': 6 * 3600, '1d': 24 * 3600, '7d': 7 * 24 * 3600 } as const;

const MatchedConditions = Type.Array(Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown())));
const FiringSchema = Type.Object(
  {
    group: Type.Record(Type.String(), Type.Unknown(), { description: 'The group-by values of the window (a missing field is null)' }),
    window_start: Timestamp,
    window_end: Timestamp,
    value: Type.Number({ description: 'The count, distinct count, number of rules seen, sum, average or percentile the condition held for' }),
    event_count: Type.Integer({ description: 'Rule matches in the window' }),
    events: Type.Array(Type.Union([Type.Integer(), Type.String()]), { description: 'Contributing events: positions in the samples (from 0), or stored event ids' }),
  },
  { description: 'A window in which the correlation condition held' },
);

const TestResult = Type.Object({
  matches: Type.Boolean({ description: 'The event matches the rule; for a correlation rule: the samples make it fire at least once' }),
  rule_id: Nullable(Uuid),
  rule_title: Type.String(),
  matched_conditions: MatchedConditions,
  excepted: Type.Boolean({ description: 'An enabled exception of the rule would suppress the alert' }),
  firings: Type.Optional(Type.Array(FiringSchema, { description: 'Correlation rules only: every firing over the samples, in event-time order' })),
});

/** Tests a correlation rule (stored or not) against the request's sample events. */
async function correlationTest(ctx: AppContext, sigma: SigmaRule, pattern: IndexPatternRow | undefined, sample: unknown, rule: { id: string; title: string } | null) {
  const samples = samplesOf(sample, INVALID_SAMPLE);
  const tester = await compileTester(ctx, sigma, pattern, rule?.id);
  const firings = await testAgainstSamples(tester, samples);
  return { rule_id: rule?.id ?? null, rule_title: rule?.title ?? sigma.title, matches: firings.length > 0, matched_conditions: [], excepted: false, firings };
}

/** The pattern an unsaved test names (422 when it does not exist); without one, field names as written. */
async function patternForTest(ctx: AppContext, name: string | undefined): Promise<IndexPatternRow | undefined> {
  if (name === undefined) return undefined;
  const pattern = await findPatternByName(ctx.db, name);
  if (!pattern) throw unprocessable('Rule validation failed', [{ field: 'index_pattern', message: `index pattern '${name}' does not exist` }]);
  return pattern;
}

/** Whether unsaved YAML is a correlation rule (cheap look before the full parse). */
const looksLikeCorrelation = (yaml: string) => /^correlation\s*:/m.test(yaml);

function sampleOf(body: { sample_log?: unknown }): Record<string, unknown> {
  const sample = body.sample_log;
  if (sample === null || typeof sample !== 'object' || Array.isArray(sample) || nestedTooDeep(sample)) throw badRequest(INVALID_SAMPLE);
  return sample as Record<string, unknown>;
}

function parseStoredSigma(yaml: string) {
  try {
    return parseSigma(yaml, 'Rule validation failed');
  } catch (error) {
    if (error instanceof HttpError && error.statusCode === 400) throw unprocessable('Rule validation failed', [{ field: 'yaml_content', message: error.detail }]);
    throw error;
  }
}

export function testingRoutes(app: App, ctx: AppContext): void {
  app.addHook('onClose', () => closeRuleWorkers(ctx));
  app.post(
    '/api/rules/:id/test',
    {
      config: analyst,
      schema: {
        tags: ['rule testing'],
        operationId: 'testRule',
        summary: 'Test a saved rule against a sample event (no alert is created)',
        params: Type.Object({ id: Uuid }),
        body: Type.Object({ sample_log: Type.Optional(Type.Unknown()) }, { additionalProperties: false }),
        response: { 200: TestResult, ...errorResponses(400, 401, 403, 404, 413, 422, 503) },
      },
    },
    async (request) => {
      const rule = await findRule(ctx.db, request.params.id);
      if (!rule) throw notFound(RULE_NOT_FOUND);
      const pattern = rule.index_pattern_id ? ((await findPatternById(ctx.db, rule.index_pattern_id)) ?? null) : null;
      if (rule.rule_type === 'correlation') return correlationTest(ctx, parseStoredSigma(rule.yaml_content), pattern ?? undefined, request.body.sample_log, rule);
      const sample = sampleOf(request.body);
      const exceptions = await enabledExceptionSpecs(ctx.db, rule.id);
      const outcome = await runRuleJob(ctx, { kind: 'test', yaml: rule.yaml_content, pattern, sample, exceptions, stored: true });
      return { rule_id: rule.id, rule_title: rule.title, matches: outcome.matches, matched_conditions: outcome.matched_conditions, excepted: outcome.excepted };
    },
  );

  app.post(
    '/api/rules/test',
    {
      config: analyst,
      schema: {
        tags: ['rule testing'],
        operationId: 'testRuleYaml',
        summary: 'Test unsaved Sigma YAML against a sample event',
        body: Type.Object(
          {
            yaml_content: Type.String({ minLength: 1, maxLength: 1024 * 1024 }),
            sample_log: Type.Optional(Type.Unknown()),
            index_pattern: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: TestResult, ...errorResponses(400, 401, 403, 413, 422, 503) },
      },
    },
    async (request) => {
      if (looksLikeCorrelation(request.body.yaml_content)) {
        await runRuleJob(ctx, { kind: 'check', yaml: request.body.yaml_content, pattern: null, detail: 'Rule validation failed', parseOnly: true });
        const sigma = parseSigma(request.body.yaml_content, 'Rule validation failed');
        if (sigma.kind === 'correlation') {
          const pattern = await patternForTest(ctx, request.body.index_pattern);
          return correlationTest(ctx, sigma, pattern, request.body.sample_log, null);
        }
      }
      const sample = sampleOf(request.body);
      let pattern: IndexPatternRow | null = null;
      if (request.body.index_pattern !== undefined) {
        pattern = (await findPatternByName(ctx.db, request.body.index_pattern)) ?? null;
        if (!pattern) {
          // The YAML's own errors come first, as they did when it was parsed before the pattern was looked up.
          await runRuleJob(ctx, { kind: 'check', yaml: request.body.yaml_content, pattern: null, detail: 'Rule validation failed', parseOnly: true });
          throw unprocessable('Rule validation failed', [{ field: 'index_pattern', message: `index pattern '${request.body.index_pattern}' does not exist` }]);
        }
      }
      const outcome = await runRuleJob(ctx, { kind: 'test', yaml: request.body.yaml_content, pattern, sample, exceptions: [], stored: false });
      return { rule_id: null, rule_title: outcome.title, matches: outcome.matches, matched_conditions: outcome.matched_conditions, excepted: false };
    },
  );

  app.post(
    '/api/rules/:id/test/historical',
    {
      config: analyst,
      schema: {
        tags: ['rule testing'],
        operationId: 'testRuleHistorical',
        summary: "Dry run of a saved rule over its index pattern's stored events",
        params: Type.Object({ id: Uuid }),
        body: Type.Object(
          {
            time_range: Type.Unsafe<keyof typeof TIME_RANGES>({ type: 'string', enum: Object.keys(TIME_RANGES) }),
            limit: Type.Integer({ minimum: 1, maximum: 100, default: 10 }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            rule_id: Uuid,
            rule_title: Type.String(),
            time_range: Type.String(),
            matches: Type.Integer({ description: 'Stored events in the range that match the rule' }),
            excepted: Type.Integer({ description: 'How many of those an enabled exception would suppress' }),
            events_scanned: Type.Integer(),
            truncated: Type.Boolean({ description: 'True when the scan stopped at the per-test event limit' }),
            sample_matches: Type.Array(Type.Record(Type.String(), Type.Unknown())),
          }),
          ...errorResponses(400, 401, 403, 404, 413, 422, 503),
        },
      },
    },
    async (request) => {
      const { time_range, limit } = request.body;
      const until = new Date();
      const since = new Date(until.getTime() - TIME_RANGES[time_range] * 1000);
      const stored = await findRule(ctx.db, request.params.id);
      if (stored?.rule_type === 'correlation') {
        const pattern = stored.index_pattern_id ? await findPatternById(ctx.db, stored.index_pattern_id) : undefined;
        if (!pattern) throw badRequest(NO_INDEX_PATTERN);
        const tester = await compileTester(ctx, parseStoredSigma(stored.yaml_content), pattern, stored.id);
        if (!(await ctx.backend.health())) throw new HttpError(503, HISTORY_UNAVAILABLE);
        const { firings, scanned, truncated } = await testAgainstHistory(ctx, tester, pattern, since, until, MAX_EVENTS_SCANNED);
        const samples = firings.slice(0, limit).map((f) => ({ ...f, timestamp: f.window_end }));
        return { rule_id: stored.id, rule_title: stored.title, time_range, matches: firings.length, excepted: 0, events_scanned: scanned, truncated, sample_matches: samples };
      }
      if (!stored) throw notFound(RULE_NOT_FOUND);
      const rule = stored;
      const pattern = rule.index_pattern_id ? await findPatternById(ctx.db, rule.index_pattern_id) : undefined;
      // Checked on a rule worker: a stored rule that no longer validates is a 422, one over a work limit refused there.
      await runRuleJob(ctx, { kind: 'check', yaml: rule.yaml_content, pattern: pattern ?? null, detail: 'Rule validation failed', stored: true });
      if (!pattern) throw badRequest(NO_INDEX_PATTERN);
      const exceptions = await enabledExceptionSpecs(ctx.db, rule.id);
      if (!(await ctx.backend.health())) throw new HttpError(503, HISTORY_UNAVAILABLE);
      const outcome = await testOverHistory(ctx, { yaml: rule.yaml_content, pattern, exceptions, since, until, limit });
      const { matches, excepted, scanned, truncated, samples } = outcome;
      return { rule_id: rule.id, rule_title: rule.title, time_range, matches, excepted, events_scanned: scanned, truncated, sample_matches: samples };
    },
  );
}
