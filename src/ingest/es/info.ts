// The fixed documents the Elasticsearch facade answers to log shippers' start-up probes: the root
// document (version, build flavour, tagline that clients check), the licence, cluster health, the
// node list of sniffing clients and the X-Pack feature list. Nothing here reveals anything real.

/** Same for every instance: shippers only read it, none compares it across requests. */
const CLUSTER_UUID = 'vigil-es-facade-0000000';
const NODE_ID = 'vigil-node-0';

/** The Lucene version a real Elasticsearch of that major version ships with (clients only log it). */
function luceneVersion(major: number): string {
  if (major >= 9) return '10.1.0';
  if (major === 8) return '9.12.0';
  if (major === 7) return '8.11.1';
  return '7.7.3';
}

/** The root document (`GET /`): Beats read version.number; Logstash and the official clients check
 * build_flavor "default" and the tagline (before 7.14) or the X-Elastic-Product header (after). */
export function rootDocument(version: string) {
  const major = Number(version.split('.')[0]);
  return {
    name: 'vigil',
    cluster_name: 'vigil',
    cluster_uuid: CLUSTER_UUID,
    version: {
      number: version,
      build_flavor: 'default',
      build_type: 'docker',
      build_hash: '0000000000000000000000000000000000000000',
      build_date: '2025-01-01T00:00:00.000Z',
      build_snapshot: false,
      lucene_version: luceneVersion(major),
      minimum_wire_compatibility_version: `${Math.max(major - 1, 0)}.17.0`,
      minimum_index_compatibility_version: `${Math.max(major - 1, 0)}.0.0`,
    },
    tagline: 'You Know, for Search',
  };
}

/** `GET /_license`: Logstash marks a node dead unless the status is "active". */
export const LICENSE_DOCUMENT = {
  license: {
    status: 'active',
    uid: '00000000-0000-4000-8000-000000000000',
    type: 'basic',
    issue_date: '2025-01-01T00:00:00.000Z',
    issue_date_in_millis: 1735689600000,
    max_nodes: 1000,
    issued_to: 'vigil',
    issuer: 'vigil',
    start_date_in_millis: -1,
  },
};

/** `GET /_cluster/health`: Vector's health check wants a 200. */
export const HEALTH_DOCUMENT = {
  cluster_name: 'vigil',
  status: 'green',
  timed_out: false,
  number_of_nodes: 1,
  number_of_data_nodes: 1,
  active_primary_shards: 0,
  active_shards: 0,
  relocating_shards: 0,
  initializing_shards: 0,
  unassigned_shards: 0,
  delayed_unassigned_shards: 0,
  number_of_pending_tasks: 0,
  number_of_in_flight_fetch: 0,
  task_max_waiting_in_queue_millis: 0,
  active_shards_percent_as_number: 100.0,
};

/** `GET /_nodes[/http]`: one node reachable at the address the client used (sniffing clients). */
export function nodesDocument(version: string, host: string) {
  return {
    _nodes: { total: 1, successful: 1, failed: 0 },
    cluster_name: 'vigil',
    nodes: {
      [NODE_ID]: {
        name: 'vigil',
        version,
        roles: ['data', 'ingest', 'master'],
        http: { publish_address: host, bound_address: [host], max_content_length_in_bytes: 10 * 1024 * 1024 },
      },
    },
  };
}

/** `GET /_xpack`: Fluentd's ILM support probes features.ilm. */
export function xpackDocument() {
  const on = { available: true, enabled: true };
  return {
    build: { hash: '0000000000000000000000000000000000000000', date: '2025-01-01T00:00:00.000Z' },
    license: { uid: LICENSE_DOCUMENT.license.uid, type: 'basic', mode: 'basic', status: 'active' },
    features: { ilm: on, security: on, monitoring: on },
    tagline: 'for the Elasticsearch compatibility of Vigil',
  };
}
