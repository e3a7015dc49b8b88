// Condition grammar (sigma-notes §5): `and`/`or`/`not`, parentheses, `1 of`/`any of`/`all of` with patterns
// and `them`. Precedence, loosest first: or < and < not < x of < ( ). Promises: word-boundary tokenising,
// lowercase keywords only, a parse error names the offending token; the deprecated pipe syntax is refused
// with a pointer to correlation rules; the tree stays shallow (chains of one operator are balanced,
// nesting beyond MAX_CONDITION_NESTING is refused), so no reader of it can run out of stack.
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

/** The reference grammar's tokens: identifiers of ASCII letters, digits, `_` and `-`; patterns of ASCII
 * letters, digits, `_` and `*` (no `-`). */
const IDENT_RE = /^[A-Za-z0-9_-]+$/;
const PATTERN_RE = /^[A-Za-z0-9_*]+$/;

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
  return new ConditionParser(text, tokenize(text)).parse();
}

/** Levels of parentheses and `not` a condition may nest (real conditions use a handful; the limit keeps
 * every recursive reader of the tree far from the stack's end). */
export const MAX_CONDITION_NESTING = 64;

/** Operands joined by one associative operator as a balanced tree (its depth grows with the logarithm of
 * their number, so a long `a or b or c …` chain nests no deeper than a few levels). */
function balanced(t: 'and' | 'or', xs: ConditionAst[], lo: number, hi: number): ConditionAst {
  if (hi - lo === 1) return xs[lo];
  const mid = (lo + hi) >>> 1;
  return { t, a: balanced(t, xs, lo, mid), b: balanced(t, xs, mid, hi) };
}

/** Recursive descent over the tokens of one condition (methods, not closures: no per-call function objects). */
class ConditionParser {
  private i = 0;
  private depth = 0;

  constructor(
    private readonly text: string,
    private readonly tokens: Token[],
  ) {}

  parse(): ConditionAst {
    const tokens = this.tokens;
    if (tokens.length === 0) this.fail('condition is empty');
    const ast = this.parseOr();
    if (this.i < tokens.length) {
      const t = tokens[this.i];
      if (['AND', 'OR', 'NOT', 'And', 'Or', 'Not'].includes(t.v)) this.fail(`operators must be lowercase ('${t.v.toLowerCase()}') at position ${t.pos}`);
      this.fail(`unexpected '${t.v}' at position ${t.pos}`);
    }
    return ast;
  }

  private fail(msg: string): never {
    throw new ConditionError(`invalid condition: ${msg}`);
  }

  private isWord(v: string): boolean {
    const t = this.tokens[this.i];
    return t !== undefined && t.k === 'word' && t.v === v;
  }

  private parseOr(): ConditionAst {
    const operands = [this.parseAnd()];
    while (this.isWord('or')) {
      this.i++;
      operands.push(this.parseAnd());
    }
    return balanced('or', operands, 0, operands.length);
  }

  private parseAnd(): ConditionAst {
    const operands = [this.parseNot()];
    while (this.isWord('and')) {
      this.i++;
      operands.push(this.parseNot());
    }
    return balanced('and', operands, 0, operands.length);
  }

  private parseNot(): ConditionAst {
    if (this.isWord('not')) {
      const at = this.tokens[this.i].pos;
      this.i++;
      this.enter(at);
      const inner = this.parseNot();
      this.depth--;
      return { t: 'not', a: inner };
    }
    return this.parseAtom();
  }

  /** One more level of parentheses or `not`; refused beyond MAX_CONDITION_NESTING. */
  private enter(at: number): void {
    if (++this.depth > MAX_CONDITION_NESTING) this.fail(`more than ${MAX_CONDITION_NESTING} nested parentheses and 'not' at position ${at}`);
  }

  private parseAtom(): ConditionAst {
    const tokens = this.tokens;
    const tok = tokens[this.i];
    if (!tok) return this.fail('unexpected end of condition');
    if (tok.k === '(') {
      this.i++;
      this.enter(tok.pos);
      const inner = this.parseOr();
      this.depth--;
      if (tokens[this.i]?.k !== ')') this.fail(`expected ')' at position ${tokens[this.i]?.pos ?? this.text.length}`);
      this.i++;
      return inner;
    }
    if (tok.k === ')') return this.fail(`unexpected ')' at position ${tok.pos}`);
    const next = tokens[this.i + 1];
    if ((tok.v === '1' || tok.v === 'all' || tok.v === 'any') && next?.k === 'word' && next.v === 'of') {
      const pat = tokens[this.i + 2];
      if (!pat || pat.k !== 'word') return this.fail(`expected a pattern after '${tok.v} of'`);
      if (!PATTERN_RE.test(pat.v)) {
        return this.fail(`invalid search identifier pattern '${pat.v}': a pattern holds only ASCII letters, digits, '_' and '*'`);
      }
      this.i += 3;
      return { t: 'of', quant: tok.v === 'all' ? 'all' : 'one', pattern: pat.v };
    }
    if (/^\d+$/.test(tok.v) && next?.v === 'of') return this.fail(`'${tok.v} of' is not supported: only '1 of', 'any of' and 'all of'`);
    if (['and', 'or', 'not', 'of'].includes(tok.v)) return this.fail(`unexpected '${tok.v}' at position ${tok.pos}`);
    if (!IDENT_RE.test(tok.v)) return this.fail(`invalid search identifier '${tok.v}': an identifier holds only ASCII letters, digits, '_' and '-'`);
    this.i++;
    return { t: 'id', name: tok.v };
  }
}

/** Identifiers selected by a pattern: `them` = all; `_`-prefixed names only when the pattern starts with `_`. */
export function selectIdentifiers(pattern: string, names: string[]): string[] {
  if (pattern === 'them') return names.filter((n) => !n.startsWith('_'));
  const underscore = pattern.startsWith('_');
  return names.filter((n) => globMatches(pattern, n) && (underscore || !n.startsWith('_')));
}

/** Whole-name match of a pattern whose only special character is `*` (any run, possibly empty). Greedy
 * with backtracking to the last star: linear in practice for identifier-sized inputs. */
function globMatches(pattern: string, name: string): boolean {
  let p = 0;
  let n = 0;
  let star = -1;
  let resume = 0;
  while (n < name.length) {
    if (p < pattern.length && pattern[p] !== '*' && pattern[p] === name[n]) {
      p++;
      n++;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      resume = n;
    } else if (star >= 0) {
      p = star + 1;
      n = ++resume;
    } else return false;
  }
  while (p < pattern.length && pattern[p] === '*') p++;
  return p === pattern.length;
}
