// Which copy of a UI file a request gets: the build writes brotli (.br) and gzip (.gz) copies beside
// each text file (scripts/precompress.mjs). @fastify/static picks among them for the files; the page
// answered at the UI's own routes is picked here the same way (same negotiator, `*` read as gzip).
// Every answer that has copies varies on Accept-Encoding, so a cache never hands one to another client.
import { existsSync, readFileSync } from 'node:fs';
import negotiate from '@fastify/accept-negotiator';
import type { FastifyReply } from 'fastify';

/** The codings the build writes, with the extension of their copy, in order of preference. */
export const CODINGS = { br: '.br', gzip: '.gz' } as const;
export type Coding = keyof typeof CODINGS;

/** The copies of one file: its own bytes, and each coding's copy the build wrote. */
export interface EncodedFile {
  identity: Buffer;
  encoded: Map<Coding, Buffer>;
}

export function readEncodedFile(path: string): EncodedFile {
  const encoded = new Map<Coding, Buffer>();
  for (const [coding, ext] of Object.entries(CODINGS) as [Coding, string][]) {
    if (existsSync(path + ext)) encoded.set(coding, readFileSync(path + ext));
  }
  return { identity: readFileSync(path), encoded };
}

/** The coding to send among `available`, or undefined for the file as it is. */
export function chooseCoding(acceptEncoding: string | undefined, available: Iterable<Coding>): Coding | undefined {
  if (!acceptEncoding) return undefined;
  return negotiate(acceptEncoding.toLowerCase().replace(/\*/g, 'gzip'), [...available]) ?? undefined;
}

/** Adds Accept-Encoding to the answer's Vary header. */
export function varyOnEncoding(reply: FastifyReply): void {
  const vary = reply.getHeader('vary');
  const names = typeof vary === 'string' ? vary.split(',').map((name) => name.trim()).filter(Boolean) : [];
  if (!names.some((name) => name.toLowerCase() === 'accept-encoding' || name === '*')) names.push('Accept-Encoding');
  void reply.header('vary', names.join(', '));
}
