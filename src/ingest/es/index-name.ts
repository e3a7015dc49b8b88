// Whether the index a `_bulk` path names (`/api/es/{index}/_bulk`) can be an Elasticsearch index name at
// all. The name is kept with each event as its `_index` tag and chooses no storage, so the check is
// only Elasticsearch's own: 1 to 255 bytes, not `.` or `..`, not starting with `-`, `_` or `+`, and
// none of `\ / * ? " < > | , #`, spaces or control characters. Upper case is let through (a tag, not
// a storage name). A name that fails answers 404 saying why: no such index can exist.

const MAX_BYTES = 255;
const FORBIDDEN = /[\\/*?"<>|,#\s\p{Cc}]/u;

/** Why `name` cannot be an index name, or undefined when it can. */
export function indexNameProblem(name: string): string | undefined {
  if (name === '') return 'it is empty';
  if (name === '.' || name === '..') return `it must not be "${name}"`;
  if (Buffer.byteLength(name, 'utf8') > MAX_BYTES) return `it is longer than ${MAX_BYTES} bytes`;
  if (/^[-_+]/.test(name)) return 'it must not start with "-", "_" or "+"';
  const bad = FORBIDDEN.exec(name)?.[0];
  if (bad !== undefined) return `it must not contain ${/[\s\p{Cc}]/u.test(bad) ? 'spaces or control characters' : `"${bad}"`}`;
  return undefined;
}
