// IP addresses as numbers: strict parsing of IPv4 (dotted decimal, no leading zeros) and IPv6 (with
// `::` and an embedded IPv4 tail), canonical text (IPv6 as RFC 5952 compressed lowercase; IPv4-mapped
// IPv6 reads as its IPv4 address), and network prefixes for CIDR matching. Pure functions.

export interface Address {
  version: 4 | 6;
  /** The address as an unsigned integer (32 or 128 bits). */
  value: bigint;
}

const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;

/** A dotted-decimal IPv4 address as a 32-bit unsigned number (strict: four parts 0..255, no leading zeros). */
export function parseIpv4Number(text: string): number | undefined {
  const length = text.length;
  if (length < 7 || length > 15) return undefined;
  let value = 0;
  let part = 0;
  let digits = 0;
  let parts = 0;
  for (let i = 0; i <= length; i++) {
    const c = i === length ? 46 : text.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || part > 255 || ++parts > 4) return undefined;
      value = value * 256 + part;
      part = 0;
      digits = 0;
    } else if (c >= 48 && c <= 57) {
      if (digits === 1 && part === 0) return undefined; // a leading zero
      part = part * 10 + (c - 48);
      if (++digits > 3) return undefined;
    } else {
      return undefined;
    }
  }
  return parts === 4 ? value : undefined;
}

function parseIpv4(text: string): bigint | undefined {
  const n = parseIpv4Number(text);
  return n === undefined ? undefined : BigInt(n);
}

function parseGroups(text: string): number[] | undefined {
  if (text === '') return [];
  const groups: number[] = [];
  const parts = text.split(':');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (i === parts.length - 1 && part.includes('.')) {
      const v4 = parseIpv4(part);
      if (v4 === undefined) return undefined;
      groups.push(Number(v4 >> 16n), Number(v4 & 0xffffn));
    } else if (HEX_GROUP.test(part)) {
      groups.push(parseInt(part, 16));
    } else {
      return undefined;
    }
  }
  return groups;
}

function parseIpv6(text: string): bigint | undefined {
  if (text.length > 45) return undefined;
  const gap = text.indexOf('::');
  let groups: number[] | undefined;
  if (gap === -1) {
    groups = parseGroups(text);
    if (!groups || groups.length !== 8) return undefined;
  } else {
    if (text.indexOf('::', gap + 1) !== -1) return undefined;
    const head = parseGroups(text.slice(0, gap));
    const tail = parseGroups(text.slice(gap + 2));
    if (!head || !tail || head.length + tail.length > 7) return undefined;
    groups = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  }
  let value = 0n;
  for (const g of groups) value = (value << 16n) | BigInt(g);
  return value;
}

/** Parses an IP address (an IPv6 zone suffix `%eth0` is dropped); IPv4-mapped IPv6 becomes IPv4. */
export function parseAddress(text: string): Address | undefined {
  if (text.length === 0 || text.length > 60) return undefined;
  if (text.includes(':')) {
    const zone = text.indexOf('%');
    const value = parseIpv6(zone === -1 ? text : text.slice(0, zone));
    if (value === undefined) return undefined;
    if (value >> 32n === 0xffffn) return { version: 4, value: value & 0xffffffffn };
    return { version: 6, value };
  }
  const value = parseIpv4(text);
  return value === undefined ? undefined : { version: 4, value };
}

export function formatAddress(address: Address): string {
  if (address.version === 4) {
    const v = Number(address.value);
    return `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
  }
  const groups: number[] = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((address.value >> BigInt(i * 16)) & 0xffffn));
  // The longest run of two or more zero groups (the first on a tie) becomes "::".
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart === -1) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

export const addressBits = (version: 4 | 6) => (version === 4 ? 32 : 128);

/** The network of `address` with `prefix` leading bits kept. */
export function networkOf(address: Address, prefix: number): bigint {
  const bits = addressBits(address.version);
  if (prefix === 0) return 0n;
  const hostBits = BigInt(bits - prefix);
  return (address.value >> hostBits) << hostBits;
}

export interface Network {
  version: 4 | 6;
  network: bigint;
  prefix: number;
}

/** Parses `address/prefix` (host bits are cleared: 10.1.2.3/8 is 10.0.0.0/8); undefined when malformed. */
export function parseNetwork(text: string): Network | undefined {
  const slash = text.indexOf('/');
  if (slash === -1) return undefined;
  const address = parseAddress(text.slice(0, slash));
  const prefixText = text.slice(slash + 1);
  if (!address || !/^\d{1,3}$/.test(prefixText)) return undefined;
  let prefix = Number(prefixText);
  // An IPv4-mapped network written in IPv6 (::ffff:10.0.0.0/104) is the IPv4 network /8.
  if (address.version === 4 && text.slice(0, slash).includes(':')) prefix -= 96;
  if (prefix < 0 || prefix > addressBits(address.version)) return undefined;
  return { version: address.version, network: networkOf(address, prefix), prefix };
}

export function formatNetwork(network: Network): string {
  return `${formatAddress({ version: network.version, value: network.network })}/${network.prefix}`;
}
