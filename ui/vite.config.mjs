// Vite settings for the web UI: built into dist/ui (served by the API server at /); `npx vite --config
// ui/vite.config.mjs` runs a development server that forwards /api to a local server on port 8080.
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  root: here('.'),
  base: '/',
  plugins: [react()],
  logLevel: 'warn',
  build: {
    outDir: here('../dist/ui'),
    emptyOutDir: true,
    // Everything as external files: the Content-Security-Policy (default-src 'self') forbids inline code.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: true,
    chunkSizeWarningLimit: 1024,
  },
  server: { proxy: { '/api': { target: 'http://127.0.0.1:8080', changeOrigin: false } } },
});
