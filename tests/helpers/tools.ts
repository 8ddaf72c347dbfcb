/**
 * External tools that some parser tests use to produce real inputs (wixl for .msi, rpmbuild for
 * .rpm, mksquashfs for squashfs images); scripts/ensure-test-tools.sh installs them. Without one,
 * the tests that need it skip with a visible message, except under CI=true, where its absence is a
 * failure.
 */
import { spawnSync } from 'node:child_process';

/** Why a tool cannot be used (null when it can): `command` from the Debian package `pkg`. */
export function toolMissing(command: string, pkg: string): string | null {
  const found = spawnSync('sh', ['-c', 'command -v "$1"', 'sh', command], { encoding: 'utf8' });
  if (found.status === 0 && found.stdout.trim() !== '') return null;
  const message = `${command} is not installed (Debian package ${pkg}; scripts/ensure-test-tools.sh installs it)`;
  if (process.env.CI === 'true') throw new Error(`${message}: tests that need it cannot be skipped under CI`);
  console.warn(`SKIPPING tests that need ${command}: ${message}`);
  return message;
}

/** Runs a command, throwing with its output when it fails. */
export function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): string {
  const result = spawnSync(command, args, { encoding: 'utf8', ...options });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed (${result.status ?? result.signal}):\n${result.stdout}\n${result.stderr}`);
  }
  return result.stdout;
}
