// Route schemas of the Elasticsearch facade: the documents shippers read (root, licence, health), the
// _bulk answer, and the error body, which carries Elasticsearch's {error, status} beside the service's
// own {detail, status_code}.
import { Type, type TSchema } from '@fastify/type-provider-typebox';

const EsErrorBody = Type.Object(
  {
    detail: Type.String(),
    status_code: Type.Integer(),
    error: Type.Optional(
      Type.Object({
        root_cause: Type.Array(Type.Object({ type: Type.String(), reason: Type.String() })),
        type: Type.String(),
        reason: Type.String(),
      }),
    ),
    status: Type.Optional(Type.Integer()),
  },
  { description: "An error in Elasticsearch's shape ({error: {type, reason}, status}) and the service's ({detail, status_code})" },
);

export function esErrorResponses(...codes: number[]): Record<number, TSchema> {
  return Object.fromEntries(codes.map((code) => [code, EsErrorBody]));
}

export const RootDocument = Type.Object({
  name: Type.String(),
  cluster_name: Type.String(),
  cluster_uuid: Type.String(),
  version: Type.Object({
    number: Type.String(),
    build_flavor: Type.String(),
    build_type: Type.String(),
    build_hash: Type.String(),
    build_date: Type.String(),
    build_snapshot: Type.Boolean(),
    lucene_version: Type.String(),
    minimum_wire_compatibility_version: Type.String(),
    minimum_index_compatibility_version: Type.String(),
  }),
  tagline: Type.String(),
});

export const LicenseDocument = Type.Object({
  license: Type.Object({
    status: Type.String(),
    uid: Type.String(),
    type: Type.String(),
    issue_date: Type.String(),
    issue_date_in_millis: Type.Integer(),
    max_nodes: Type.Integer(),
    issued_to: Type.String(),
    issuer: Type.String(),
    start_date_in_millis: Type.Integer(),
  }),
});

export const HealthDocument = Type.Object({
  cluster_name: Type.String(),
  status: Type.String(),
  timed_out: Type.Boolean(),
  number_of_nodes: Type.Integer(),
  number_of_data_nodes: Type.Integer(),
  active_primary_shards: Type.Integer(),
  active_shards: Type.Integer(),
  relocating_shards: Type.Integer(),
  initializing_shards: Type.Integer(),
  unassigned_shards: Type.Integer(),
  delayed_unassigned_shards: Type.Integer(),
  number_of_pending_tasks: Type.Integer(),
  number_of_in_flight_fetch: Type.Integer(),
  task_max_waiting_in_queue_millis: Type.Integer(),
  active_shards_percent_as_number: Type.Number(),
});

const BulkItem = Type.Object({
  _index: Type.String(),
  _id: Type.String(),
  status: Type.Integer({ description: '201 stored; 400 refused (not retried by shippers)' }),
  _version: Type.Optional(Type.Integer()),
  result: Type.Optional(Type.Literal('created')),
  _shards: Type.Optional(Type.Object({ total: Type.Integer(), successful: Type.Integer(), failed: Type.Integer() })),
  _seq_no: Type.Optional(Type.Integer()),
  _primary_term: Type.Optional(Type.Integer()),
  error: Type.Optional(Type.Object({ type: Type.String(), reason: Type.String() })),
});

export const BulkAnswerSchema = Type.Object({
  took: Type.Integer(),
  errors: Type.Boolean(),
  items: Type.Array(Type.Record(Type.String(), BulkItem), { description: 'One per action, in order, under the action key (index, create, update, delete)' }),
});
