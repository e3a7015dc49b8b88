// Syntax highlighting of YAML for the rule editor: the `yaml` package's concrete syntax tree (which keeps
// every character of the text with its offset) read into classed spans, then cut into lines. Keys are told
// from values by their place in a mapping; a Sigma key's modifiers (`Image|endswith`) get a class of their
// own. Nothing here touches the page: the editor renders the lines with CSS classes.
import { Parser } from 'yaml';

export type TokenClass = 'key' | 'modifier' | 'string' | 'number' | 'atom' | 'comment' | 'punct' | 'meta' | 'invalid';

export interface Span {
  from: number;
  to: number;
  cls: TokenClass;
}

/** A piece of one line: its text and, when highlighted, its class. */
export interface Piece {
  text: string;
  cls?: TokenClass;
}

/** YAML 1.1 words PyYAML reads as booleans or null (Sigma rules are read by YAML 1.1 rules). */
const ATOM = /^(?:true|false|yes|no|on|off|null|~)$/i;
const NUMBER = /^[-+]?(?:\d[\d_]*(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|0x[\dA-Fa-f_]+|0o?[0-7_]+|\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;

const PUNCT = new Set(['map-value-ind', 'seq-item-ind', 'explicit-key-ind', 'comma', 'flow-map-start', 'flow-map-end', 'flow-seq-start', 'flow-seq-end', 'block-scalar-header']);
const META = new Set(['anchor', 'alias', 'tag', 'directive', 'doc-start', 'doc-end']);

interface CstToken {
  type: string;
  offset: number;
  source?: string;
  props?: CstToken[];
  start?: CstToken | CstToken[];
  end?: CstToken[];
  items?: CstItem[];
  value?: CstToken;
}

interface CstItem {
  start: CstToken[];
  key?: CstToken | null;
  sep?: CstToken[];
  value?: CstToken;
}

function plainClass(source: string): TokenClass {
  const text = source.trim();
  if (ATOM.test(text)) return 'atom';
  if (NUMBER.test(text)) return 'number';
  return 'string';
}

class Collector {
  readonly spans: Span[] = [];

  add(from: number, to: number, cls: TokenClass): void {
    if (to > from) this.spans.push({ from, to, cls });
  }

  /** A key: its Sigma modifiers after the first `|` classed apart. */
  key(token: CstToken): void {
    const source = token.source ?? '';
    if (token.type !== 'scalar') {
      this.token(token);
      return;
    }
    const bar = source.indexOf('|');
    if (bar < 0) this.add(token.offset, token.offset + source.length, 'key');
    else {
      this.add(token.offset, token.offset + bar, 'key');
      this.add(token.offset + bar, token.offset + source.length, 'modifier');
    }
    this.list(token.end);
  }

  list(tokens: CstToken[] | undefined): void {
    for (const t of tokens ?? []) this.token(t);
  }

  items(items: CstItem[] | undefined): void {
    for (const item of items ?? []) {
      this.list(item.start);
      if (item.key) this.key(item.key);
      this.list(item.sep);
      if (item.value) this.token(item.value);
    }
  }

  token(token: CstToken): void {
    const source = token.source ?? '';
    switch (token.type) {
      case 'document':
        this.list(token.start as CstToken[] | undefined);
        if (token.value) this.token(token.value);
        this.list(token.end);
        return;
      case 'block-map':
      case 'block-seq':
        this.items(token.items);
        return;
      case 'flow-collection':
        if (token.start && !Array.isArray(token.start)) this.token(token.start);
        this.items(token.items);
        this.list(token.end);
        return;
      case 'block-scalar': {
        this.list(token.props);
        const last = token.props?.[token.props.length - 1];
        const from = last ? last.offset + (last.source ?? '').length : token.offset;
        this.add(from, from + source.length, 'string');
        return;
      }
      case 'scalar':
        this.add(token.offset, token.offset + source.length, plainClass(source));
        this.list(token.end);
        return;
      case 'single-quoted-scalar':
      case 'double-quoted-scalar':
        this.add(token.offset, token.offset + source.length, 'string');
        this.list(token.end);
        return;
      case 'comment':
        this.add(token.offset, token.offset + source.length, 'comment');
        return;
      case 'error':
        this.add(token.offset, token.offset + source.length, 'invalid');
        return;
      default:
        if (PUNCT.has(token.type)) this.add(token.offset, token.offset + source.length, 'punct');
        else if (META.has(token.type)) this.add(token.offset, token.offset + source.length, 'meta');
        this.list(token.end);
    }
  }
}

/** The classed spans of a YAML text, in order and not overlapping. */
export function highlightSpans(text: string): Span[] {
  const collector = new Collector();
  try {
    for (const token of new Parser().parse(text)) collector.token(token as CstToken);
  } catch {
    return [];
  }
  const spans = collector.spans.sort((a, b) => a.from - b.from);
  const out: Span[] = [];
  let end = 0;
  for (const span of spans) {
    if (span.from < end) continue;
    out.push(span);
    end = span.to;
  }
  return out;
}

/** The text cut into lines, each a list of pieces with their classes (a span over several lines is cut). */
export function highlightLines(text: string): Piece[][] {
  const spans = highlightSpans(text);
  const lines: Piece[][] = [];
  let line: Piece[] = [];
  let s = 0;
  let at = 0;
  const push = (to: number, cls?: TokenClass) => {
    while (at < to) {
      const newline = text.indexOf('\n', at);
      const stop = newline < 0 || newline >= to ? to : newline;
      if (stop > at) line.push(cls ? { text: text.slice(at, stop), cls } : { text: text.slice(at, stop) });
      at = stop;
      if (at === newline) {
        lines.push(line);
        line = [];
        at++;
      }
    }
  };
  while (at < text.length) {
    const span = spans[s];
    if (!span) {
      push(text.length);
      break;
    }
    if (span.from > at) push(span.from);
    push(span.to, span.cls);
    s++;
  }
  lines.push(line);
  return lines;
}
