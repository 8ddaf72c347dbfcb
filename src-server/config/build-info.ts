/**
 * What GET /api/version reports: the version in package.json, and the source-control revision and
 * build date stamped into build-info.json by scripts/stamp-build-info.mjs (at `npm run build`, or by
 * the bootstrap of a source checkout).
 */
import { readFileSync } from 'node:fs';

export interface BuildInfo {
  version: string;
  vcsRef: string;
  buildDate: string;
}

const ROOT = new URL('../../', import.meta.url);

export function readBuildInfo(root: URL = ROOT): BuildInfo {
  const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { version: string };
  let stamp: { vcs_ref?: string; build_date?: string } = {};
  try {
    stamp = JSON.parse(readFileSync(new URL('build-info.json', root), 'utf8'));
  } catch {
    // not stamped (e.g. run straight from a source tree without the bootstrap)
  }
  return {
    version: pkg.version,
    vcsRef: stamp.vcs_ref ?? 'unknown',
    buildDate: stamp.build_date ?? new Date(0).toISOString(),
  };
}
