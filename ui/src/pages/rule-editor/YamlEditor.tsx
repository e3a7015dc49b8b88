// The YAML editor: a plain textarea (the labelled textbox, with the browser's own editing, undo and
// accessibility) laid exactly over a highlighted copy of the text, with a gutter of line numbers. Both
// grow with the text inside one scrolling box, so they never need to be scrolled in step. Lines with a
// problem get a gutter marker, a highlight and the message at the end of the line; no inline style
// anywhere (the Content-Security-Policy allows none), only CSS classes.
import { useImperativeHandle, useMemo, useRef, type KeyboardEvent, type Ref } from 'react';
import { Gutter, Highlight } from './YamlLines';
import { highlightLines } from './yaml-tokens';
import { useSettledText } from './useSettledText';
import type { Problem } from './yaml-problems';
import './yaml-editor.css';

export interface YamlEditorHandle {
  /** Puts the caret at a line (and column) and brings it into view. */
  jumpTo(line: number, column?: number | null): void;
}

interface Props {
  id: string;
  value: string;
  onChange(value: string): void;
  readOnly?: boolean;
  invalid?: boolean;
  problems: Problem[];
  describedBy?: string;
  ref?: Ref<YamlEditorHandle>;
}

const INDENT = '  ';

/** Inserts text at the caret as typing would (kept in the browser's undo history). */
function insertText(area: HTMLTextAreaElement, text: string, onChange: (value: string) => void): void {
  if (document.execCommand?.('insertText', false, text)) return;
  const { selectionStart: start, selectionEnd: end, value } = area;
  onChange(value.slice(0, start) + text + value.slice(end));
  requestAnimationFrame(() => area.setSelectionRange(start + text.length, start + text.length));
}

export function YamlEditor({ id, value, onChange, readOnly, invalid, problems, describedBy, ref }: Props) {
  const area = useRef<HTMLTextAreaElement>(null);
  const gutter = useRef<HTMLDivElement>(null);
  // After Escape, Tab leaves the editor instead of indenting (so the keyboard is never trapped).
  const escaped = useRef(false);
  // A long text is highlighted once the typing rests (the textarea shows its own text until then).
  const source = useSettledText(value);
  const lines = useMemo(() => highlightLines(source), [source]);
  const byLine = useMemo(() => {
    const map = new Map<number, Problem[]>();
    for (const p of problems) if (p.line !== null) map.set(p.line, [...(map.get(p.line) ?? []), p]);
    return map;
  }, [problems]);

  useImperativeHandle(ref, () => ({
    jumpTo(line, column) {
      const el = area.current;
      if (!el) return;
      const text = el.value;
      let offset = 0;
      for (let n = 1; n < line; n++) {
        const newline = text.indexOf('\n', offset);
        if (newline < 0) break;
        offset = newline + 1;
      }
      const lineEnd = text.indexOf('\n', offset);
      const at = Math.min(offset + Math.max((column ?? 1) - 1, 0), lineEnd < 0 ? text.length : lineEnd);
      el.focus();
      el.setSelectionRange(at, at);
      gutter.current?.querySelector(`[data-line="${line}"]`)?.scrollIntoView({ block: 'nearest' });
    },
  }));

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (readOnly) return;
    const el = event.currentTarget;
    if (event.key === 'Escape') {
      escaped.current = true;
      return;
    }
    const wasEscaped = escaped.current;
    escaped.current = false;
    if (event.key === 'Tab' && !event.shiftKey && !wasEscaped && !event.ctrlKey && !event.altKey && !event.metaKey) {
      event.preventDefault();
      insertText(el, INDENT, onChange);
    } else if (event.key === 'Enter' && !event.shiftKey && !event.ctrlKey && !event.altKey && !event.metaKey && el.selectionStart === el.selectionEnd) {
      // A new line keeps the indentation of the current one, one level deeper after a `key:`.
      const before = el.value.slice(0, el.selectionStart);
      const current = before.slice(before.lastIndexOf('\n') + 1);
      const [, spaces, dash] = /^( *)(- +)?/.exec(current) ?? ['', '', undefined];
      const opens = /:\s*(?:#.*)?$/.test(current);
      const indent = opens ? spaces + (dash ? ' '.repeat(dash.length) : '') + INDENT : spaces;
      event.preventDefault();
      insertText(el, `\n${indent}`, onChange);
    }
  };

  return (
    <div className={`yaml-editor${invalid ? ' invalid' : ''}${readOnly ? ' readonly' : ''}${source !== value ? ' stale' : ''}`}>
      <Gutter count={lines.length} byLine={byLine} gutterRef={gutter} />
      <div className="yaml-body">
        <Highlight lines={lines} byLine={byLine} />
        <textarea
          id={id}
          ref={area}
          className="yaml-input"
          rows={1}
          wrap="off"
          spellCheck={false}
          autoCapitalize="off"
          autoComplete="off"
          autoCorrect="off"
          value={value}
          readOnly={readOnly}
          aria-invalid={invalid}
          aria-describedby={describedBy}
          aria-multiline="true"
          onChange={(e) => onChange(e.target.value)}
          onKeyDown={onKeyDown}
        />
      </div>
    </div>
  );
}
