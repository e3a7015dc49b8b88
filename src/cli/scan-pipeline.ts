// The pipeline of a scan: the preset named by --pipeline, with the --map field mappings (before the
// preset's, for rules of every log source, as an index pattern's own mappings), the --placeholders
// values and the --scope log sources. Promises: the preset alone when none of those is given (the scan
// runs exactly as before); a placeholders file that cannot be read or is not a mapping of names to a
// value or a list of values is a UsageError naming the problem.
import { readFileSync, statSync } from 'node:fs';
import { buildPipeline, loadYaml, type Pipeline } from '../sigma/index.js';
import { UsageError, type ScanArgs } from './scan-args.js';

const MAX_PLACEHOLDERS_BYTES = 1024 * 1024;

/** A placeholder value as text: strings as they are, numbers as written in YAML/JSON. */
function valueText(v: unknown): string | undefined {
  if (typeof v === 'string' && v !== '') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return undefined;
}

export function readPlaceholders(path: string): Record<string, string[]> {
  let text: string;
  try {
    if (statSync(path).size > MAX_PLACEHOLDERS_BYTES) throw new UsageError(`--placeholders ${path}: larger than 1 MiB`);
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError(`--placeholders ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
  let doc: unknown;
  if (/\.json$/i.test(path)) {
    try {
      doc = JSON.parse(text);
    } catch (e) {
      throw new UsageError(`--placeholders ${path}: not valid JSON (${(e as Error).message})`);
    }
  } else {
    const loaded = loadYaml(text);
    if (!loaded.ok) throw new UsageError(`--placeholders ${path}: ${loaded.message}`);
    if (loaded.documents.length > 1) throw new UsageError(`--placeholders ${path}: one YAML document expected`);
    doc = loaded.documents[0];
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new UsageError(`--placeholders ${path}: expected a mapping of placeholder names to values`);
  const out: Record<string, string[]> = {};
  for (const [name, raw] of Object.entries(doc)) {
    const values = (Array.isArray(raw) ? raw : [raw]).map(valueText);
    if (values.length === 0 || values.some((v) => v === undefined)) {
      throw new UsageError(`--placeholders ${path}: '${name}' needs a value or a list of values (non-empty text or numbers)`);
    }
    Object.defineProperty(out, name, { value: values as string[], enumerable: true, writable: true, configurable: true });
  }
  return out;
}

export function scanPipeline(preset: Pipeline, args: ScanArgs): Pipeline {
  if (args.maps.length === 0 && args.placeholders === undefined && args.scope.length === 0) return preset;
  const grouped = new Map<string, string[]>();
  for (const m of args.maps) {
    const targets = grouped.get(m.sigmaField) ?? [];
    if (!targets.includes(m.targetField)) targets.push(m.targetField);
    grouped.set(m.sigmaField, targets);
  }
  const built = buildPipeline({
    defaultMapping: preset.defaultMapping,
    fieldMappings: [...grouped].map(([sigmaField, targetFields]) => ({ sigmaField, targetFields })),
    preset: preset.name,
    ...(args.placeholders === undefined ? {} : { vars: readPlaceholders(args.placeholders) }),
    logsourceScope: args.scope,
  });
  // Messages name the preset the user chose.
  return { ...built, name: preset.name };
}
