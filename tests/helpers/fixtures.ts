/**
 * The real-world binaries in ../shared/fixtures (never copied into this repository). The folder can
 * be moved with HANGAR_FIXTURES. Without it, tests that need it skip with a visible message, except
 * under CI=true, where its absence is a failure.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const FIXTURES = resolve(process.env.HANGAR_FIXTURES ?? join(process.cwd(), '..', 'shared', 'fixtures'));

export const fixturesMissing = existsSync(join(FIXTURES, 'SOURCES.md')) ? null : `the fixtures folder ${FIXTURES} is missing (set HANGAR_FIXTURES)`;

if (fixturesMissing && process.env.CI === 'true') {
  throw new Error(`${fixturesMissing}: fixture tests cannot be skipped under CI`);
}
if (fixturesMissing) console.warn(`SKIPPING fixture tests: ${fixturesMissing}`);

/** Absolute path of a fixture, e.g. fixture('ios', 'demo.ipa'). */
export function fixture(...parts: string[]): string {
  return join(FIXTURES, ...parts);
}
