// Schema validation: request bodies are checked strictly (no type coercion, unknown fields refused,
// nothing silently removed); query strings and path parameters are coerced from their text form.
// Two checks on top of the schemas keep database-level errors away from clients: strings with NUL
// characters or lone UTF-16 surrogates (a JSON "\ud800" escape: not Unicode, so neither PostgreSQL
// text nor jsonb can hold it) are refused, in values and keys alike, whatever the schema says of the
// field (free-form JSON such as a sample log included); date-times must be ones PostgreSQL can
// read (year 0001 or later, UTC offset within ±15:59), and a uuid is the plain 8-4-4-4-12 form (the
// `urn:uuid:` prefix that ajv-formats allows is not valid uuid input for PostgreSQL).
import AjvModule from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { unstorableTexts } from './storable-text.js';

const Ajv = AjvModule.default ?? AjvModule;
const addFormats = addFormatsModule.default ?? addFormatsModule;

type Ajv = InstanceType<typeof Ajv>;

const DATE_TIME = /^(\d{4})-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-](\d{2}):\d{2})$/;

/** Narrows the RFC 3339 date-time format of ajv-formats to what PostgreSQL accepts. */
function restrictDateTime(ajv: Ajv): void {
  const base = ajv.formats['date-time'];
  const baseCheck =
    typeof base === 'function'
      ? base
      : base instanceof RegExp
        ? (value: string) => base.test(value)
        : typeof base === 'object' && typeof base.validate === 'function'
          ? (base.validate as (value: string) => boolean)
          : () => true;
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (value: string) => {
      if (!baseCheck(value)) return false;
      const match = DATE_TIME.exec(value);
      if (!match) return false;
      if (Number(match[1]) < 1) return false;
      return match[2] === undefined || Number(match[2]) <= 15;
    },
  });
}

function makeAjv(coerce: boolean) {
  const ajv = new Ajv({
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional: false,
    allErrors: true,
    strict: false,
  });
  addFormats(ajv);
  restrictDateTime(ajv);
  ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
  return ajv;
}

const bodyAjv = makeAjv(false);
const textAjv = makeAjv(true);

interface ValidationIssue {
  instancePath: string;
  keyword: string;
  message: string;
  params: Record<string, unknown>;
}

const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** Every string (value or object key) in `data` that PostgreSQL cannot store, as schema issues. */
function unstorableTextIssues(data: unknown): ValidationIssue[] {
  return unstorableTexts(data).map(({ path, message }) => ({
    instancePath: path.map((segment) => `/${escapePointer(segment)}`).join(''),
    keyword: 'text',
    message,
    params: {},
  }));
}

type Validate = ((data: unknown, dataCtx?: unknown) => boolean) & { errors?: unknown; schemaEnv?: unknown };

function refuseUnstorableText(validate: Validate): Validate {
  const wrapped: Validate = (data, dataCtx) => {
    const valid = validate(data, dataCtx);
    const text = unstorableTextIssues(data);
    if (text.length === 0) {
      wrapped.errors = validate.errors;
      return valid;
    }
    wrapped.errors = [...((validate.errors as ValidationIssue[] | null | undefined) ?? []), ...text];
    return false;
  };
  // Fastify passes the parent object to Ajv-compiled functions (so defaults can be applied at the root).
  wrapped.schemaEnv = validate.schemaEnv;
  return wrapped;
}

/**
 * A validator compiled at its first use: compiling every route's schemas while the server starts costs
 * about a second of CPU, for checks one process runs late or never. Ajv's functions take the parent
 * object (so defaults can be applied at the root), which Fastify passes when `schemaEnv` is set.
 */
function compiledOnFirstUse(compile: () => Validate): Validate {
  let validate: Validate | undefined;
  const lazy: Validate = (data, dataCtx) => {
    validate ??= compile();
    const valid = validate(data, dataCtx);
    lazy.errors = validate.errors;
    return valid;
  };
  lazy.schemaEnv = true;
  return lazy;
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  const validate = compiledOnFirstUse(() => refuseUnstorableText(ajv.compile(schema as object) as unknown as Validate));
  return validate as unknown as ReturnType<FastifySchemaCompiler<unknown>>;
};
