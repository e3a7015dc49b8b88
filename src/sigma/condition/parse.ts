// Condition grammar (sigma-notes §5): `and`/`or`/`not`, parentheses, `1 of`/`any of`/`all of` with patterns
// and `them`. Precedence, loosest first: or < and < not < x of < ( ). Promises: word-boundary tokenising,
// lowercase keywords only, a parse error names the offending token; the deprecated pipe syntax is refused
// with a pointer to correlation rules.
export type ConditionAst =
  | { t: 'and' | 'or'; a: ConditionAst; b: ConditionAst }
  | { t: 'not'; a: ConditionAst }
  | { t: 'id'; name: string }
  | { t: 'of'; quant: 'one' | 'all'; pattern: string };

export class ConditionError extends Error {}

type Token = { k: '(' | ')' | 'word'; v: string; pos: number };

function tokenize(text: string): Token[] {
  const out: Token[] = [];
  const re = /\s*(?:([()])|([^\s()]+))/gy;
  let m: RegExpExecArray | null;
  let pos = 0;
  while (pos < text.length) {
    re.lastIndex = pos;
    m = re.exec(text);
    if (!m || m[0].length === 0) break;
    if (m[1]) out.push({ k: m[1] as '(' | ')', v: m[1], pos: m.index });
    else if (m[2]) out.push({ k: 'word', v: m[2], pos: m.index });
    pos = re.lastIndex;
  }
  return out;
}

const IDENT_RE = /^[A-Za-z0-9_.-]+$/;
const PATTERN_RE = /^[A-Za-z0-9_.*-]+$/;

/** Parse one condition string. Throws ConditionError. */
export function parseCondition(text: string): ConditionAst {
  if (text.includes('|')) {
    if (/\|\s*(count|min|max|avg|sum)\s*\(/.test(text)) {
      throw new ConditionError(
        'the aggregation syntax ("| count() ...") is deprecated and not supported: express it as a correlation rule (event_count, value_count, value_sum)',
      );
    }
    if (/\|\s*near\b/.test(text)) {
      throw new ConditionError('the "| near" syntax is deprecated and not supported: express it as a temporal correlation rule');
    }
    throw new ConditionError('the pipe syntax in conditions is deprecated and not supported: use a correlation rule');
  }
  if (/\b(count|min|max|avg|sum)\s*\(/.test(text)) {
    throw new ConditionError('aggregations in conditions are not supported: express them as a correlation rule (event_count, value_count, value_sum)');
  }
  const tokens = tokenize(text);
  let i = 0;
  const peek = (): Token | undefined => tokens[i];
  const fail = (msg: string): never => {
    throw new ConditionError(`invalid condition: ${msg}`);
  };

  const parseOr = (): ConditionAst => {
    let left = parseAnd();
    while (peek()?.k === 'word' && peek()?.v === 'or') {
      i++;
      left = { t: 'or', a: left, b: parseAnd() };
    }
    return left;
  };
  const parseAnd = (): ConditionAst => {
    let left = parseNot();
    while (peek()?.k === 'word' && peek()?.v === 'and') {
      i++;
      left = { t: 'and', a: left, b: parseNot() };
    }
    return left;
  };
  const parseNot = (): ConditionAst => {
    if (peek()?.k === 'word' && peek()?.v === 'not') {
      i++;
      return { t: 'not', a: parseNot() };
    }
    return parseAtom();
  };
  const parseAtom = (): ConditionAst => {
    const tok = peek();
    if (!tok) return fail('unexpected end of condition');
    if (tok.k === '(') {
      i++;
      const inner = parseOr();
      if (peek()?.k !== ')') fail(`expected ')' at position ${peek()?.pos ?? text.length}`);
      i++;
      return inner;
    }
    if (tok.k === ')') return fail(`unexpected ')' at position ${tok.pos}`);
    const next = tokens[i + 1];
    if ((tok.v === '1' || tok.v === 'all' || tok.v === 'any') && next?.k === 'word' && next.v === 'of') {
      const pat = tokens[i + 2];
      if (!pat || pat.k !== 'word') return fail(`expected a pattern after '${tok.v} of'`);
      if (!PATTERN_RE.test(pat.v)) return fail(`invalid search identifier pattern '${pat.v}'`);
      i += 3;
      return { t: 'of', quant: tok.v === 'all' ? 'all' : 'one', pattern: pat.v };
    }
    if (/^\d+$/.test(tok.v) && next?.v === 'of') return fail(`'${tok.v} of' is not supported: only '1 of', 'any of' and 'all of'`);
    if (['and', 'or', 'not', 'of'].includes(tok.v)) return fail(`unexpected '${tok.v}' at position ${tok.pos}`);
    if (!IDENT_RE.test(tok.v)) return fail(`invalid search identifier '${tok.v}'`);
    i++;
    return { t: 'id', name: tok.v };
  };

  if (tokens.length === 0) fail('condition is empty');
  const ast = parseOr();
  if (i < tokens.length) {
    const t = tokens[i];
    if (['AND', 'OR', 'NOT', 'And', 'Or', 'Not'].includes(t.v)) fail(`operators must be lowercase ('${t.v.toLowerCase()}') at position ${t.pos}`);
    fail(`unexpected '${t.v}' at position ${t.pos}`);
  }
  return ast;
}

/** Identifiers selected by a pattern: `them` = all; `_`-prefixed names only when the pattern starts with `_`. */
export function selectIdentifiers(pattern: string, names: string[]): string[] {
  if (pattern === 'them') return names.filter((n) => !n.startsWith('_'));
  const re = new RegExp('^' + pattern.replace(/[.+?^${}()|[\]\\-]/g, '\\$&').replace(/\*/g, '.*') + '$');
  return names.filter((n) => re.test(n) && (!n.startsWith('_') || pattern.startsWith('_')));
}
