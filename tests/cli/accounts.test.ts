/**
 * `hangar user create|list|password`, `hangar token create`, `hangar help` and unknown commands, run as real
 * processes against a data directory (and, for tokens, against a server on the same directory).
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src-server/domain/secrets.ts';
import { fingerprint } from '../helpers/db.ts';
import { api, runCli, startServe, tempDir, useCliCleanup, withDatabase } from './spawn.ts';
import { join } from 'node:path';

useCliCleanup();

const ADMIN = 'hgr_cli-accounts-admin-token-0123456789';
const env = { HANGAR_ADMIN_TOKEN: ADMIN };

interface UserRow {
  id: number;
  username: string;
  email: string;
  role: string;
  password_hash: string | null;
}

function userRow(data: string, username: string): UserRow | undefined {
  return withDatabase(data, (sql) => sql.prepare('SELECT * FROM users WHERE username = ?').get(username) as UserRow | undefined);
}

function snapshot(data: string): string {
  return withDatabase(data, fingerprint);
}

async function createAlice(data: string, extra: string[] = [], stdin?: string) {
  return runCli(['user', 'create', '--data', data, '--username', 'alice', '--email', 'alice@lab.test', '--role', 'developer', ...extra], {
    env,
    ...(stdin !== undefined && { stdin }),
  });
}

describe('hangar user create', () => {
  it('creates a user without a password', async () => {
    const data = await tempDir();
    const run = await createAlice(data);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Created user alice \(id \d+, developer\)\.\n$/);
    const row = userRow(data, 'alice');
    expect(row).toMatchObject({ username: 'alice', email: 'alice@lab.test', role: 'developer', password_hash: null });
  });

  it('reads the password from stdin with --password-stdin (the final newline is not part of it)', async () => {
    const data = await tempDir();
    const password = 'Correct-Horse-Battery-9';
    const run = await createAlice(data, ['--password-stdin'], `${password}\n`);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Created user alice \(id \d+, developer\)\.\n$/);
    expect(run.stdout + run.stderr).not.toContain(password);
    const row = userRow(data, 'alice');
    expect(row?.role).toBe('developer');
    expect(row?.password_hash).toBeTruthy();
    expect(row?.password_hash).not.toContain(password);
    expect(await verifyPassword(password, row!.password_hash!)).toBe(true);
    expect(await verifyPassword(`${password}\n`, row!.password_hash!)).toBe(false);
  });

  it('refuses a too short password from stdin with exit code 2 and creates nobody', async () => {
    const data = await tempDir();
    const run = await createAlice(data, ['--password-stdin'], 'short\n');
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/password/i);
    expect(run.stdout).toBe('');
    if (existsSync(join(data, 'hangar.sqlite3'))) expect(userRow(data, 'alice')).toBeUndefined();
  });

  it('refuses bad calls with exit code 2, a message on stderr, and nothing created', async () => {
    const data = await tempDir();
    expect((await createAlice(data)).code).toBe(0);
    const before = snapshot(data);

    const cases: { args: string[]; stderr: RegExp }[] = [
      { args: ['--username', 'bob', '--role', 'developer'], stderr: /--email/ },
      { args: ['--username', 'bob', '--email', 'not-an-email'], stderr: /--email/ },
      { args: ['--email', 'bob@lab.test'], stderr: /--username/ },
      { args: ['--username', 'bob', '--email', 'bob@lab.test', '--role', 'boss'], stderr: /--role/ },
      { args: ['--username', 'alice', '--email', 'alice2@lab.test', '--role', 'developer'], stderr: /username/i },
      { args: ['--username', 'ALICE', '--email', 'alice3@lab.test'], stderr: /username/i },
      { args: ['--username', 'bob', '--email', 'alice@lab.test'], stderr: /email/i },
    ];
    for (const { args, stderr } of cases) {
      const run = await runCli(['user', 'create', '--data', data, ...args], { env });
      const what = `user create ${args.join(' ')}: ${run.stderr}`;
      expect(run.code, what).toBe(2);
      expect(run.stderr, what).toMatch(/^hangar: /);
      expect(run.stderr, what).toMatch(stderr);
      expect(run.stdout, what).toBe('');
      expect(snapshot(data), what).toBe(before);
    }
  });
});

describe('hangar user list', () => {
  it('prints a table with the admin and the users created', async () => {
    const data = await tempDir();
    expect((await createAlice(data)).code).toBe(0);
    const run = await runCli(['user', 'list', '--data', data], { env });
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+USERNAME\s+EMAIL\s+ROLE\s+STATE$/);
    expect(lines).toHaveLength(3);
    expect(run.stdout).toMatch(/^\d+\s+admin\s+admin@localhost\s+admin\s*$/m);
    expect(run.stdout).toMatch(/^\d+\s+alice\s+alice@lab\.test\s+developer\s*$/m);
    // the columns line up
    const col = lines[0]!.indexOf('USERNAME');
    for (const line of lines.slice(1)) expect(line.slice(col)).toMatch(/^(admin|alice) /);
    expect(run.stdout).not.toContain(ADMIN);
  });
});

describe('hangar user password', () => {
  it("sets the first admin's console password from stdin, and the console sign-in then works", async () => {
    const data = await tempDir();
    const password = 'Lab-Console-Passphrase-7';
    const run = await runCli(['user', 'password', '--data', data, '--user', 'admin'], { env, stdin: `${password}\n` });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('Password of admin set; their console sessions were ended.\n');
    expect(run.stdout + run.stderr).not.toContain(password);
    expect(await verifyPassword(password, userRow(data, 'admin')!.password_hash!)).toBe(true);

    const server = await startServe(['--host', '127.0.0.1', '--port', '0', '--data', data], { env });
    const signIn = await fetch(`${server.url}/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ login: 'admin', password }) });
    expect(signIn.status).toBe(200);
    expect((await server.proc.stop()).code).toBe(0);
  });

  it('refuses a short password or an unknown user (exit 2), changing nothing', async () => {
    const data = await tempDir();
    expect((await createAlice(data)).code).toBe(0);
    const before = snapshot(data);
    for (const [args, stdin] of [[['--user', 'alice'], 'short\n'], [['--user', 'nobody'], 'long enough passphrase\n'], [[], 'long enough passphrase\n']] as const) {
      const run = await runCli(['user', 'password', '--data', data, ...args], { env, stdin });
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(2);
      expect(run.stderr).toMatch(/^hangar: \S/);
    }
    expect(snapshot(data)).toBe(before);
  });
});

describe('hangar token create', () => {
  it('prints only the token, which authenticates as the user against a server on the same data directory', async () => {
    const data = await tempDir();
    expect((await createAlice(data)).code).toBe(0);

    const run = await runCli(['token', 'create', '--data', data, '--user', 'alice', '--name', 'ci'], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^\S{16,}\n$/);
    const token = run.stdout.trim();
    expect(run.stderr).not.toContain(token);
    expect(run.stderr).toMatch(/alice/);

    const server = await startServe(['--host', '127.0.0.1', '--port', '0', '--data', data], { env });
    const me = await api(server.url, 'GET', '/api/users/me', { token });
    expect(me.status, me.text).toBe(200);
    expect(me.body.username).toBe('alice');

    // the CLI and the running server share the SQLite file
    const live = await runCli(['token', 'create', '--data', data, '--user', 'alice', '--name', 'while serving'], { env });
    expect(live.code, live.stderr).toBe(0);
    const second = live.stdout.trim();
    expect(live.stdout).toBe(`${second}\n`);
    expect(second).not.toBe(token);
    const me2 = await api(server.url, 'GET', '/api/users/me', { token: second });
    expect(me2.status, me2.text).toBe(200);
    expect(me2.body.username).toBe('alice');

    // the server lists them under their names
    const tokens = await api(server.url, 'GET', '/api/users/me/tokens', { token });
    expect(tokens.status, tokens.text).toBe(200);
    expect((tokens.body as { name: string }[]).map((t) => t.name).sort()).toEqual(['ci', 'while serving']);
    expect((await server.proc.stop()).code).toBe(0);
  });

  it('sets an expiry with --expires-in-days', async () => {
    const data = await tempDir();
    expect((await createAlice(data)).code).toBe(0);
    const started = Date.now();
    const run = await runCli(['token', 'create', '--data', data, '--user', 'alice', '--name', 'month', '--expires-in-days', '30'], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^\S+\n$/);
    const row = withDatabase(data, (sql) => sql.prepare("SELECT expires_at FROM api_tokens WHERE name = 'month'").get() as { expires_at: number });
    expect(row.expires_at).toBeGreaterThanOrEqual(started + 30 * 86_400_000);
    expect(row.expires_at).toBeLessThanOrEqual(Date.now() + 30 * 86_400_000);
  });

  it('refuses a bad --expires-in-days, an unknown user or a missing --user with exit code 2, creating no token', async () => {
    const data = await tempDir();
    expect((await createAlice(data)).code).toBe(0);
    const before = snapshot(data);
    const cases: { args: string[]; stderr: RegExp }[] = [
      { args: ['--user', 'alice', '--expires-in-days', 'abc'], stderr: /--expires-in-days/ },
      { args: ['--user', 'alice', '--expires-in-days', '0'], stderr: /--expires-in-days/ },
      { args: ['--user', 'alice', '--expires-in-days=-3'], stderr: /--expires-in-days/ },
      { args: ['--user', 'alice', '--expires-in-days', '1.5'], stderr: /--expires-in-days/ },
      { args: ['--user', 'alice', '--expires-in-days', '100000'], stderr: /--expires-in-days/ },
      { args: ['--user', 'nobody', '--name', 'ci'], stderr: /nobody/ },
      { args: ['--name', 'ci'], stderr: /--user/ },
    ];
    for (const { args, stderr } of cases) {
      const run = await runCli(['token', 'create', '--data', data, ...args], { env });
      const what = `token create ${args.join(' ')}: ${run.stderr}`;
      expect(run.code, what).toBe(2);
      expect(run.stderr, what).toMatch(stderr);
      expect(run.stdout, what).toBe('');
      expect(snapshot(data), what).toBe(before);
    }
  });
});

describe('hangar help and unknown commands', () => {
  it('`help`, `--help` and `-h` print the usage and exit 0', async () => {
    const cwd = await tempDir();
    for (const args of [['help'], ['--help'], ['-h'], ['serve', '--help']]) {
      const run = await runCli(args, { cwd });
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
      expect(run.stdout).toMatch(/^Usage: hangar <command>/);
      for (const command of ['serve', 'user create', 'user list', 'token create', 'help']) expect(run.stdout).toContain(command);
      expect(run.stderr).toBe('');
    }
    expect(existsSync(join(cwd, 'data'))).toBe(false);
  });

  it('exits with code 2 for an unknown command, a missing subcommand, an unknown option, or no command', async () => {
    const cwd = await tempDir();
    for (const args of [['frobnicate'], ['user'], ['user', 'delete'], ['token'], ['serve', '--bogus'], []]) {
      const run = await runCli(args, { cwd });
      const what = `hangar ${args.join(' ')}: ${run.stderr}`;
      expect(run.code, what).toBe(2);
      if (args.length > 0) {
        expect(run.stderr, what).toMatch(/^hangar: .+\nRun "hangar help" for usage\.\n$/);
      } else {
        expect(run.stdout).toMatch(/^Usage: hangar/);
      }
    }
    const unknown = await runCli(['frobnicate'], { cwd });
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
    // nothing was set up for a command that does not exist
    expect(existsSync(join(cwd, 'data'))).toBe(false);
  });
});
