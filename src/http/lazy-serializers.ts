// Response serializers compiled at their first use. Fastify compiles a serializer for every response
// schema of every route while the server starts: about a second of CPU for this API, most of it for
// answers one process gives late or never. Each route's serializer is built by Fastify's own compiler
// (fast-json-stringify, with the shared schemas) the first time that route answers with that status.
import SerializerSelector from '@fastify/fast-json-stringify-compiler';

type Factory = ReturnType<typeof SerializerSelector>;
type Serializer = ReturnType<ReturnType<Factory>>;

const compilerFactory = SerializerSelector();

/** The `schemaController.compilersFactory.buildSerializer` of the app: Fastify's, deferred per route. */
export const buildLazySerializer: Factory = (externalSchemas, options) => {
  const compile = compilerFactory(externalSchemas, options);
  return (route) => {
    let serializer: Serializer | undefined;
    return (doc) => (serializer ??= compile(route))(doc);
  };
};
