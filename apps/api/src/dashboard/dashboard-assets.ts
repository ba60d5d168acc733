import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';

/** Content types of the files Vite emits. */
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

export interface Asset {
  body: Buffer;
  type: string;
}

/**
 * The built dashboard (`npm run build` → dist/dashboard), read once at start-up: a handful of
 * content-hashed files, so serving them from memory needs no static-file server.
 */
export class DashboardAssets {
  private constructor(
    readonly index: Buffer | null,
    private readonly files: Map<string, Asset>,
    readonly dir: string,
  ) {}

  static load(dir: string = defaultDir()): DashboardAssets {
    const files = new Map<string, Asset>();
    const assets = join(dir, 'assets');
    if (existsSync(assets)) {
      for (const name of readdirSync(assets)) {
        const path = join(assets, name);
        if (statSync(path).isFile()) {
          files.set(name, { body: readFileSync(path), type: TYPES[extname(name)] ?? 'application/octet-stream' });
        }
      }
    }
    const indexPath = join(dir, 'index.html');
    return new DashboardAssets(existsSync(indexPath) ? readFileSync(indexPath) : null, files, dir);
  }

  /** A file under `/assets/` by its name (no paths: names are looked up, never joined). */
  asset(name: string): Asset | undefined {
    return this.files.get(name);
  }
}

/** `dist/dashboard` of the project: found from this file whether it runs from dist/ or from sources. */
function defaultDir(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json')) && resolve(dir, '..') !== dir) {
    dir = resolve(dir, '..');
  }
  return join(dir, 'dist', 'dashboard');
}
