// Writes a brotli (`.br`) and a gzip (`.gz`) copy beside every compressible file of a built folder (the
// web UI in dist/ui), once per build: the server sends the copy a client's Accept-Encoding asks for
// (@fastify/static's preCompressed) and never compresses on a request. A copy that would not be smaller
// than the file is not written, and the server then sends the file as it is.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/** Text formats the UI build produces; images such as PNG or WOFF2 are compressed already. */
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.map', '.json', '.svg', '.txt', '.xml', '.ico', '.wasm']);

/** The encodings written, with the extension @fastify/static looks for. */
export const ENCODINGS = { br: '.br', gzip: '.gz' };

function files(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files(path, out);
    else if (COMPRESSIBLE.has(extname(name))) out.push(path);
  }
  return out;
}

/**
 * Brotli's best quality costs about 1 s of CPU for the 440 KB bundle (12% smaller than gzip); above
 * 1 MB (the source map, fetched only by developer tools) quality 9 takes 0.3 s where 11 takes 4 s to
 * save another 9%.
 */
const LARGE = 1024 * 1024;
const brotliQuality = (size) => (size > LARGE ? 9 : constants.BROTLI_MAX_QUALITY);

export function precompress(dir) {
  const written = [];
  for (const path of files(dir)) {
    const data = readFileSync(path);
    const br = brotliCompressSync(data, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: brotliQuality(data.length),
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: data.length,
      },
    });
    const gz = gzipSync(data, { level: constants.Z_BEST_COMPRESSION });
    for (const [copy, ext] of [[br, ENCODINGS.br], [gz, ENCODINGS.gzip]]) {
      if (copy.length >= data.length) continue;
      writeFileSync(path + ext, copy);
      written.push(path + ext);
    }
  }
  return written;
}
