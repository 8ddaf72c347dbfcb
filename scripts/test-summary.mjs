#!/usr/bin/env node
// Sums the results of every suite in a results directory and prints the closing line CI reads:
//   N passed, N failed, N skipped
// Understands vitest's JSON reporter output and our own {"passed","failed","skipped"} files.
// A suite that produced no readable result counts as one failure, so a crash never looks green.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2] ?? 'test-results';
const expected = ['vitest.json', 'typecheck.json', 'build.json', 'bench.json'];
let passed = 0;
let failed = 0;
let skipped = 0;

const present = new Set(readdirSync(dir).filter((f) => f.endsWith('.json')));
for (const name of expected) {
  if (!present.has(name)) {
    console.error(`no result from ${name.replace(/\.json$/, '')}: counted as 1 failure`);
    failed += 1;
  }
}
for (const name of present) {
  let data;
  try {
    data = JSON.parse(readFileSync(join(dir, name), 'utf8'));
  } catch {
    console.error(`unreadable result ${name}: counted as 1 failure`);
    failed += 1;
    continue;
  }
  if ('numPassedTests' in data) {
    // vitest (jest-compatible JSON): todo and pending tests count as skipped
    passed += data.numPassedTests;
    failed += data.numFailedTests;
    skipped += (data.numPendingTests ?? 0) + (data.numTodoTests ?? 0);
    // a file that failed to load has no tests but fails the run
    for (const file of data.testResults ?? []) {
      if (file.status === 'failed' && (file.assertionResults ?? []).length === 0) failed += 1;
    }
  } else {
    passed += data.passed ?? 0;
    failed += data.failed ?? 0;
    skipped += data.skipped ?? 0;
  }
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 ? 1 : 0);
