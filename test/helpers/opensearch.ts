// Tests against a real OpenSearch node (scripts/opensearch.sh or scripts/opensearch-up.sh start one):
// where it is (OPENSEARCH_TEST_URL, default http://127.0.0.1:9200), whether it answers (a skip message
// when not; with CI=true a missing node is a failure instead), plain JSON/NDJSON requests, and indices
// named with a prefix unique to one test run so that runs never see each other's data and can delete
// everything they made.
import { randomBytes } from 'node:crypto';

export const OPENSEARCH_TEST_URL = (process.env.OPENSEARCH_TEST_URL || 'http://127.0.0.1:9200').replace(/\/+$/, '');

let probe: Promise<string | undefined> | undefined;

/** Why the OpenSearch tests cannot run here, or undefined when a node answers. Throws under CI=true. */
export function openSearchMissing(): Promise<string | undefined> {
  probe ??= (async () => {
    let reason: string | undefined;
    try {
      const res = await fetch(`${OPENSEARCH_TEST_URL}/_cluster/health`, { signal: AbortSignal.timeout(3000) });
      const body = (await res.json()) as { status?: string };
      if (!res.ok || (body.status !== 'green' && body.status !== 'yellow')) {
        reason = `OpenSearch at ${OPENSEARCH_TEST_URL} is not healthy (HTTP ${res.status}, status ${body.status})`;
      }
    } catch (error) {
      reason = `no OpenSearch answers at ${OPENSEARCH_TEST_URL} (${(error as Error).message}); start one with scripts/opensearch.sh`;
    }
    if (reason && process.env.CI === 'true') throw new Error(`CI=true but ${reason}`);
    return reason;
  })();
  return probe;
}

export interface OpenSearchAnswer<T = Record<string, unknown>> {
  status: number;
  body: T;
  /** The `Warning` header (deprecations), when the node sent one. */
  warning: string | null;
}

/** One request to the test node: `body` is sent as JSON, or as given when it is a string (NDJSON). */
export async function openSearch<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<OpenSearchAnswer<T>> {
  const ndjson = typeof body === 'string';
  const res = await fetch(`${OPENSEARCH_TEST_URL}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': ndjson ? 'application/x-ndjson' : 'application/json' },
    body: body === undefined ? undefined : ndjson ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as T, warning: res.headers.get('warning') };
}

/** NDJSON for `_bulk`: one action line, then its source line when it has one. */
export function bulkBody(lines: Array<Record<string, unknown>>): string {
  return lines.map((line) => JSON.stringify(line)).join('\n') + '\n';
}

export interface TestIndices {
  /** The prefix every index of this run starts with (lower case, as index names must be). */
  prefix: string;
  /** The name of this run's index `suffix`. */
  name(suffix: string): string;
  /** Deletes every index and index template of this run. */
  deleteAll(): Promise<void>;
}

/** Index names unique to this test run: `vigil-test-<random>-<suffix>`. */
export function testIndices(): TestIndices {
  const prefix = `vigil-test-${randomBytes(5).toString('hex')}-`;
  return {
    prefix,
    name: (suffix) => `${prefix}${suffix.toLowerCase()}`,
    async deleteAll() {
      const answer = await openSearch('DELETE', `/${encodeURIComponent(prefix)}*?expand_wildcards=all`);
      if (answer.status !== 200) throw new Error(`deleting ${prefix}* failed: ${answer.status} ${JSON.stringify(answer.body)}`);
      const templates = await openSearch('DELETE', `/_index_template/${encodeURIComponent(prefix)}*`);
      if (templates.status !== 200 && templates.status !== 404) throw new Error(`deleting the templates ${prefix}* failed: ${templates.status} ${JSON.stringify(templates.body)}`);
    },
  };
}
