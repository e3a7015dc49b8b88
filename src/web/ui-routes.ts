// Serves the web UI built into dist/ui (scripts/build.mjs) at /: its files, and index.html for any
// other GET of a path outside /api (the UI's own routes such as /alerts/<id>), so a reload or a shared
// link opens the right page. /api paths never fall back: an unknown one stays a JSON 404. Each file
// goes out as the brotli or gzip copy the build wrote beside it when the request accepts one
// (content-coding.ts). Without a built UI nothing is registered and / answers the JSON 404 like any
// unknown path.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../http/context.js';
import { chooseCoding, CODINGS, readEncodedFile, varyOnEncoding } from './content-coding.js';

/** dist/ui of this checkout, from src/web (tests, tsx) and dist/web (the compiled server) alike. */
export const UI_ROOT = fileURLToPath(new URL('../../dist/ui/', import.meta.url));

/** Hashed bundle files never change under their name; the page itself keeps the API's no-store. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

export interface WebUi {
  /** Answers the UI's index.html when the request is a page of the UI; false when it is not one. */
  fallback(request: FastifyRequest, reply: FastifyReply): boolean;
}

const NO_UI: WebUi = { fallback: () => false };

function isUiPage(request: FastifyRequest): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  const path = request.url.split('?')[0];
  if (path === '/api' || path.startsWith('/api/')) return false;
  // A missing file (a stale /assets/… name, /favicon.ico) is a 404, not the page: a browser would
  // otherwise run HTML as a script or a style sheet.
  const last = path.slice(path.lastIndexOf('/') + 1);
  return !last.includes('.');
}

export async function webUiRoutes(app: App, root: string = UI_ROOT): Promise<WebUi> {
  const indexPath = join(root, 'index.html');
  if (!existsSync(indexPath)) return NO_UI;
  const index = readEncodedFile(indexPath);
  await app.register(async (scope) => {
    // The UI's files are public: signing in happens inside the page.
    scope.addHook('onRoute', (route) => {
      route.config = { ...(route.config as object), access: { auth: 'public' } } as typeof route.config;
    });
    scope.addHook('onSend', async (request, reply) => {
      // A 304 (a revalidation) carries what the file's 200 would.
      if ((reply.statusCode === 200 || reply.statusCode === 304) && request.url.startsWith('/assets/')) reply.header('Cache-Control', IMMUTABLE);
      varyOnEncoding(reply);
    });
    await scope.register(fastifyStatic, {
      root,
      prefix: '/',
      // One route per file found at start (a rebuild needs a restart), so every other path reaches the
      // not-found handler and its fallback below.
      wildcard: false,
      index: ['index.html'],
      // A file's .br or .gz copy, by the request's Accept-Encoding; the copies get no routes of their own.
      preCompressed: true,
      globIgnore: Object.values(CODINGS).map((ext) => `**/*${ext}`),
      cacheControl: false,
      etag: true,
      lastModified: true,
    });
  });
  return {
    fallback(request, reply) {
      if (!isUiPage(request)) return false;
      const coding = chooseCoding(request.headers['accept-encoding'], index.encoded.keys());
      varyOnEncoding(reply);
      if (coding) void reply.header('content-encoding', coding);
      void reply
        .code(200)
        .type('text/html; charset=utf-8')
        .send(coding ? index.encoded.get(coding) : index.identity);
      return true;
    },
  };
}
