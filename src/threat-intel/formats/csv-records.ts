// Reading CSV feeds line by line: one record per line (quoted fields with "" escapes, white space
// around fields ignored, as in abuse.ch exports' `", "` separators), and the header row, which may
// also be the last `#` comment line before the data (URLhaus, ThreatFox and MalwareBazaar exports).

/** The fields of one CSV line, or undefined when a quote is left open. */
export function splitCsvLine(line: string, delimiter = ','): string[] | undefined {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    while (i < line.length && (line[i] === ' ' || line[i] === '\t') && line[i] !== delimiter) i++;
    let field = '';
    if (line[i] === '"') {
      i++;
      for (;;) {
        const quote = line.indexOf('"', i);
        if (quote === -1) return undefined;
        field += line.slice(i, quote);
        i = quote + 1;
        if (line[i] === '"') {
          field += '"';
          i++;
        } else break;
      }
      while (i < line.length && line[i] !== delimiter) i++;
    } else {
      const next = line.indexOf(delimiter, i);
      const end = next === -1 ? line.length : next;
      field = line.slice(i, end).trim();
      i = end;
    }
    fields.push(field);
    if (i >= line.length) return fields;
    i++; // the delimiter
  }
}

export interface CsvLine {
  /** 1-based line number. */
  n: number;
  text: string;
  comment: boolean;
}

/** Every non-blank line with its number and whether it is a `#` comment (a leading BOM is dropped). */
export function* csvLines(content: string): Generator<CsvLine> {
  let start = 0;
  let n = 0;
  while (start < content.length) {
    let end = content.indexOf('\n', start);
    if (end === -1) end = content.length;
    n++;
    let text = content.slice(start, end);
    start = end + 1;
    if (n === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    text = text.trim();
    if (text === '') continue;
    yield { n, text, comment: text.startsWith('#') };
  }
}
