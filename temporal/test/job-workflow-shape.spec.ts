import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import * as ts from 'typescript';

/**
 * The job workflow reads as named steps (issue 47): every function of job.workflow.ts (and of the
 * occurrence decision it shares with the plan activity) stays under 60 lines, arrow functions and
 * nested functions included, from its first line to its last.
 */
const MAX_LINES = 60;
const FILES = ['temporal/workflows/job.workflow.ts', 'libs/workflow-contract/src/occurrence-opening.ts'];

interface FunctionSpan {
  name: string;
  lines: number;
}

/** Every function-like node of a source text with its name (or its line) and its length in lines. */
export function functionSpans(fileName: string, source: string): FunctionSpan[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const spans: FunctionSpan[] = [];
  const lineOf = (pos: number) => file.getLineAndCharacterOfPosition(pos).line + 1;
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = lineOf(node.getStart(file));
      const named = node.name && ts.isIdentifier(node.name) ? node.name.text : undefined;
      const parent = node.parent;
      const bound =
        parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name) ? parent.name.text : undefined;
      spans.push({ name: named ?? bound ?? `(anonymous, line ${first})`, lines: lineOf(node.getEnd()) - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return spans;
}

describe('job workflow shape', () => {
  it.each(FILES)('should keep every function of %s under 60 lines', (path) => {
    const spans = functionSpans(path, readFileSync(resolve(__dirname, '../..', path), 'utf8'));
    expect(spans.length).toBeGreaterThan(0);
    expect(spans.filter((span) => span.lines >= MAX_LINES)).toEqual([]);
  });

  it('should name the steps of the job workflow', () => {
    const names = functionSpans(FILES[0], readFileSync(resolve(__dirname, '../..', FILES[0]), 'utf8')).map(
      (span) => span.name,
    );
    expect(names).toEqual(
      expect.arrayContaining([
        'jobWorkflow',
        'listen',
        'runJob',
        'applyPending',
        'releaseQueued',
        'wake',
        'planNext',
        'openDue',
        'waitForNext',
        'continueAsNewIfLong',
        'parkIfIdle',
        'parkedJob',
      ]),
    );
  });

  it('should measure a long function, a nested one and an arrow function', () => {
    const long = `function long() {\n${'  call();\n'.repeat(60)}}\n`;
    const source = `${long}function outer() {\n  const inner = () => {\n    return 1;\n  };\n  return inner;\n}\n`;
    expect(functionSpans('x.ts', source)).toEqual([
      { name: 'long', lines: 62 },
      { name: 'outer', lines: 6 },
      { name: 'inner', lines: 3 },
    ]);
  });
});
