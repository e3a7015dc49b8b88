// Many prefixes (or suffixes) tested against one value at once, as in `Image|endswith: [60 names]`: the
// literals are grouped by their first (last) `width` characters, width being the shortest literal's length
// (at most 8), so a value is compared only with the literals that share its own first (last) characters.
// Groups are keyed by a hash of those characters (no allocation per test). Promise: `test(s)` equals
// `lits.some((l) => s.startsWith(l))` (`endsWith` for suffixes): a literal that s starts (ends) with is at
// least `width` long and agrees with s on those characters, so it is in the group looked up (groups merged
// by a hash collision only cost comparisons).
const MAX_WIDTH = 8;

export class AffixSet {
  private readonly groups = new Map<number, string[]>();
  private readonly width: number;

  constructor(
    lits: readonly string[],
    private readonly atEnd: boolean,
  ) {
    this.width = Math.min(MAX_WIDTH, ...lits.map((l) => l.length));
    for (const lit of lits) {
      const key = this.keyOf(lit);
      const group = this.groups.get(key);
      if (group) group.push(lit);
      else this.groups.set(key, [lit]);
    }
  }

  test(s: string): boolean {
    if (s.length < this.width) return false;
    const group = this.groups.get(this.keyOf(s));
    if (group === undefined) return false;
    for (let i = 0; i < group.length; i++) if (this.atEnd ? s.endsWith(group[i]) : s.startsWith(group[i])) return true;
    return false;
  }

  private keyOf(s: string): number {
    const from = this.atEnd ? s.length - this.width : 0;
    let h = 0;
    for (let i = from; i < from + this.width; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
    return h;
  }
}
