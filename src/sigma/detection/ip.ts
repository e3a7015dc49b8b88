// IPv4/IPv6 address and CIDR parsing for the `cidr` modifier.
// Promises: addresses parse to 4 or 16 bytes (IPv4-mapped IPv6 stays IPv6) and, as the reference reads them
// (Python's ipaddress), an IPv4 part never has a leading zero (`010` is refused: it would be octal to
// inet_aton), no whitespace is skipped, brackets (`[::1]`) are refused and an IPv6 scope (`fe80::1%eth0`)
// must be non-empty and hold neither `%` nor `/` (it plays no part in a comparison); a CIDR parses to a
// network (`hostBits` tells whether bits beyond the prefix are set); `inCidr` is allocation-free apart from
// parsing the event value.
export interface Cidr {
  version: 4 | 6;
  bytes: Uint8Array;
  prefix: number;
}

export function parseIpv4(s: string): Uint8Array | null {
  const parts = s.split('.');
  if (parts.length !== 4) return null;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const p = parts[i];
    if (!/^(?:0|[1-9]\d{0,2})$/.test(p)) return null;
    const n = Number(p);
    if (n > 255) return null;
    out[i] = n;
  }
  return out;
}

export function parseIpv6(input: string): Uint8Array | null {
  let s = input;
  const zone = s.indexOf('%');
  if (zone >= 0) {
    const scope = s.slice(zone + 1);
    if (scope === '' || scope.includes('%') || scope.includes('/')) return null;
    s = s.slice(0, zone);
  }
  const groups: number[] = [];
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const parseHalf = (h: string): number[] | null => {
    if (h === '') return [];
    const out: number[] = [];
    const items = h.split(':');
    for (let i = 0; i < items.length; i++) {
      const it = items[i];
      if (i === items.length - 1 && it.includes('.')) {
        const v4 = parseIpv4(it);
        if (!v4) return null;
        out.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(it)) return null;
        out.push(parseInt(it, 16));
      }
    }
    return out;
  };
  const head = parseHalf(halves[0]);
  if (!head) return null;
  if (halves.length === 2) {
    const tail = parseHalf(halves[1]);
    if (!tail || head.length + tail.length > 7) return null;
    groups.push(...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail);
  } else {
    if (head.length !== 8) return null;
    groups.push(...head);
  }
  const out = new Uint8Array(16);
  for (let i = 0; i < 8; i++) {
    out[2 * i] = groups[i] >> 8;
    out[2 * i + 1] = groups[i] & 0xff;
  }
  return out;
}

export function parseIp(s: string): Uint8Array | null {
  return s.includes(':') ? parseIpv6(s) : parseIpv4(s);
}

export function parseCidr(s: string): Cidr | null {
  const slash = s.indexOf('/');
  const addr = slash < 0 ? s : s.slice(0, slash);
  const bytes = parseIp(addr);
  if (!bytes) return null;
  const max = bytes.length * 8;
  let prefix = max;
  if (slash >= 0) {
    const p = s.slice(slash + 1);
    if (!/^\d{1,3}$/.test(p)) return null;
    prefix = Number(p);
    if (prefix > max) return null;
  }
  return { version: bytes.length === 4 ? 4 : 6, bytes, prefix };
}

/** Whether the network's address has bits set beyond its prefix (`10.1.2.3/8`). */
export function hostBits(net: Cidr): boolean {
  for (let bit = net.prefix; bit < net.bytes.length * 8; bit++) if ((net.bytes[bit >> 3] >> (7 - (bit & 7))) & 1) return true;
  return false;
}

export function inCidr(ip: Uint8Array, net: Cidr): boolean {
  if (ip.length !== net.bytes.length) return false;
  let bits = net.prefix;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((ip[i] & mask) !== (net.bytes[i] & mask)) return false;
  }
  return true;
}
