#!/usr/bin/env node
// Reads jest's --json output and prints the plain closing line `N passed, N failed`.
const fs = require('node:fs');
const file = process.argv[2];
// Passed as 0/1 by scripts/test.sh: the code gate (`npm run check`) counts as one test.
const gateFailed = Number(process.argv[3] ?? 0) === 1;
// Optional: a file of `passed <name>` / `failed <name>` lines, one per extra step of scripts/test.sh
// (OpenAPI lint, nest build of each app, contract fuzzing); each counts as one test.
const steps = (() => {
  try {
    return fs.readFileSync(process.argv[4], 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
})();
const stepsPassed = steps.filter((line) => line.startsWith('passed ')).length;
const stepsFailed = steps.length - stepsPassed;
let result;
try {
  result = JSON.parse(fs.readFileSync(file, 'utf8'));
} catch {
  console.log('0 passed, 1 failed');
  process.exit(1);
}
// A suite that fails to load counts as one failure even though it ran no test.
const brokenSuites = result.testResults.filter((s) => s.status === 'failed' && s.assertionResults.length === 0).length;
const failed = result.numFailedTests + brokenSuites + (gateFailed ? 1 : 0) + stepsFailed;
const passed = result.numPassedTests + (process.argv[3] === '0' ? 1 : 0) + stepsPassed;
const skipped = result.numPendingTests + result.numTodoTests;
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || result.numPassedTests === 0 ? 1 : 0);
