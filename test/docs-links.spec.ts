import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * Every link of the project's Markdown (README, docs/, the READMEs of other folders) works in any
 * clone (issue #26): it is an http(s) or mailto URL, or it names a file inside the repository that
 * exists, and a `#fragment` names a heading of that file (GitHub's anchors).
 */
const ROOT = resolve(__dirname, '..');
const SKIP = new Set(['node_modules', 'dist', '.git', '.data', '.tools', '.test-data', 'coverage']);

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (SKIP.has(name) || (name.startsWith('.') && statSync(path).isDirectory())) {
      return [];
    }
    if (statSync(path).isDirectory()) {
      return markdownFiles(path);
    }
    return name.endsWith('.md') ? [path] : [];
  });
}

/** Link targets outside code: `[text](target)`, `![alt](target)`, `[ref]: target`, `<scheme://…>`. */
function linksOf(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```$/gm, '').replace(/`[^`\n]*`/g, '');
  return [
    ...[...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]),
    ...[...prose.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map((m) => m[1]),
    ...[...prose.matchAll(/<([a-z][a-z0-9+.-]*:[^>\s]+)>/gi)].map((m) => m[1]),
  ];
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  const prose = markdown.replace(/^```[\s\S]*?^```$/gm, '');
  for (const [, heading] of prose.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const text = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*_]/g, (c) => (c === '_' ? '_' : ''));
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** What is wrong with one link of `file`, or null. */
function problemOf(file: string, link: string): string | null {
  if (/^(https?:\/\/|mailto:)/i.test(link)) {
    return null;
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(link)) {
    return 'a scheme other than http(s) or mailto';
  }
  const [pathPart, fragment] = link.split('#', 2);
  const target = pathPart ? resolve(dirname(file), decodeURIComponent(pathPart.split('?')[0])) : file;
  if (pathPart.startsWith('/')) {
    return 'an absolute path';
  }
  if (relative(ROOT, target).startsWith('..') || !`${target}${sep}`.startsWith(`${ROOT}${sep}`)) {
    return 'leaves the repository';
  }
  if (!existsSync(target)) {
    return 'names no file';
  }
  if (fragment && target.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(fragment)) {
    return `names no heading of ${relative(ROOT, target)}`;
  }
  return null;
}

describe('links of the Markdown documentation', () => {
  const files = markdownFiles(ROOT);

  it('should find the README and the docs', () => {
    const names = files.map((f) => relative(ROOT, f));
    expect(names).toEqual(expect.arrayContaining(['README.md', 'docs/getting-started.md', 'docs/api.md']));
  });

  it('should have only links that work in any clone', () => {
    const broken = files.flatMap((file) =>
      linksOf(readFileSync(file, 'utf8'))
        .map((link) => ({ file: relative(ROOT, file), link, problem: problemOf(file, link) }))
        .filter((entry) => entry.problem !== null),
    );
    expect(broken).toEqual([]);
  });

  it('should tell a working link from a broken one', () => {
    const readme = join(ROOT, 'README.md');
    expect(problemOf(readme, 'docs/api.md')).toBeNull();
    expect(problemOf(readme, 'https://example.com/x')).toBeNull();
    expect(problemOf(readme, '../shared/spec/service-spec.md')).toBe('leaves the repository');
    expect(problemOf(readme, 'docs/nope.md')).toBe('names no file');
    expect(problemOf(readme, 'docs/getting-started.md#no-such-heading')).toBe(
      'names no heading of docs/getting-started.md',
    );
    expect(problemOf(readme, 'docs/getting-started.md#3-watch-deliveries-svc-receive')).toBeNull();
    expect(problemOf(readme, 'file:///etc/passwd')).toBe('a scheme other than http(s) or mailto');
  });
});

/**
 * Issue 44: the start banner the docs quote is the one scripts/start.sh prints, line by line (the
 * heredoc `cat <<INFO`, email alerts off; `$VAR` and `${…}` stand for whatever they print).
 */
describe('the start banner quoted in the docs', () => {
  const script = readFileSync(join(ROOT, 'scripts/start.sh'), 'utf8');
  const heredoc = /cat <<INFO\n([\s\S]*?)\nINFO\n/.exec(script)![1];
  const alertsOff = /ALERTS_INFO="(webhook and Slack channels\. Email is off[\s\S]*?)"\nfi/
    .exec(script)![1]
    .replace(/\\\$/g, '$')
    .replace(/\\\\/g, '\\');
  const printed = heredoc.replace('$ALERTS_INFO', alertsOff).split('\n');

  /** A line of the heredoc as a pattern: its variables (`$X`, `${…}` with nested braces) match anything. */
  function patternOf(line: string): RegExp {
    let pattern = '';
    for (let i = 0; i < line.length; i++) {
      if (line[i] === '$' && line[i + 1] === '{') {
        let depth = 0;
        let j = i + 1;
        for (; j < line.length; j++) {
          depth += line[j] === '{' ? 1 : line[j] === '}' ? -1 : 0;
          if (depth === 0) {
            break;
          }
        }
        pattern += '.+';
        i = j;
      } else if (line[i] === '$' && /[A-Z_]/.test(line[i + 1] ?? '')) {
        while (/[A-Z_]/.test(line[i + 1] ?? '')) {
          i++;
        }
        pattern += '.+';
      } else {
        pattern += line[i].replace(/[.*+?^(){}|[\]\\]/g, '\\$&');
      }
    }
    return new RegExp(`^${pattern}$`);
  }

  it.each(['README.md', 'docs/getting-started.md'])('%s quotes every line start.sh prints', (file) => {
    const markdown = readFileSync(join(ROOT, file), 'utf8');
    const block = /^```\w*\n( {2}Scheduled job service is running\.\n[\s\S]*?)^```$/m.exec(markdown);
    expect(block).not.toBeNull();
    const quoted = block![1].replace(/\n$/, '').split('\n');
    const expected = printed.slice(1).map((line) => line.replace(/\s+$/, ''));
    while (expected.at(-1) === '') {
      expected.pop();
    }
    expect(quoted.length).toBe(expected.length);
    quoted.forEach((line, i) => expect([i, line]).toEqual([i, expect.stringMatching(patternOf(expected[i]))]));
  });
});
