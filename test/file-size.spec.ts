import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** Past this many lines a file holds more than one responsibility: split it by what it does. */
const MAX_LINES = 600;
const ROOT = resolve(__dirname, '..');

/** Files allowed over the limit for now, each with the reason; an entry goes once its file is split. */
const KNOWN_EXCEPTIONS: Record<string, string> = {};

/** Generated code, tests, fixtures and frozen legacy copies are not written by hand here. */
function isHandWritten(file: string): boolean {
  return (
    /\.(ts|tsx|mjs)$/.test(file) &&
    !/\.(spec|int-spec|e2e-spec)\.ts$/.test(file) &&
    !/(^|\/)(test|fixtures|legacy)\//.test(file) &&
    file !== 'libs/api-client/src/schema.ts'
  );
}

function handWrittenSources(): string[] {
  const listed = execFileSync('git', ['ls-files', '-z', '--', 'apps', 'libs', 'temporal', 'scripts'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return listed.split('\0').filter((file) => file !== '' && isHandWritten(file));
}

function lineCount(file: string): number {
  const text = readFileSync(resolve(ROOT, file), 'utf8');
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

describe('source file size', () => {
  const sources = handWrittenSources();

  it('should find the hand-written sources', () => {
    expect(sources).toContain('libs/schedule/src/grammar/natural/parser.ts');
    expect(sources).toContain('apps/dashboard/src/pages/alerts.tsx');
    expect(sources).not.toContain('libs/api-client/src/schema.ts');
    expect(sources.some((file) => file.endsWith('.spec.ts'))).toBe(false);
  });

  it(`should keep every hand-written source file at ${MAX_LINES} lines or fewer`, () => {
    const over = sources
      .filter((file) => !(file in KNOWN_EXCEPTIONS))
      .map((file) => ({ file, lines: lineCount(file) }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(over).toEqual([]);
  });

  it('should list as exceptions only files that are still over the limit', () => {
    const stale = Object.keys(KNOWN_EXCEPTIONS).filter(
      (file) => !sources.includes(file) || lineCount(file) <= MAX_LINES,
    );
    expect(stale).toEqual([]);
  });
});
