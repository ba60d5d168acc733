#!/usr/bin/env node
// The jobs file's JSON Schema (issue 42; docs/api.md → Jobs files), committed as
// `schemas/jobs-file.schema.json` for editors and CI: what `GET /api/v1/schemas/jobs-file.json`
// serves, cut from the OpenAPI document with every optional feature on (as the typed client is;
// generated-file.mjs).
//
//   node scripts/jobs-file-schema.mjs          (npm run schemas)  regenerate the committed file
//   node scripts/jobs-file-schema.mjs --check  (in npm run check)  fail when it is not what the server gives
import { join } from 'node:path';
import { dumpFromServer, formatFor, root, writeOrCheck } from './generated-file.mjs';

const target = join(root, 'schemas/jobs-file.schema.json');
const generated = await formatFor(target, JSON.stringify(dumpFromServer(['--jobs-file-schema'])));
writeOrCheck(target, generated, 'run `npm run schemas` and commit it.');
