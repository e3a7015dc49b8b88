// Flattening of evtx_dump-style Windows events (`{"Event": {"System": …, "EventData": …}}`) into the flat
// shape Sigma rules and the sigma-native/windows-thor presets expect (spec "Field Usage"; corpus
// regression/README.md). Promises: System.X → X, System.X.#attributes.A → X_A, System.X.#text → X,
// EventData.Name → Name (spaces removed), EventData.#attributes.A → EventData_A, UserData.E.Child → Child
// (spaces removed), UserData.E.#attributes.A → E_A (xmlns dropped); values keep their JSON types. A name
// is given once: the first of System, EventData, UserData to give it keeps it (an EventData entry named
// `EventID` or `Event ID` cannot replace the event's own id). Every name, `__proto__` included, becomes an
// own field of the result, never its prototype. Pure.
type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const strip = (k: string): string => k.replace(/ /g, '');

/** Give field `name` the value v unless an earlier part of the event gave it one. */
function put(out: Obj, name: string, v: unknown): void {
  if (Object.hasOwn(out, name)) return;
  // Assigning `__proto__` would set the prototype: that one name is defined instead.
  if (name === '__proto__') Object.defineProperty(out, name, { value: v, writable: true, enumerable: true, configurable: true });
  else out[name] = v;
}

export function flattenWindowsEvent(raw: unknown): Record<string, unknown> {
  const root = isObj(raw) && isObj(raw.Event) ? raw.Event : raw;
  const out: Record<string, unknown> = {};
  if (!isObj(root)) return out;
  if (isObj(root.System)) {
    for (const [k, v] of Object.entries(root.System)) {
      if (isObj(v)) {
        if (isObj(v['#attributes'])) for (const [a, av] of Object.entries(v['#attributes'])) put(out, `${k}_${a}`, av);
        if (Object.hasOwn(v, '#text')) put(out, k, v['#text']);
      } else put(out, k, v);
    }
  }
  if (isObj(root.EventData)) {
    for (const [k, v] of Object.entries(root.EventData)) {
      if (k === '#attributes' && isObj(v)) for (const [a, av] of Object.entries(v)) put(out, `EventData_${a}`, av);
      else put(out, strip(k), v);
    }
  }
  if (isObj(root.UserData)) {
    for (const [element, body] of Object.entries(root.UserData)) {
      if (!isObj(body)) continue;
      for (const [k, v] of Object.entries(body)) {
        if (k === '#attributes' && isObj(v)) {
          for (const [a, av] of Object.entries(v)) if (a !== 'xmlns') put(out, `${element}_${a}`, av);
        } else put(out, strip(k), v);
      }
    }
  }
  return out;
}

/** Whether an event has evtx_dump's shape: nothing but an `Event` object holding a `System` object. */
export function isEvtxDump(v: unknown): boolean {
  if (!isObj(v) || !isObj(v.Event) || !isObj(v.Event.System)) return false;
  for (const k in v) if (k !== 'Event') return false;
  return true;
}
