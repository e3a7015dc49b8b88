// How deep an event may nest: events nested deeper than MAX_EVENT_DEPTH objects or arrays are refused
// (EventTooDeepError) rather than read. Real telemetry nests a few levels; refusing bounds the stack that
// every reader of an event needs (the index's walk, the matcher's field accessors and keyword searches all
// recurse).

/** Objects and arrays nested deeper than this make an event refused. */
export const MAX_EVENT_DEPTH = 100;

export class EventTooDeepError extends Error {
  constructor() {
    super(`event nested deeper than ${MAX_EVENT_DEPTH} levels`);
    this.name = 'EventTooDeepError';
  }
}

/** Whether `value` nests objects or arrays deeper than MAX_EVENT_DEPTH (the value itself, when an object
 * or array, is at depth 1). Iterative: safe on any depth. */
export function nestedTooDeep(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const stack: Array<[object, number]> = [[value, 1]];
  while (stack.length) {
    const [node, depth] = stack.pop() as [object, number];
    if (depth > MAX_EVENT_DEPTH) return true;
    const children = Array.isArray(node) ? (node as unknown[]) : Object.values(node);
    for (const child of children) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}
