// Indicator values: the seven types, how each is validated and normalised (the one spelling stored
// and looked up), defanged writing undone ("hxxp://evil[.]com"), and the type of a bare value guessed
// from its shape. Pure functions; the same normalisation serves feeds and event observables.
import { domainToASCII } from 'node:url';
import { formatAddress, formatNetwork, parseAddress, parseIpv4Number, parseNetwork } from './addresses.js';

export const INDICATOR_TYPES = ['ip', 'cidr', 'domain', 'url', 'md5', 'sha1', 'sha256'] as const;
export type IndicatorType = (typeof INDICATOR_TYPES)[number];

/** One indicator as parsed from a feed. `score` (0..100) only when the format gives one per indicator. */
export interface Indicator {
  type: IndicatorType;
  value: string;
  score?: number;
  description?: string;
  source?: string;
}

export const MAX_VALUE_LENGTH = 2048;
/** Longest description or source kept per indicator. */
export const MAX_NOTE_LENGTH = 500;

const HASH_LENGTHS: Record<number, IndicatorType> = { 32: 'md5', 40: 'sha1', 64: 'sha256' };
const HEX = /^[0-9a-f]+$/;
const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;
const URL_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/** Undoes the usual defanging of shared indicators: hxxp(s)://, [.] (.) {.}, [:], [://]. */
export function refang(text: string): string {
  let out = text.trim();
  if (!/[[({]|hxxp|fxp/i.test(out)) return out;
  out = out.replace(/^hxxp(s?)(?=:|\[:)/i, 'http$1').replace(/^fxp(?=:|\[:)/i, 'ftp');
  out = out.replace(/\[:\/\/\]/g, '://').replace(/\[:\]/g, ':');
  out = out.replace(/\[\.\]|\(\.\)|\{\.\}|\[dot\]|\(dot\)/gi, '.');
  return out;
}

export function normaliseIp(text: string): string | undefined {
  // Dotted decimal that parses strictly is already canonical.
  if (!text.includes(':')) return parseIpv4Number(text) === undefined ? undefined : text;
  const address = parseAddress(text);
  return address ? formatAddress(address) : undefined;
}

/** A CIDR network (host bits cleared); a bare address is its single-host network (/32 or /128). */
export function normaliseCidr(text: string): string | undefined {
  if (!text.includes('/')) {
    const address = parseAddress(text);
    return address ? `${formatAddress(address)}/${address.version === 4 ? 32 : 128}` : undefined;
  }
  const network = parseNetwork(text);
  return network ? formatNetwork(network) : undefined;
}

/**
 * A host name of at least two labels, lowercase ASCII (IDNs as punycode), without a trailing dot; a
 * leading `*.` (wildcard) is dropped since a domain indicator covers its subdomains anyway. IP
 * addresses are not domains.
 */
export function normaliseDomain(text: string): string | undefined {
  let name = text.trim();
  if (name.startsWith('*.')) name = name.slice(2);
  if (name.endsWith('.')) name = name.slice(0, -1);
  if (name.length === 0 || name.length > 253) return undefined;
  if (!/^[\x21-\x7e]+$/.test(name)) {
    if (/[\s/\\@:?#]/.test(name)) return undefined;
    name = domainToASCII(name);
  }
  name = name.toLowerCase();
  if (name.length === 0 || name.length > 253) return undefined;
  const labels = name.split('.');
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label))) return undefined;
  if (/^\d+$/.test(labels[labels.length - 1])) return undefined;
  return name;
}

/**
 * An absolute URL with a host, as the WHATWG URL parser spells it (scheme and host lowercased, default
 * port dropped, an empty path is "/"), fragment removed.
 */
export function normaliseUrl(text: string): string | undefined {
  return parseUrl(text)?.href;
}

/** The URL of `text` in normalised form (see normaliseUrl), or undefined when it is not one. */
export function parseUrl(text: string): URL | undefined {
  if (text.length > MAX_VALUE_LENGTH || !URL_SCHEME.test(text) || /\s/.test(text)) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (!url.hostname) return undefined;
  url.hash = '';
  return url;
}

export function normaliseHash(text: string, type: 'md5' | 'sha1' | 'sha256'): string | undefined {
  const value = text.trim().toLowerCase();
  return HASH_LENGTHS[value.length] === type && HEX.test(value) ? value : undefined;
}

/** The normalised value of `text` as an indicator of `type`, or undefined when it is not one. */
export function normalise(type: IndicatorType, text: string): string | undefined {
  const value = refang(text);
  if (value.length === 0 || value.length > MAX_VALUE_LENGTH) return undefined;
  switch (type) {
    case 'ip':
      return normaliseIp(value);
    case 'cidr':
      return normaliseCidr(value);
    case 'domain':
      return normaliseDomain(value);
    case 'url':
      return normaliseUrl(value);
    default:
      return normaliseHash(value, type);
  }
}

/**
 * The type a bare value has by its shape: an IP address, a CIDR network, a URL with a scheme, a hex
 * string of 32/40/64 digits (md5/sha1/sha256), or a domain name. Undefined when it fits none.
 */
export function detectType(text: string): IndicatorType | undefined {
  const value = refang(text);
  if (value.length === 0 || value.length > MAX_VALUE_LENGTH) return undefined;
  if (URL_SCHEME.test(value)) return 'url';
  if (value.includes('/')) return parseNetwork(value) ? 'cidr' : undefined;
  if (parseIpv4Number(value) !== undefined || (value.includes(':') && parseAddress(value))) return 'ip';
  const hash = HASH_LENGTHS[value.length];
  if (hash && HEX.test(value.toLowerCase())) return hash;
  return normaliseDomain(value) ? 'domain' : undefined;
}

// eslint-disable-next-line no-control-regex -- these are the characters removed
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b-\u001f\u007f]/g;

/** A free-text note (description, source) cut to a bounded length; undefined when empty. */
export function note(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  // NUL cannot be stored in a text column; other control characters are kept out of the API too.
  const text = (Array.isArray(value) ? value.join(', ') : String(value)).replace(CONTROL_CHARACTERS, '').trim();
  if (text.length === 0) return undefined;
  return text.length > MAX_NOTE_LENGTH ? text.slice(0, MAX_NOTE_LENGTH) : text;
}

/** A 0..100 score from a number or numeric text (fractions rounded); undefined when absent or out of range. */
export function score(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isFinite(n) || n < 0 || n > 100) return undefined;
  return Math.round(n);
}
