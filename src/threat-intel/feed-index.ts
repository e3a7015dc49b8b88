// One feed's indicators in memory, shaped for lookups that cost the same however big the feed is:
// exact sets per type (ip, domain, url, hashes), networks by prefix length (an address is looked up
// once per distinct prefix length the feed uses, most specific first: a hash probe, not a scan), and
// domain suffixes (an indicator `evil.example` also matches `a.b.evil.example`, never `notevil.example`).
import { parseNetwork, networkOf, type Address } from './addresses.js';
import type { Indicator, IndicatorType } from './indicators.js';

/** A matched indicator: its type and stored value, and its own score when the feed gave one. */
export interface IndicatorHit {
  type: IndicatorType;
  value: string;
  score?: number;
}

type ExactType = Exclude<IndicatorType, 'cidr'>;
const NO_SCORE = -1;

/** Networks of one IP version: per prefix length, the listed networks keyed by their leading bits
 * (a number for IPv4, so IPv4 lookups need no BigInt arithmetic). */
interface Networks<K> {
  /** Prefix lengths present, longest first. */
  prefixes: number[];
  byPrefix: Map<number, Map<K, { value: string; score: number }>>;
}

/** The leading `prefix` bits of an IPv4 address, as a number. */
const v4Key = (address: number, prefix: number) => (prefix === 0 ? 0 : address >>> (32 - prefix));

export class FeedIndex {
  private readonly exact = new Map<ExactType, Map<string, number>>();
  private readonly v4: Networks<number> = { prefixes: [], byPrefix: new Map() };
  private readonly v6: Networks<bigint> = { prefixes: [], byPrefix: new Map() };
  size = 0;

  constructor(
    readonly id: string,
    readonly name: string,
    /** The feed's score, for indicators that carry none. */
    readonly riskScore: number,
  ) {}

  add(indicator: Pick<Indicator, 'type' | 'value' | 'score'>): void {
    const score = indicator.score ?? NO_SCORE;
    if (indicator.type === 'cidr') {
      const network = parseNetwork(indicator.value);
      if (!network) return;
      const entry = { value: indicator.value, score };
      if (network.version === 4) tableOf(this.v4, network.prefix).set(v4Key(Number(network.network), network.prefix), entry);
      else tableOf(this.v6, network.prefix).set(network.network, entry);
    } else {
      let set = this.exact.get(indicator.type);
      if (!set) {
        set = new Map();
        this.exact.set(indicator.type, set);
      }
      set.set(indicator.value, score);
    }
    this.size++;
  }

  private hit(type: IndicatorType, value: string, score: number): IndicatorHit {
    return score === NO_SCORE ? { type, value } : { type, value, score };
  }

  /** The indicator of exactly this normalised value, if listed. */
  matchExact(type: ExactType, value: string): IndicatorHit | undefined {
    const score = this.exact.get(type)?.get(value);
    return score === undefined ? undefined : this.hit(type, value, score);
  }

  /** The listed address itself and the listed networks containing it (most specific first). */
  matchAddress(address: Address, text: string): IndicatorHit[] {
    const hits: IndicatorHit[] = [];
    const exact = this.matchExact('ip', text);
    if (exact) hits.push(exact);
    if (address.version === 4) {
      const n = Number(address.value);
      for (const prefix of this.v4.prefixes) {
        const entry = this.v4.byPrefix.get(prefix)!.get(v4Key(n, prefix));
        if (entry) hits.push(this.hit('cidr', entry.value, entry.score));
      }
    } else {
      for (const prefix of this.v6.prefixes) {
        const entry = this.v6.byPrefix.get(prefix)!.get(networkOf(address, prefix));
        if (entry) hits.push(this.hit('cidr', entry.value, entry.score));
      }
    }
    return hits;
  }

  /** The listed domain that is `name` or its nearest listed parent domain. */
  matchDomain(name: string): IndicatorHit | undefined {
    const set = this.exact.get('domain');
    if (!set) return undefined;
    let at = 0;
    for (;;) {
      const candidate = name.slice(at);
      const score = set.get(candidate);
      if (score !== undefined) return this.hit('domain', candidate, score);
      const dot = name.indexOf('.', at);
      // A listed domain has at least two labels, so the last label alone is never looked up.
      if (dot === -1 || name.indexOf('.', dot + 1) === -1) return undefined;
      at = dot + 1;
    }
  }
}

function tableOf<K>(networks: Networks<K>, prefix: number): Map<K, { value: string; score: number }> {
  let table = networks.byPrefix.get(prefix);
  if (!table) {
    table = new Map();
    networks.byPrefix.set(prefix, table);
    networks.prefixes = [...networks.byPrefix.keys()].sort((a, b) => b - a);
  }
  return table;
}
