#!/usr/bin/env node
// Writes build-info.json (git-ignored) with the source-control revision and the build date that
// GET /api/version reports. Run by `npm run build` and, with --if-changed, by the bootstrap of a
// source checkout: there the date is rewritten only when the revision changes.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, 'build-info.json');

function git(...args) {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

const head = git('rev-parse', 'HEAD');
const dirty = head && git('status', '--porcelain', '--untracked-files=no') !== '';
const vcsRef = process.env.HANGAR_VCS_REF || (head ? `${head}${dirty ? '-dirty' : ''}` : 'unknown');

if (process.argv.includes('--if-changed')) {
  try {
    if (JSON.parse(readFileSync(target, 'utf8')).vcs_ref === vcsRef) process.exit(0);
  } catch {
    // missing or unreadable: write it
  }
}
writeFileSync(target, JSON.stringify({ vcs_ref: vcsRef, build_date: new Date().toISOString() }, null, 2) + '\n');
