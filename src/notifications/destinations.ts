// Where notifications may go. Unless NOTIFY_ALLOW_PRIVATE=true, a channel may not reach a private,
// loopback, link-local or otherwise internal address: checked when the channel is saved (an address
// written as such, or a name resolving to one) and again at every connection, on the address actually
// connected to, so a name that later resolves inward (or a redirect, which is never followed) cannot
// turn a channel against the service's own network.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';

const internal = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) internal.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96]] as const) {
  internal.addSubnet(network, prefix, 'ipv6');
}

/** Whether an IP address is private, loopback, link-local, multicast or reserved. */
export function isInternalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return internal.check(address, 'ipv4');
  if (family !== 6) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return internal.check(mapped[1], 'ipv4');
  return internal.check(address, 'ipv6');
}

const bare = (host: string) => host.replace(/^\[|\]$/g, '');

/**
 * Why a channel may not name `host`, or null. A name that does not resolve now is accepted (the
 * receiver may come later): the check at connection time still applies.
 */
export async function destinationProblem(host: string, allowPrivate: boolean): Promise<string | null> {
  if (allowPrivate) return null;
  const name = bare(host);
  const refused = `is a private, loopback or link-local address; set NOTIFY_ALLOW_PRIVATE=true to allow internal receivers`;
  if (isIP(name)) return isInternalAddress(name) ? refused : null;
  if (name.toLowerCase() === 'localhost' || name.toLowerCase().endsWith('.localhost')) return refused;
  let addresses: LookupAddress[];
  try {
    addresses = await Promise.race([
      lookup(name, { all: true, verbatim: true }),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000).unref()),
    ]);
  } catch {
    return null;
  }
  return addresses.some((a) => isInternalAddress(a.address)) ? `resolves to an internal address; set NOTIFY_ALLOW_PRIVATE=true to allow internal receivers` : null;
}

/**
 * Why a connection to `host` is refused before any lookup (an internal address written as such, while
 * NOTIFY_ALLOW_PRIVATE is not set), or null. Names are checked on the resolved address (guardedLookup).
 */
export function refusedLiteral(host: string, allowPrivate: boolean): string | null {
  const address = bare(host);
  return !allowPrivate && isIP(address) && isInternalAddress(address) ? `${address} is an internal address (NOTIFY_ALLOW_PRIVATE is not set)` : null;
}

/** A DNS lookup for outgoing connections that refuses internal addresses (unless allowed). */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as unknown as LookupAddress[];
      const usable = allowPrivate ? list : list.filter((a) => !isInternalAddress(a.address));
      if (usable.length === 0) {
        const refused = Object.assign(new Error(`${hostname} resolves only to internal addresses (NOTIFY_ALLOW_PRIVATE is not set)`), { code: 'EACCES' });
        return callback(refused, '', 0);
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, usable);
      callback(null, usable[0].address, usable[0].family);
    });
  };
}
