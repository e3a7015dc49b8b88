// Sigma string values: wildcard/escape parsing exactly per sigma-notes §3, and placeholder parsing (`expand`).
// Promises: `\*`, `\?`, `\\` yield the literal second character; a backslash before any other character (or
// at the end) is kept; unescaped `*`/`?` become wildcards. Adjacent literals are merged; a SigmaString is an
// immutable list of parts.
export const ANY = 0 as const; // `*`: any sequence, possibly empty
export const ONE = 1 as const; // `?`: exactly one character
export interface Placeholder {
  placeholder: string;
}
export type Part = string | typeof ANY | typeof ONE | Placeholder;

export interface SigmaString {
  parts: Part[];
  cased: boolean;
  /** True once a utf16/wide modifier turned characters into byte-characters (base64 then encodes them as latin1). */
  bytes: boolean;
}

export function pushLiteral(parts: Part[], text: string): void {
  if (text === '') return;
  const last = parts.length - 1;
  if (last >= 0 && typeof parts[last] === 'string') parts[last] = (parts[last] as string) + text;
  else parts.push(text);
}

/** Parse the raw YAML text of a value into wildcard parts. */
export function parseSigmaString(raw: string): SigmaString {
  const parts: Part[] = [];
  // Literal text is taken as slices of `raw` (from `from` to the current position), not char by char.
  let lit = '';
  let from = 0;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 92 /* \\ */) {
      const n = raw[i + 1];
      if (n === '*' || n === '?' || n === '\\') {
        lit += raw.slice(from, i) + n;
        i++;
        from = i + 1;
      }
    } else if (c === 42 /* * */ || c === 63 /* ? */) {
      pushLiteral(parts, lit + raw.slice(from, i));
      lit = '';
      from = i + 1;
      parts.push(c === 42 ? ANY : ONE);
    }
  }
  pushLiteral(parts, from === 0 ? raw : lit + raw.slice(from));
  return { parts, cased: false, bytes: false };
}

/** Split literal parts on `%name%` placeholders (`\%` escapes a percent sign). */
export function extractPlaceholders(s: SigmaString): SigmaString {
  const parts: Part[] = [];
  for (const p of s.parts) {
    if (typeof p !== 'string') {
      parts.push(p);
      continue;
    }
    const re = /(?<!\\)%([^%]+)%/g;
    let last = 0;
    for (let m = re.exec(p); m; m = re.exec(p)) {
      pushLiteral(parts, p.slice(last, m.index).replace(/\\%/g, '%'));
      parts.push({ placeholder: m[1] });
      last = m.index + m[0].length;
    }
    pushLiteral(parts, p.slice(last).replace(/\\%/g, '%'));
  }
  return { ...s, parts };
}

export function hasWildcards(s: SigmaString): boolean {
  return s.parts.some((p) => p === ANY || p === ONE);
}

export function hasPlaceholders(s: SigmaString): boolean {
  return s.parts.some((p) => typeof p === 'object');
}

export function isPlain(s: SigmaString): boolean {
  return s.parts.every((p) => typeof p === 'string');
}

export function literalText(s: SigmaString): string {
  return s.parts.map((p) => (typeof p === 'string' ? p : '')).join('');
}

/** Render back to Sigma notation (escaping literal wildcards and backslashes before them). */
export function formatSigmaString(s: SigmaString): string {
  return s.parts
    .map((p) => (p === ANY ? '*' : p === ONE ? '?' : typeof p === 'object' ? `%${p.placeholder}%` : p.replace(/([*?])/g, '\\$1')))
    .join('');
}
