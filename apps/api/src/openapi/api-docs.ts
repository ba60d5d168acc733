import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The API reference page (`npm run build` → dist/api-docs/index.html, scripts/build-api-docs.js):
 * Redocly's static rendering of this server's OpenAPI document, read once at start-up.
 */
export interface ApiDocsPage {
  html: Buffer;
  /** Its Content-Security-Policy: the page's own inline scripts by hash, and nothing from elsewhere. */
  csp: string;
}

/** The built page, or null when there is no build (the route then answers 503 saying so). */
export function loadApiDocs(file: string = join(projectRoot(), 'dist', 'api-docs', 'index.html')): ApiDocsPage | null {
  if (!existsSync(file)) {
    return null;
  }
  const html = readFileSync(file);
  return { html, csp: apiDocsCsp(html.toString('utf8')) };
}

/**
 * Redoc's script is inlined into the page (no CDN); each inline script is allowed by its SHA-256
 * rather than by 'unsafe-inline'. Redoc styles its components with inline <style> elements, and its
 * logo and icons would come from Redocly's hosts: `img-src` and `connect-src` keep the browser on
 * this origin (the logo then just does not show), so opening the docs sends nothing elsewhere.
 */
export function apiDocsCsp(html: string): string {
  const hashes = [...html.matchAll(/<script(?:\s[^>]*)?>([\s\S]*?)<\/script>/g)]
    .filter((m) => m[1].length > 0)
    .map((m) => `'sha256-${createHash('sha256').update(m[1], 'utf8').digest('base64')}'`);
  return [
    "default-src 'self'",
    `script-src 'self' ${hashes.join(' ')}`.trim(),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function projectRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json')) && resolve(dir, '..') !== dir) {
    dir = resolve(dir, '..');
  }
  return dir;
}
