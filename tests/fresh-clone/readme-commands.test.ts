/**
 * The README's first command, tried as a newcomer would: a fresh clone of this repository (what is
 * committed, nothing else), a PATH with the machine's own Node only, and `bin/hangar serve`. The
 * bootstrap must fetch the pinned Node, install the dependencies and start the server.
 * (The README's second command, bin/test, is what CI itself runs on a clean clone.)
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const repo = process.cwd();
const clone = mkdtempSync(join(tmpdir(), 'hangar-clone-'));
let server: ChildProcess | null = null;

afterAll(() => {
  if (server && server.exitCode === null) server.kill('SIGKILL');
  rmSync(clone, { recursive: true, force: true });
});

/** The environment of a fresh shell: our pinned Node and its npm settings removed. */
function freshEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith('npm_') || key.startsWith('VITEST') || key === 'NODE_OPTIONS' || key === 'HANGAR_CHROMIUM') continue;
    env[key] = value;
  }
  env.PATH = (process.env.PATH ?? '').split(delimiter).filter((dir) => !dir.includes('.toolchain') && !dir.includes('node_modules')).join(delimiter);
  return env;
}

describe('a fresh clone', () => {
  it('starts with `bin/hangar serve` and nothing set up beforehand', async () => {
    execFileSync('git', ['clone', '--quiet', '--no-hardlinks', repo, clone]);
    expect(existsSync(join(clone, 'node_modules'))).toBe(false);

    server = spawn(join(clone, 'bin/hangar'), ['serve', '--host', '127.0.0.1', '--port', '0'], {
      cwd: clone,
      env: { ...freshEnv(), HANGAR_LOG_STDOUT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    server.stderr!.on('data', (chunk) => (stderr += chunk));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line after 240 s\nstdout:\n${stdout}\nstderr:\n${stderr}`)), 240_000);
      server!.stdout!.on('data', (chunk) => {
        stdout += chunk;
        const match = /^Hangar listening on (http:\/\/\S+)$/m.exec(stdout);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
      server!.on('exit', (code) => reject(new Error(`bin/hangar exited with ${code}\nstdout:\n${stdout}\nstderr:\n${stderr}`)));
    });

    const health = await fetch(`${url}/api/health`);
    expect(await health.json()).toEqual({ healthy: true });
    // the data directory is ./data by default, with the first admin's token in it
    expect(existsSync(join(clone, 'data', 'hangar.sqlite3'))).toBe(true);
    expect(existsSync(join(clone, 'data', 'initial-admin-token'))).toBe(true);
    const version = await (await fetch(`${url}/api/version`)).json();
    expect(version.vcs_ref).toBe(execFileSync('git', ['rev-parse', 'HEAD'], { cwd: clone, encoding: 'utf8' }).trim());

    server.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => server!.on('exit', resolve));
    expect(code).toBe(0);
  }, 300_000);
});
