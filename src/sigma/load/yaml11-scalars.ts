// PyYAML's YAML 1.1 scalars (sigma-notes §13.1): the implicit resolution of plain scalars (null, booleans,
// ints in every base, floats; timestamps stay as their text once Python's datetime would take them) and
// the standard scalar tags. Promises: the values PyYAML's SafeLoader constructs, as JS values (ints beyond
// double precision as their exact decimal text); where PyYAML's constructor fails (`0x_`, `!!int abc`,
// `2023-02-30`, a plain `=` or `<<`, a tag without a constructor), a YamlValueError saying what is wrong.

export type YamlScalar = null | boolean | number | string;

/** A scalar PyYAML would refuse to construct. */
export class YamlValueError extends Error {}

const NULL_RE = /^(?:~|null|Null|NULL|)$/;
const BOOL_TRUE_RE = /^(?:yes|Yes|YES|true|True|TRUE|on|On|ON)$/;
const BOOL_FALSE_RE = /^(?:no|No|NO|false|False|FALSE|off|Off|OFF)$/;
const INT_RE = /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/;
const FLOAT_RE =
  /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;

function sexagesimal(text: string): number {
  let value = 0;
  for (const part of text.split(':')) value = value * 60 + Number(part);
  return value;
}

/** Resolve an unquoted scalar the way PyYAML's SafeLoader (YAML 1.1) does. */
export function resolvePlainScalar(text: string): YamlScalar {
  if (NULL_RE.test(text)) return null;
  if (BOOL_TRUE_RE.test(text)) return true;
  if (BOOL_FALSE_RE.test(text)) return false;
  if (INT_RE.test(text)) {
    let t = text.replace(/_/g, '');
    let sign = 1;
    if (t[0] === '-' || t[0] === '+') {
      if (t[0] === '-') sign = -1;
      t = t.slice(1);
    }
    const digits = t.startsWith('0b') || t.startsWith('0x') ? t.slice(2) : t;
    if (digits === '') throw new YamlValueError(`'${text}' is not a valid integer`);
    let n: number;
    if (t.startsWith('0b')) n = parseInt(t.slice(2), 2);
    else if (t.startsWith('0x')) n = parseInt(t.slice(2), 16);
    else if (t.includes(':')) n = sexagesimal(t);
    else if (t.length > 1 && t[0] === '0') n = parseInt(t, 8);
    else n = Number(t);
    n *= sign;
    if (Number.isSafeInteger(n)) return n === 0 ? 0 : n; // an int has no negative zero
    // Integers beyond double precision become their exact decimal text (PyYAML ints are unbounded).
    if (t.includes(':')) return text;
    const big = t.startsWith('0b') ? BigInt(t) : t.startsWith('0x') ? BigInt(t) : t.length > 1 && t[0] === '0' ? BigInt('0o' + t.slice(1)) : BigInt(t);
    return (sign < 0 ? -big : big).toString();
  }
  if (FLOAT_RE.test(text)) {
    const t = text.replace(/_/g, '');
    const lower = t.toLowerCase();
    if (lower.endsWith('.inf')) return t.startsWith('-') ? -Infinity : Infinity;
    if (lower === '.nan') return NaN;
    if (t.includes(':')) {
      const neg = t.startsWith('-');
      const body = t.replace(/^[-+]/, '');
      const [whole, frac] = body.split('.');
      const v = sexagesimal(whole) + Number('0.' + (frac || '0'));
      return neg ? -v : v;
    }
    return Number(t);
  }
  if (TIMESTAMP_RE.test(text)) checkTimestamp(text);
  else if (text === '=' || text === '<<') {
    // PyYAML resolves these to its value and merge tags, which the Sigma loader cannot construct.
    const tag = text === '=' ? 'value' : 'merge';
    throw new YamlValueError(`could not determine a constructor for the tag 'tag:yaml.org,2002:${tag}' (quote '${text}' to use it as text)`);
  }
  return text;
}

