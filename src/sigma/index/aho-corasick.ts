// A multi-pattern substring automaton (Aho-Corasick) over UTF-16 code units, for the candidate index.
// Promises: `scan(text, stamp, report)` calls `report(p)` for every pattern p that occurs in
// `foldCase(text)` (patterns are given already folded, case-fold.ts), at least once per distinct stamp and
// usually exactly once; work is linear in the text length plus the number of reported patterns. Pure-ASCII
// texts are folded on the fly without allocating; a text with any non-ASCII code unit is folded with
// foldCase first, so the folding always equals the matcher's. Memory is a few typed arrays (CSR edges,
// a dense 128-entry root row), so thousands of long patterns (hash lists, emoji) stay compact.
import { foldCase } from '../case-fold.js';

export class AhoCorasick {
  readonly patternCount: number;
  private readonly rootRow = new Int32Array(128);
  private readonly edgeStart: Int32Array;
  private readonly edgeChar: Uint16Array;
  private readonly edgeNext: Int32Array;
  private readonly fail: Int32Array;
  /** Nearest node (self excluded) along the failure chain that ends a pattern, 0 if none. */
  private readonly outLink: Int32Array;
  /** Node → first index in outPattern; outStart[n+1] - outStart[n] patterns end at node n. */
  private readonly outStart: Int32Array;
  private readonly outPattern: Int32Array;
  /** 1 when a scan in this node has something to report (own output or an output link). */
  private readonly reportable: Uint8Array;
  private readonly seen: Float64Array;

  constructor(patterns: readonly string[]) {
    this.patternCount = patterns.length;
    // Trie construction with one hash map of (node, char) → child.
    const trie = new Map<number, number>();
    const parentOf: number[] = [0];
    const charOf: number[] = [0];
    const ends: number[][] = [[]];
    for (let p = 0; p < patterns.length; p++) {
      const s = patterns[p];
      if (s.length === 0) throw new Error('AhoCorasick: empty pattern');
      let node = 0;
      for (let i = 0; i < s.length; i++) {
        const c = s.charCodeAt(i);
        const key = node * 65536 + c;
        let next = trie.get(key);
        if (next === undefined) {
          next = parentOf.length;
          parentOf.push(node);
          charOf.push(c);
          ends.push([]);
          trie.set(key, next);
        }
        node = next;
      }
      ends[node].push(p);
    }
    const n = parentOf.length;
    // CSR edges, grouped by parent and sorted by char.
    const count = new Int32Array(n + 1);
    for (let v = 1; v < n; v++) count[parentOf[v] + 1]++;
    for (let v = 0; v < n; v++) count[v + 1] += count[v];
    this.edgeStart = count.slice();
    const fill = count.slice();
    this.edgeChar = new Uint16Array(n);
    this.edgeNext = new Int32Array(n);
    for (let v = 1; v < n; v++) {
      const at = fill[parentOf[v]]++;
      this.edgeChar[at] = charOf[v];
      this.edgeNext[at] = v;
    }
    for (let v = 0; v < n; v++) this.sortEdges(this.edgeStart[v], this.edgeStart[v + 1]);
    for (let k = this.edgeStart[0]; k < this.edgeStart[1]; k++) if (this.edgeChar[k] < 128) this.rootRow[this.edgeChar[k]] = this.edgeNext[k];
    // Outputs.
    this.outStart = new Int32Array(n + 1);
    for (let v = 0; v < n; v++) this.outStart[v + 1] = this.outStart[v] + ends[v].length;
    this.outPattern = new Int32Array(this.outStart[n]);
    for (let v = 0; v < n; v++) this.outPattern.set(ends[v], this.outStart[v]);
    // Failure and output links, breadth first.
    this.fail = new Int32Array(n);
    this.outLink = new Int32Array(n);
    this.reportable = new Uint8Array(n);
    this.seen = new Float64Array(n).fill(-1);
    const queue = new Int32Array(n);
    let head = 0;
    let tail = 0;
    for (let k = this.edgeStart[0]; k < this.edgeStart[1]; k++) queue[tail++] = this.edgeNext[k];
    while (head < tail) {
      const u = queue[head++];
      for (let k = this.edgeStart[u]; k < this.edgeStart[u + 1]; k++) {
        const v = this.edgeNext[k];
        const c = this.edgeChar[k];
        let f = this.fail[u];
        let target = 0;
        while (true) {
          const g = this.goto(f, c);
          if (g > 0 && g !== v) {
            target = g;
            break;
          }
          if (f === 0) break;
          f = this.fail[f];
        }
        this.fail[v] = target;
        queue[tail++] = v;
      }
      const f = this.fail[u];
      this.outLink[u] = this.outStart[f + 1] > this.outStart[f] ? f : this.outLink[f];
      this.reportable[u] = this.outStart[u + 1] > this.outStart[u] || this.outLink[u] !== 0 ? 1 : 0;
    }
  }

  get nodeCount(): number {
    return this.fail.length;
  }

  private sortEdges(from: number, to: number): void {
    for (let i = from + 1; i < to; i++) {
      const c = this.edgeChar[i];
      const x = this.edgeNext[i];
      let j = i - 1;
      while (j >= from && this.edgeChar[j] > c) {
        this.edgeChar[j + 1] = this.edgeChar[j];
        this.edgeNext[j + 1] = this.edgeNext[j];
        j--;
      }
      this.edgeChar[j + 1] = c;
      this.edgeNext[j + 1] = x;
    }
  }

  /** Child of `node` by code unit `c`, or 0 when there is none (the root is never a child). */
  private goto(node: number, c: number): number {
    if (node === 0 && c < 128) return this.rootRow[c];
    let lo = this.edgeStart[node];
    let hi = this.edgeStart[node + 1];
    if (hi - lo <= 8) {
      for (; lo < hi; lo++) if (this.edgeChar[lo] === c) return this.edgeNext[lo];
      return 0;
    }
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const m = this.edgeChar[mid];
      if (m === c) return this.edgeNext[mid];
      if (m < c) lo = mid + 1;
      else hi = mid;
    }
    return 0;
  }

  private emit(state: number, stamp: number, report: (pattern: number) => void): void {
    let v = this.outStart[state + 1] > this.outStart[state] ? state : this.outLink[state];
    while (v !== 0 && this.seen[v] !== stamp) {
      this.seen[v] = stamp;
      for (let k = this.outStart[v]; k < this.outStart[v + 1]; k++) report(this.outPattern[k]);
      v = this.outLink[v];
    }
  }

  /** Report every pattern occurring in foldCase(text); `stamp` must be new for every event. */
  scan(text: string, stamp: number, report: (pattern: number) => void): void {
    let state = 0;
    const n = text.length;
    for (let i = 0; i < n; i++) {
      let c = text.charCodeAt(i);
      if (c >= 128) {
        this.scanFolded(foldCase(text), stamp, report);
        return;
      }
      if (c >= 65 && c <= 90) c += 32;
      state = this.step(state, c);
      if (this.reportable[state] === 1) this.emit(state, stamp, report);
    }
  }

  private scanFolded(text: string, stamp: number, report: (pattern: number) => void): void {
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      state = this.step(state, text.charCodeAt(i));
      if (this.reportable[state] === 1) this.emit(state, stamp, report);
    }
  }

  private step(state: number, c: number): number {
    while (state !== 0) {
      const g = this.goto(state, c);
      if (g !== 0) return g;
      state = this.fail[state];
    }
    return this.goto(0, c);
  }
}
