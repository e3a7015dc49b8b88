// The atomic values a STIX 2.1 pattern names: comparisons `<object>:<path> = '<value>'` (and `IN (...)`)
// on ipv4-addr/ipv6-addr/domain-name/url values, file hashes and network-traffic references. A pattern
// whose comparisons are joined by OR (within or across observation brackets) names each of its values;
// one with AND or FOLLOWEDBY names only file hashes (a hash pins the file whatever else is required),
// since its other values alone would be broader than the pattern. Negated comparisons and other
// operators name nothing. Pure.
import { detectType, type IndicatorType } from '../indicators.js';

export interface PatternValue {
  type: IndicatorType | 'detect';
  value: string;
}

const MAX_PATTERN_LENGTH = 64 * 1024;
const STRING = /'((?:[^'\\]|\\.)*)'/g;
// Bounded names and an operand list whose separators and literals cannot overlap keep the search linear.
const COMPARISON = /([a-z0-9-]{1,64}):([A-Za-z0-9_.$[\]*-]{1,256})\s{0,64}(NOT\s{1,64})?(=|IN|!=|>=|<=|>|<|LIKE|MATCHES|ISSUBSET|ISSUPERSET)\s{0,64}(\$\d+|\((?:[\s,]*\$\d+)*[\s,]*\))/g;

const HASHES: Record<string, IndicatorType> = { MD5: 'md5', SHA1: 'sha1', 'SHA-1': 'sha1', SHA256: 'sha256', 'SHA-256': 'sha256' };

function typeOfPath(object: string, path: string): IndicatorType | 'detect' | undefined {
  if ((object === 'ipv4-addr' || object === 'ipv6-addr') && path === 'value') return 'ip';
  if (object === 'domain-name' && path === 'value') return 'domain';
  if (object === 'url' && path === 'value') return 'url';
  if (object === 'network-traffic' && (path === 'dst_ref.value' || path === 'src_ref.value')) return 'detect';
  if (object === 'file' && path.startsWith('hashes.')) return HASHES[path.slice('hashes.'.length).toUpperCase()];
  return undefined;
}

/** The values of a STIX pattern (empty when it names none usable as an indicator). */
export function patternValues(pattern: string): PatternValue[] {
  if (pattern.length > MAX_PATTERN_LENGTH) return [];
  const literals: string[] = [];
  const stripped = pattern.replace(STRING, (_m, body: string) => {
    literals.push(body.replace(/\\(.)/g, '$1'));
    return `$${literals.length - 1}`;
  });
  const literal = (ref: string) => literals[Number(ref.slice(1))];
  const conjunctive = /\b(AND|FOLLOWEDBY)\b/.test(stripped);
  const out: PatternValue[] = [];
  for (const match of stripped.matchAll(COMPARISON)) {
    const [, object, rawPath, negated, operator, operand] = match;
    if (negated || (operator !== '=' && operator !== 'IN')) continue;
    const path = rawPath.replace(/\$\d+/g, (ref) => literal(ref));
    const type = typeOfPath(object, path);
    if (type === undefined || (conjunctive && object !== 'file')) continue;
    const refs = operand.match(/\$\d+/g) ?? [];
    for (const ref of refs) {
      const value = literal(ref);
      if (value === undefined) continue;
      if (type === 'ip' && value.includes('/')) out.push({ type: 'cidr', value });
      else out.push({ type: type === 'detect' ? (detectType(value) ?? 'detect') : type, value });
    }
  }
  return out;
}