/** PyYAML's implicit timestamp resolver: a date, or a date and a time. */
const TIMESTAMP_RE =
  /^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)$/;
/** The parts PyYAML's timestamp constructor reads. */
const TIMESTAMP_PARTS =
  /^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:(?:[Tt]|[ \t]+)([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]*)?(?:[ \t]*(?:Z|([-+])([0-9]{1,2})(?::([0-9]{2}))?))?)?$/;

/** Whether `text` is a timestamp PyYAML constructs as a date or a date and time (written unquoted). */
export function isTimestamp(text: string): boolean {
  return TIMESTAMP_RE.test(text) && timestampProblem(text) === null;
}

/** Refuse a timestamp PyYAML cannot construct. Valid timestamps stay as their text. */
function checkTimestamp(text: string): void {
  const problem = timestampProblem(text);
  if (problem !== null) throw new YamlValueError(`'${text}' is not a valid timestamp${problem}`);
}

/** Why Python's datetime refuses a timestamp (`2023-02-30`, `24:00:00`, an offset of a day or more), as
 * ": <reason>" ('' when its shape is wrong), or null when it takes it. */
function timestampProblem(text: string): string | null {
  const m = TIMESTAMP_PARTS.exec(text);
  if (m === null) return '';
  const [year, month, day, hour, minute, second, , tzHour, tzMinute] = m.slice(1).map((x) => (x === undefined ? 0 : Number(x)));
  if (year < 1) return `: year ${year} is out of range`;
  if (month < 1 || month > 12) return ': month must be in 1..12';
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
  if (day < 1 || day > days) return ': day is out of range for month';
  if (hour > 23) return ': hour must be in 0..23';
  if (minute > 59) return ': minute must be in 0..59';
  if (second > 59) return ': second must be in 0..59';
  if (tzHour * 60 + tzMinute >= 24 * 60) return ': the UTC offset must be less than 24 hours';
  return null;
}

/** PyYAML's `!!bool` words (compared in lower case). */
const BOOL_WORDS = new Map<string, boolean>([
  ['yes', true],
  ['no', false],
  ['true', true],
  ['false', false],
  ['on', true],
  ['off', false],
]);
/** Decimal texts Python's float() reads (the implicit resolver's FLOAT_RE needs a dot; `!!float 1e3` does not). */
const DECIMAL_RE = /^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)?$/;

/** A scalar with an explicit tag (`tag` as the parser resolved it: `tag:yaml.org,2002:int`, `!` for the
 * non-specific tag, `!name` for a local one) and source text `text`, as PyYAML's SafeLoader builds it. */
export function taggedScalar(tag: string, text: string): YamlScalar {
  const name = tag.startsWith('tag:yaml.org,2002:') ? `!!${tag.slice('tag:yaml.org,2002:'.length)}` : tag;
  switch (name) {
    case '!': // the non-specific tag: resolved as if untagged and plain
      return resolvePlainScalar(text);
    case '!!str':
      return text;
    case '!!timestamp': // timestamps are kept as their text, tagged or not
      checkTimestamp(text);
      return text;
    case '!!null':
      return null;
    case '!!bool': {
      const v = BOOL_WORDS.get(text.toLowerCase());
      if (v === undefined) throw new YamlValueError(`'${text}' is not a valid !!bool`);
      return v;
    }
    case '!!int': {
      if (!INT_RE.test(text)) throw new YamlValueError(`'${text}' is not a valid !!int`);
      return resolvePlainScalar(text);
    }
    case '!!float': {
      if (FLOAT_RE.test(text)) return resolvePlainScalar(text);
      if (DECIMAL_RE.test(text)) return Number(text.replace(/_/g, ''));
      throw new YamlValueError(`'${text}' is not a valid !!float`);
    }
    default:
      throw new YamlValueError(`the YAML tag ${name} is not supported on a scalar`);
  }
}
