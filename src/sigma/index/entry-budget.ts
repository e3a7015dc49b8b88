// A bound on the entries that several caches hold together (the value caches of an index, the memos of
// the rules): each entry is taken from the budget before it is stored and given back when it is dropped.
// Entries may be charged to a version (of an index's postings): taking an entry for a new version starts
// the budget again, because every cache drops the entries of an older version before it stores new ones,
// and entries given back for an older version are ignored.
export class EntryBudget {
  private used = 0;
  private version = 0;
  constructor(readonly limit: number) {}

  /** Take one entry for `version`; false when the budget is spent. */
  take(version = 0): boolean {
    if (version !== this.version) {
      this.version = version;
      this.used = 0;
    }
    if (this.used >= this.limit) return false;
    this.used++;
    return true;
  }

  /** Give back `n` entries taken for `version`. */
  giveBack(n: number, version = 0): void {
    if (version === this.version) this.used -= n;
  }

  /** Entries taken and not given back (for the current version). */
  get taken(): number {
    return this.used;
  }
}
