// What the YAML editor draws under and beside its textarea: the gutter of line numbers (a marker on lines
// with a problem) and the highlighted copy of the text (problem lines highlighted, the character at the
// problem's column underlined, the message at the end of the line). Both are memoised on their inputs, so
// a key typed into a long rule re-renders only the textarea until the copy catches up.
import { memo, type RefObject } from 'react';
import type { Problem } from './yaml-problems';
import type { Piece } from './yaml-tokens';

/** The pieces of a line with the character at a 1-based column cut out and marked (a space past the end). */
function markColumn(pieces: Piece[], column: number): (Piece & { at?: true })[] {
  const out: (Piece & { at?: true })[] = [];
  let start = 0;
  let marked = false;
  for (const piece of pieces) {
    const end = start + piece.text.length;
    const i = column - 1 - start;
    if (!marked && i >= 0 && i < piece.text.length) {
      if (i > 0) out.push({ ...piece, text: piece.text.slice(0, i) });
      out.push({ ...piece, text: piece.text[i], at: true });
      if (i + 1 < piece.text.length) out.push({ ...piece, text: piece.text.slice(i + 1) });
      marked = true;
    } else out.push(piece);
    start = end;
  }
  if (!marked) out.push({ text: ' ', at: true });
  return out;
}

export const Gutter = memo(function Gutter({ count, byLine, gutterRef }: { count: number; byLine: Map<number, Problem[]>; gutterRef: RefObject<HTMLDivElement | null> }) {
  const rows = [];
  for (let n = 1; n <= count; n++) {
    const here = byLine.get(n);
    rows.push(
      <div key={n} data-line={n} className={here ? 'yaml-gutter-line has-error' : 'yaml-gutter-line'} title={here?.map((p) => p.message).join('\n')}>
        {here && <span className="yaml-marker">!</span>}
        {n}
      </div>,
    );
  }
  return (
    <div className="yaml-gutter" ref={gutterRef} aria-hidden="true">
      {rows}
    </div>
  );
});

export const Highlight = memo(function Highlight({ lines, byLine }: { lines: Piece[][]; byLine: Map<number, Problem[]> }) {
  return (
    <pre className="yaml-highlight" aria-hidden="true">
      {lines.map((pieces, i) => {
        const here = byLine.get(i + 1);
        const column = here?.find((p) => p.column !== null)?.column;
        const shown = column ? markColumn(pieces, column) : pieces;
        return (
          <div key={i} className={here ? 'yaml-line has-error' : 'yaml-line'}>
            {shown.map((piece, j) => {
              const cls = [piece.cls ? `y-${piece.cls}` : '', 'at' in piece ? 'yaml-error-at' : ''].filter(Boolean).join(' ');
              return cls ? (
                <span key={j} className={cls}>
                  {piece.text}
                </span>
              ) : (
                piece.text
              );
            })}
            {here && <span className="yaml-inline-error">{here.map((p) => p.message).join(' · ')}</span>}
          </div>
        );
      })}
    </pre>
  );
});
