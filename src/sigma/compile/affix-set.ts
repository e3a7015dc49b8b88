// Prefixes (or suffixes) tested against one value at once, as in `Image|endswith: [60 names]`. Lists of
// at least GROUPED literals are grouped by their first (last) `width` characters, width being the shortest
// literal's length (at most 8), so a value is compared only with the literals that share its own first
// (last) characters; groups are keyed by a hash of those characters (no allocation per test). Shorter
// lists are compared one by one. Promise: `test(s)` equals `lits.some((l) => s.startsWith(l))`
// (`endsWith` for suffixes): a literal that s starts (ends) with is at least `width` long and agrees with
// s on those characters, so it is in the group looked up (groups merged by a hash collision only cost
// comparisons).
const MAX_WIDTH = 8;
const GROUPED = 4;

export class AffixSet {
  /** null: the literals are compared one by one. */
  private readonly groups: Map<number, string[]> | null;
  private readonly width: number;

  constructor(
    private readonly lits: readonly string[],
    private readonly atEnd: boolean,
  ) {
    this.width = Math.min(MAX_WIDTH, ...lits.map((l) => l.length));
    this.groups = lits.length >= GROUPED ? new Map() : null;
    if (this.groups === null) return;
    for (const lit of lits) {
      const key = this.keyOf(lit);
      const group = this.groups.get(key);
      if (group) group.push(lit);
      else this.groups.set(key, [lit]);
    }
  }

  test(s: string): boolean {
    if (this.groups === null) return this.any(s, this.lits);
    if (s.length < this.width) return false;
    const group = this.groups.get(this.keyOf(s));
    return group !== undefined && this.any(s, group);
  }

  private any(s: string, lits: readonly string[]): boolean {
    for (let i = 0; i < lits.length; i++) if (this.atEnd ? s.endsWith(lits[i]) : s.startsWith(lits[i])) return true;
    return false;
  }

  private keyOf(s: string): number {
    const from = this.atEnd ? s.length - this.width : 0;
    let h = 0;
    for (let i = from; i < from + this.width; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
    return h;
  }
}
