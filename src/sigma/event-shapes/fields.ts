// Shared by the event shapes: giving a reshaped event a field without replacing one it already has.
// Promises: the first value given to a name keeps it; `__proto__` becomes an own field, never the
// prototype.

export type EventObject = Record<string, unknown>;

export function isObject(v: unknown): v is EventObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Give field `name` the value v unless the event already has the name. */
export function putField(out: EventObject, name: string, v: unknown): void {
  if (Object.hasOwn(out, name)) return;
  if (name === '__proto__') Object.defineProperty(out, name, { value: v, writable: true, enumerable: true, configurable: true });
  else out[name] = v;
}

/** A shallow copy of an event's own fields (a `__proto__` key stays an own field). */
export function copyEvent(event: EventObject): EventObject {
  const out: EventObject = {};
  for (const [k, v] of Object.entries(event)) putField(out, k, v);
  return out;
}
