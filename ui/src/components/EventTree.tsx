// An event shown as a readable tree: nested objects and arrays fold open, the fields a rule matched on
// are highlighted (by their paths in the stored event, the objects holding them opened), and each value
// can start an exception for its field. Numbers show every digit they were sent with (an ExactNumber
// when a double would change them).
import { useState } from 'react';
import { ExactNumber } from '../exact-json';

export interface FieldPick {
  field: string;
  value: string;
}

interface Props {
  event: Record<string, unknown>;
  /** Dotted paths (or, unless `exact`, bare field names) the rule matched on. */
  highlighted: Set<string>;
  /** Only whole paths mark a field (a bare name elsewhere in the event does not). */
  exact?: boolean;
  onPick?(pick: FieldPick): void;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof ExactNumber);

function scalarText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof ExactNumber) return value.digits;
  return JSON.stringify(value);
}

/** The class naming a value's type (for its colour). */
const typeClass = (value: unknown) => (value === null ? 'null' : value instanceof ExactNumber ? 'number' : typeof value);

function Node({ name, path, value, props, depth }: { name: string; path: string; value: unknown; props: Props; depth: number }) {
  const [open, setOpen] = useState(() => depth < 3 || [...props.highlighted].some((h) => h.startsWith(`${path}.`)));
  const hit = props.highlighted.has(path) || (!props.exact && props.highlighted.has(name));
  if (isObject(value) || Array.isArray(value)) {
    const entries: [string, unknown][] = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
    return (
      <li className={hit ? 'hit' : undefined} data-path={path}>
        <button type="button" className="tree-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
          <span className="tree-key">{name}</span> <span className="muted">{Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`}</span>
        </button>
        {open && (
          <ul>
            {entries.map(([k, v]) => (
              <Node key={k} name={k} path={path ? `${path}.${k}` : k} value={v} props={props} depth={depth + 1} />
            ))}
          </ul>
        )}
      </li>
    );
  }
  return (
    <li className={hit ? 'hit' : undefined} data-path={path}>
      <span className="tree-key">{name}</span>: <span className={`tree-value t-${typeClass(value)}`}>{scalarText(value)}</span>
      {hit && <span className="visually-hidden"> (matched)</span>}
      {props.onPick && (
        <button type="button" className="tiny secondary" onClick={() => props.onPick!({ field: path, value: scalarText(value) })}>
          Except…<span className="visually-hidden"> create an exception from {path}</span>
        </button>
      )}
    </li>
  );
}

export function EventTree(props: Props) {
  return (
    <ul className="tree">
      {Object.entries(props.event).map(([k, v]) => (
        <Node key={k} name={k} path={k} value={v} props={props} depth={0} />
      ))}
    </ul>
  );
}
