import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { apiClient, startStack, type Stack } from '../utils/stack';

/**
 * The API reference (issue #26): `npm run build` renders the OpenAPI document with Redocly into
 * one static page that the API serves at `/api/v1/docs`. It must document what the server serves,
 * and neither its HTML nor the browser showing it may load anything from another origin.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const DOCS_BUILD = resolve(__dirname, '../../dist/api-docs/index.html');
const README = resolve(__dirname, '../../README.md');
/** Operations of the dashboard's own sign-in and settings: in the reference, not in the README's list. */
const DASHBOARD_ONLY = /^(GET|POST) \/api\/v1\/(auth\/|dashboard\/)/;

/** `METHOD /api/v1/path` of each curl in the README's "The API" section, ids as `{}`. */
function readmeOperations(readme: string): Set<string> {
  const section = readme.slice(readme.indexOf('## The API'), readme.indexOf('\n## ', readme.indexOf('## The API') + 1));
  const operations = new Set<string>();
  for (const line of section.split('\n').filter((l) => l.startsWith('curl '))) {
    const method = /-X (GET|POST|PUT|PATCH|DELETE)\b/.exec(line)?.[1] ?? 'GET';
    const url = /"?\$API(\/[^\s"?]*)/.exec(line)?.[1];
    if (url) {
      operations.add(`${method} /api/v1${url.replace(/\/\$\w+/g, '/{}')}`);
    }
  }
  return operations;
}

jest.setTimeout(120_000);

describe('API reference at /api/v1/docs', () => {
  let stack: Stack;
  let browser: Browser | undefined;

  beforeAll(async () => {
    if (!existsSync(DOCS_BUILD)) {
      throw new Error(`${DOCS_BUILD} is missing: run npm run build first`);
    }
    stack = await startStack({ worker: false });
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('should serve the page without a key, documenting every operation the server serves', async () => {
    const res = await fetch(`${stack.baseUrl}/api/v1/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    expect(html).toContain('<title>Scheduled Job Service API</title>');

    // The page carries the document it renders; it lists the same operations as the live one.
    const embedded = /const __redoc_definition = (\{.*\});\n/.exec(html);
    expect(embedded).not.toBeNull();
    const operations = (doc: { paths: Record<string, Record<string, { operationId?: string }>> }) =>
      Object.values(doc.paths)
        .flatMap((ops) => Object.values(ops).map((op) => op.operationId))
        .filter(Boolean)
        .sort();
    const live = (await apiClient(stack.baseUrl)('GET', '/api/v1/openapi.json')).body;
    expect(operations(JSON.parse(embedded![1]))).toEqual(operations(live));
    expect(operations(live)).toEqual(
      expect.arrayContaining(['jobs.create', 'jobs.test', 'runs.retry', 'openApi.docs']),
    );
  });

  it("should have every operation under /api/v1 in the README's API section, with one curl each", async () => {
    const live = (await apiClient(stack.baseUrl)('GET', '/api/v1/openapi.json')).body as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = Object.entries(live.paths)
      .filter(([path]) => path.startsWith('/api/v1/'))
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path.replace(/\{\w+\}/g, '{}')}`))
      .filter((op) => !DASHBOARD_ONLY.test(op))
      .sort();
    const listed = readmeOperations(readFileSync(README, 'utf8'));
    expect(documented.filter((op) => !listed.has(op))).toEqual([]);
    expect([...listed].filter((op) => !documented.includes(op))).toEqual([]);
    expect(documented.length).toBeGreaterThan(40); // the filter above left the API in
  });

  it('should reference only same-origin assets, and forbid the browser any other origin', async () => {
    const res = await fetch(`${stack.baseUrl}/api/v1/docs`);
    const html = await res.text();
    // Every element that loads something: scripts, styles, preloads, images, frames.
    const loads = [
      ...html.matchAll(/<(script|link|img|iframe|source|embed|object)\b[^>]*?\s(?:src|href|data)="([^"]*)"/gi),
    ];
    for (const [, tag, url] of loads) {
      expect({ tag, url, sameOrigin: new URL(url, stack.baseUrl).origin === stack.baseUrl }).toMatchObject({
        sameOrigin: true,
      });
    }
    expect(html).not.toMatch(/<script\b[^>]*\ssrc=/i); // Redoc's script is inlined: nothing to fetch

    const csp = Object.fromEntries(
      res.headers
        .get('content-security-policy')!
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .map(([name, ...values]) => [name, values]),
    );
    expect(csp['default-src']).toEqual(["'self'"]);
    expect(csp['connect-src']).toEqual(["'self'"]);
    expect(csp['img-src']).toEqual(["'self'", 'data:']);
    expect(csp['script-src']).not.toContain("'unsafe-inline'");
    expect(csp['script-src'].filter((v: string) => v.startsWith("'sha256-"))).toHaveLength(2);
  });

  it('should render in Chromium with every request kept on the server', async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (scripts/test.sh does)`);
    }
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    const page = await browser.newPage();
    const answered: string[] = [];
    const failed: { url: string; error: string }[] = [];
    const cspViolations: string[] = [];
    // Anything that would leave the machine is stopped here too, whatever the page's policy says.
    await page.route('**/*', (route) =>
      route.request().url().startsWith(stack.baseUrl) ? route.continue() : route.abort('blockedbyclient'),
    );
    page.on('response', (response) => answered.push(response.url()));
    page.on('requestfailed', (request) =>
      failed.push({ url: request.url(), error: request.failure()?.errorText ?? '' }),
    );
    page.on('console', (message) => {
      if (
        message.type() === 'error' &&
        /Content Security Policy/.test(message.text()) &&
        /script/.test(message.text())
      ) {
        cspViolations.push(message.text());
      }
    });

    await page.goto(`${stack.baseUrl}/api/v1/docs`);
    // Rendered by Redoc's script (hydrated): the operations of a section are listed.
    await page
      .getByRole('heading', { name: /Scheduled Job Service API/ })
      .first()
      .waitFor();
    await page.getByText('jobs', { exact: true }).first().click();
    await page.getByText('Run a job now (a manual run)').first().waitFor();

    expect(answered.length).toBeGreaterThan(0);
    expect(answered.filter((url) => !url.startsWith(stack.baseUrl))).toEqual([]);
    // Redoc's logo points at Redocly's host: the page's policy blocks it before any request leaves.
    for (const { url, error } of failed) {
      // (Playwright reports net::ERR_BLOCKED_BY_CSP as "csp"; one the route above aborted would fail here.)
      expect({ url, blocked: /^(csp|net::ERR_BLOCKED_BY_CSP)$/.test(error) }).toEqual({ url, blocked: true });
    }
    expect(cspViolations).toEqual([]);
  });
});
