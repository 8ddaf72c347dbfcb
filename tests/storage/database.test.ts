import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DatabaseTooNewError, DEFAULT_MIGRATIONS_FOLDER, migrate, openDatabase } from '../../src-server/storage/database.ts';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hangar-db-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('openDatabase', () => {
  it('creates the schema with WAL and foreign keys on', () => {
    const file = join(tempDir(), 'h.sqlite3');
    const { sqlite, close } = openDatabase(file);
    expect(sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
    const tables = (sqlite.prepare("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
    expect(tables).toEqual(expect.arrayContaining(['apps', 'schemes', 'channels', 'releases', 'debug_files', 'users', 'api_tokens', 'collaborators', 'devices', 'file_deletions']));
    close();
  });

  it('is safe to re-run: a second start applies nothing and keeps the data', () => {
    const file = join(tempDir(), 'h.sqlite3');
    const first = openDatabase(file);
    first.sqlite.prepare("INSERT INTO apps (name, created_at, updated_at) VALUES ('kept', 0, 0)").run();
    const applied = (first.sqlite.prepare('SELECT count(*) AS n FROM __drizzle_migrations').get() as { n: number }).n;
    first.close();
    const second = openDatabase(file);
    expect(migrate(second.sqlite, DEFAULT_MIGRATIONS_FOLDER)).toBe(0);
    expect((second.sqlite.prepare('SELECT count(*) AS n FROM __drizzle_migrations').get() as { n: number }).n).toBe(applied);
    expect((second.sqlite.prepare('SELECT name FROM apps').get() as { name: string }).name).toBe('kept');
    second.close();
  });

  it('runs every transaction as BEGIN IMMEDIATE: another process cannot write between its read and its write', () => {
    const file = join(tempDir(), 'h.sqlite3');
    const { db, sqlite, close } = openDatabase(file);
    const other = new Database(file);
    other.pragma('busy_timeout = 0');
    try {
      db.transaction(() => {
        // the transaction has only read so far, yet it holds the write lock already
        sqlite.prepare('SELECT count(*) FROM apps').get();
        expect(() => other.prepare("INSERT INTO apps (name, created_at, updated_at) VALUES ('between', 0, 0)").run()).toThrow(/database is locked/);
        sqlite.prepare("INSERT INTO apps (name, created_at, updated_at) VALUES ('mine', 0, 0)").run();
      });
      // (a deferred one would have let that write in, then failed its own with SQLITE_BUSY_SNAPSHOT)
      other.prepare("INSERT INTO apps (name, created_at, updated_at) VALUES ('after', 0, 0)").run();
      expect((sqlite.prepare('SELECT name FROM apps ORDER BY id').all() as { name: string }[]).map((r) => r.name)).toEqual(['mine', 'after']);
    } finally {
      other.close();
      close();
    }
  });

  it('lets two connections race to migrate: one applies, the other finds nothing to do', () => {
    const file = join(tempDir(), 'h.sqlite3');
    const a = new Database(file);
    const b = new Database(file);
    a.pragma('busy_timeout = 5000');
    b.pragma('busy_timeout = 5000');
    const results = [migrate(a, DEFAULT_MIGRATIONS_FOLDER), migrate(b, DEFAULT_MIGRATIONS_FOLDER)];
    expect(results.sort()).toEqual([0, readdirSync(DEFAULT_MIGRATIONS_FOLDER).filter((f) => f.endsWith('.sql')).length]);
    a.close();
    b.close();
  });

  it('refuses a database that a newer Hangar migrated, and leaves it untouched', () => {
    const file = join(tempDir(), 'h.sqlite3');
    openDatabase(file).close();
    const raw = new Database(file);
    raw.prepare('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)').run('future', Date.UTC(2099, 0, 1));
    raw.close();
    expect(() => openDatabase(file)).toThrow(DatabaseTooNewError);
    expect(() => openDatabase(file)).toThrow(/newer Hangar/);
    const check = new Database(file, { readonly: true });
    expect((check.prepare("SELECT count(*) AS n FROM __drizzle_migrations WHERE hash = 'future'").get() as { n: number }).n).toBe(1);
    check.close();
  });

  it('answers the hot lookups from indexes', () => {
    const { sqlite, close } = openDatabase(join(tempDir(), 'h.sqlite3'));
    const plan = (query: string) => (sqlite.prepare(`EXPLAIN QUERY PLAN ${query}`).all() as { detail: string }[]).map((r) => r.detail).join(' | ');
    expect(plan("SELECT * FROM channels WHERE key = 'k'")).toMatch(/USING INDEX channels_key_unique/);
    expect(plan("SELECT * FROM api_tokens WHERE token_hash = 'h'")).toMatch(/USING INDEX api_tokens_token_hash_unique/);
    expect(plan('SELECT * FROM releases WHERE channel_id = 1 ORDER BY version DESC LIMIT 25')).toMatch(/USING INDEX releases_channel_version_unique/);
    expect(plan("SELECT * FROM releases WHERE channel_id = 1 AND release_version = '1.0' AND build_version = '1'")).toMatch(/USING INDEX releases_channel_versions_idx/);
    expect(plan("SELECT * FROM users WHERE email_key = 'a@b'")).toMatch(/USING INDEX users_email_key_unique/);
    expect(plan("SELECT * FROM users WHERE username_key = 'a'")).toMatch(/USING INDEX users_username_key_unique/);
    expect(plan("SELECT * FROM channels WHERE lower(slug) = lower('AbC')")).toMatch(/USING INDEX channels_slug_unique/);
    expect(plan('SELECT * FROM collaborators WHERE app_id = 1 AND user_id = 2')).toMatch(/USING INDEX collaborators_app_user_unique/);
    expect(plan('SELECT * FROM schemes WHERE app_id = 1')).toMatch(/USING INDEX schemes_app_id_idx/);
    expect(plan('SELECT * FROM channels WHERE scheme_id = 1')).toMatch(/USING INDEX channels_scheme_id_idx/);
    expect(plan('SELECT * FROM apps ORDER BY created_at DESC LIMIT 25')).toMatch(/apps_created_at_idx/);
    close();
  });

  it('enforces foreign keys: a channel of an unknown scheme is refused', () => {
    const { sqlite, close } = openDatabase(join(tempDir(), 'h.sqlite3'));
    expect(() =>
      sqlite.prepare("INSERT INTO channels (scheme_id, name, slug, key, device_type, created_at, updated_at) VALUES (42, 'c', 's', 'k', 'ios', 0, 0)").run(),
    ).toThrow(/FOREIGN KEY/);
    close();
  });
});

describe('schema and migrations', () => {
  it('agree: drizzle-kit finds nothing to generate from the schema', () => {
    const dir = tempDir();
    const out = join(dir, 'migrations');
    cpSync(DEFAULT_MIGRATIONS_FOLDER, out, { recursive: true });
    const config = join(dir, 'drizzle.config.ts');
    writeFileSync(
      config,
      `export default { dialect: 'sqlite', schema: ${JSON.stringify(join(process.cwd(), 'src-server/storage/schema.ts'))}, out: './migrations' };\n`,
    );
    const run = spawnSync(join(process.cwd(), 'node_modules/.bin/drizzle-kit'), ['generate', '--config', config], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    // drizzle-kit exits 0 on some errors: insist on its verdict
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('No schema changes');
    expect(readdirSync(out).sort()).toEqual(readdirSync(DEFAULT_MIGRATIONS_FOLDER).sort());
  });
});
