// A lower bound on the cost of matching parsed events, measured on the bench's own events: what any
// matcher that reads JavaScript objects must at least do with an event, and nothing more. Every value is
// visited (for…in over each object, nested ones included), and the text of each value that is not the very
// value found at its place in the previous event is read once, character by character; no pattern is
// looked for and no rule is evaluated. Keyword searches apply to every value, so a value that has not been
// seen must be read, and telling a seen value from a new one costs at least a comparison.

/** Visit every value of `node`; `place` numbers the values in walk order, `last` holds the previous
 * event's value at each place. Returns a checksum of the characters read. */
function visit(node: Record<string, unknown>, last: unknown[], place: { n: number }): number {
  let sum = 0;
  for (const k in node) {
    const v = node[k];
    if (typeof v === 'object' && v !== null) {
      sum += visit(v as Record<string, unknown>, last, place);
      continue;
    }
    const at = place.n++;
    if (last[at] === v) continue;
    last[at] = v;
    if (typeof v === 'string') for (let i = 0; i < v.length; i++) sum += v.charCodeAt(i) & 1;
  }
  return sum;
}

/** One pass of the floor over `events`; the checksum keeps the work from being optimised away. */
export function floorPass(events: readonly object[], last: unknown[]): number {
  let sum = 0;
  const place = { n: 0 };
  for (let i = 0; i < events.length; i++) {
    place.n = 0;
    sum += visit(events[i] as Record<string, unknown>, last, place);
  }
  return sum;
}
