// The dashboard (docs/architecture.md → Dashboard): Preact pages bundled by Vite into
// dist/dashboard, which the API process serves at `/` (apps/api/src/dashboard). No dev server,
// no CDN: `npm run build` produces every file the browser loads.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/',
  logLevel: 'warn',
  // The typed API client generated from the OpenAPI document (libs/api-client).
  resolve: { alias: { '@svc/api-client': fileURLToPath(new URL('../../libs/api-client/src', import.meta.url)) } },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../../dist/dashboard', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    sourcemap: false,
  },
});
