/**
 * R17 through the real CLI: an empty data directory gets an `admin` user whose first token is
 * HANGAR_ADMIN_TOKEN or a random one written to <data>/initial-admin-token (mode 0600; only its path
 * is printed).
 */
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { api, LISTENING, runCli, startServe, tempDir, useCliCleanup, withDatabase } from './spawn.ts';

useCliCleanup();

const TOKEN_FILE = 'initial-admin-token';
const logOf = (data: string) => readFile(join(data, 'logs', 'hangar.log'), 'utf8');
const serveArgs = (data: string) => ['--host', '127.0.0.1', '--port', '0', '--data', data];

function countRows(data: string, table: string): number {
  return withDatabase(data, (sql) => (sql.prepare(`SELECT count(*) AS n FROM "${table}"`).get() as { n: number }).n);
}

describe('first start without HANGAR_ADMIN_TOKEN', () => {
  it('writes a working token to <data>/initial-admin-token with mode 0600 and prints only its path', async () => {
    const data = await tempDir();
    const server = await startServe(serveArgs(data), { env: { HANGAR_LOG_STDOUT: '1' } });
    const file = join(data, TOKEN_FILE);

    expect(existsSync(file)).toBe(true);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const token = (await readFile(file, 'utf8')).trim();
    expect(token.length).toBeGreaterThanOrEqual(16);
    expect(token).not.toMatch(/\s/);

    // the token works, however it is sent
    const me = await api(server.url, 'GET', '/api/users/me', { token });
    expect(me.status, me.text).toBe(200);
    expect(me.body.username).toBe('admin');
    expect(me.body.role).toBe('admin');
    const inQuery = await api(server.url, 'GET', `/api/users/me?token=${encodeURIComponent(token)}`);
    expect(inQuery.status, inQuery.text).toBe(200);
    expect(inQuery.body.username).toBe('admin');

    expect(server.proc.stdout).toContain(file);
    expect((await server.proc.stop()).code).toBe(0);

    // the value itself is nowhere in the output or the log
    expect(server.proc.stdout).not.toContain(token);
    expect(server.proc.stderr).not.toContain(token);
    const log = await logOf(data);
    expect(log).toContain('"msg":"request"'); // the requests above were logged...
    expect(log).not.toContain(token); // ...without the token
  });
});

describe('first start with HANGAR_ADMIN_TOKEN', () => {
  it('writes no file, and the given token authenticates as admin', async () => {
    const data = await tempDir();
    const given = 'hgr_given-admin-token-for-first-start';
    const server = await startServe(serveArgs(data), { env: { HANGAR_ADMIN_TOKEN: given, HANGAR_LOG_STDOUT: '1' } });
    expect(existsSync(join(data, TOKEN_FILE))).toBe(false);

    const me = await api(server.url, 'GET', '/api/users/me', { token: given });
    expect(me.status, me.text).toBe(200);
    expect(me.body.username).toBe('admin');
    expect(me.body.role).toBe('admin');
    expect(server.proc.stdout).toMatch(/HANGAR_ADMIN_TOKEN/);

    expect((await server.proc.stop()).code).toBe(0);
    expect(server.proc.stdout).not.toContain(given);
    expect(server.proc.stderr).not.toContain(given);
    expect(await logOf(data)).not.toContain(given);
    expect(existsSync(join(data, TOKEN_FILE))).toBe(false);
  });

  it('refuses a HANGAR_ADMIN_TOKEN shorter than 16 characters: exit code 2, a clear message, no admin', async () => {
    const data = await tempDir();
    const run = await runCli(['serve', ...serveArgs(data)], { env: { HANGAR_ADMIN_TOKEN: 'short-token-15c' } });
    expect(run.signal).toBeNull();
    expect(run.code).toBe(2); // a configuration error, like every other one
    expect(run.stderr).toMatch(/HANGAR_ADMIN_TOKEN/);
    expect(run.stderr).toMatch(/16/);
    expect(run.stdout).not.toMatch(LISTENING);
    expect(existsSync(join(data, TOKEN_FILE))).toBe(false);
    if (existsSync(join(data, 'hangar.sqlite3'))) expect(countRows(data, 'users')).toBe(0);
  });
});

describe('second start on the same data directory', () => {
  it('creates no second admin and leaves the token file alone', async () => {
    const data = await tempDir();
    const file = join(data, TOKEN_FILE);
    const first = await startServe(serveArgs(data));
    expect((await api(first.url, 'GET', '/api/health')).status).toBe(200);
    expect((await first.proc.stop()).code).toBe(0);
    const token = (await readFile(file, 'utf8')).trim();
    const before = await stat(file);
    const contentBefore = await readFile(file, 'utf8');

    const second = await startServe(serveArgs(data));
    expect(second.proc.stdout).not.toMatch(/Created user/);
    const users = await api(second.url, 'GET', '/api/users', { token });
    expect(users.status, users.text).toBe(200);
    expect((users.body as { username: string }[]).map((u) => u.username)).toEqual(['admin']);
    expect((await second.proc.stop()).code).toBe(0);

    expect(countRows(data, 'users')).toBe(1);
    expect(countRows(data, 'api_tokens')).toBe(1);
    const after = await stat(file);
    expect(await readFile(file, 'utf8')).toBe(contentBefore);
    expect(after.mtimeMs).toBe(before.mtimeMs);
    expect(after.mode & 0o777).toBe(0o600);
  });

  it('ignores HANGAR_ADMIN_TOKEN once the data directory has users', async () => {
    const data = await tempDir();
    const first = await startServe(serveArgs(data), { env: { HANGAR_ADMIN_TOKEN: 'hgr_first-admin-token-0123456789' } });
    expect((await api(first.url, 'GET', '/api/health')).status).toBe(200);
    expect((await first.proc.stop()).code).toBe(0);

    const second = await startServe(serveArgs(data), { env: { HANGAR_ADMIN_TOKEN: 'hgr_other-admin-token-0123456789' } });
    expect((await api(second.url, 'GET', '/api/users/me', { token: 'hgr_first-admin-token-0123456789' })).status).toBe(200);
    expect((await api(second.url, 'GET', '/api/users/me', { token: 'hgr_other-admin-token-0123456789' })).status).toBe(401);
    expect((await second.proc.stop()).code).toBe(0);
    expect(countRows(data, 'users')).toBe(1);
    expect(existsSync(join(data, TOKEN_FILE))).toBe(false);
  });
});

describe('first start through an account command', () => {
  it('`user list` on an empty data directory creates the admin and names the token file on stderr, never the token', async () => {
    const data = await tempDir();
    const run = await runCli(['user', 'list', '--data', data]);
    expect(run.code, run.stderr).toBe(0);
    const file = join(data, TOKEN_FILE);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const token = (await readFile(file, 'utf8')).trim();
    expect(run.stderr).toContain(file);
    expect(run.stdout).toMatch(/^\d+\s+admin\s+admin@localhost\s+admin\s*$/m);
    expect(run.stdout).not.toContain(token);
    expect(run.stderr).not.toContain(token);
  });
});
