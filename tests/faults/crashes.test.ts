/**
 * Power cuts (issue 7, faults): a real `hangar serve` is SIGKILLed while it works, and started again on
 * the same data directory. Each time the database opens, nothing half-written is visible (every row
 * has its whole file, every stored directory its row: consistency.ts) and the server serves.
 *
 * - while CI agents upload continuously and retention deletes as they go, killed at random moments;
 * - while retention removes thousands of releases (rows gone, files still being removed);
 * - while the database migrates from an older schema (one transaction: the kill rolls it back, the
 *   next start migrates again).
 *
 * A kill mid-upload at a known point (the temporary file) and the sweep of orphan directories are
 * covered one by one in tests/api/upload-faults.test.ts (c) and (d).
 */
import Database from 'better-sqlite3';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { createHash } from 'node:crypto';
import { cpSync, linkSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashToken } from '../../src-server/domain/secrets.ts';
import { DEFAULT_MIGRATIONS_FOLDER, openDatabase } from '../../src-server/storage/database.ts';
import { api, CliProcess, DATABASE_FILE, startServe, tempDir, useCliCleanup, withDatabase, type ServeProcess } from '../cli/spawn.ts';
import { fixture, fixturesMissing } from '../helpers/fixtures.ts';
import { sleep, uploadRaw } from '../helpers/multipart.ts';
import { expectConsistent, storedDirectories } from './consistency.ts';

useCliCleanup();

const ADMIN = 'hgr_crash-tests-admin-0123456789abcdef';
const SMALL_APK = fixture('android', 'contactmanager-1.0-vc1-minsdk5-v1signed.apk');
const BIG_APK = fixture('android', 'appinfodemo-2.1.0-vc10-r8-v2signed.apk');

const serveEnv = { HANGAR_ADMIN_TOKEN: ADMIN, HANGAR_LOG_STDOUT: '0' };
const serveArgs = (data: string) => ['--host', '127.0.0.1', '--port', '0', '--https-port', 'off', '--data', data];
const serveOn = (data: string) => startServe(serveArgs(data), { env: serveEnv });

async function upload(server: ServeProcess, apk: Buffer, channelKey?: string) {
  const parts = [...(channelKey ? [{ name: 'channel_key', value: channelKey }] : []), { name: 'file', filename: 'app.apk', data: apk }];
  return uploadRaw(server.url, parts, { bearer: ADMIN });
}

/** Starts the server again after a kill, checks the data directory is whole and the server serves. */
async function restartAndCheck(data: string): Promise<{ server: ServeProcess; releases: number }> {
  const server = await serveOn(data);
  const { releases } = await expectConsistent(data);
  const health = await api(server.url, 'GET', '/api/health');
  expect(health.status).toBe(200);
  return { server, releases };
}

async function channelKeyOf(server: ServeProcess, channelId: number): Promise<string> {
  const res = await api(server.url, 'GET', `/api/channels/${channelId}/key`, { token: ADMIN });
  expect(res.status, res.text).toBe(200);
  return res.body.key as string;
}

function count(data: string, table: string): number {
  return withDatabase(data, (sql) => (sql.prepare(`SELECT count(*) AS n FROM "${table}"`).get() as { n: number }).n);
}

describe.skipIf(fixturesMissing !== null)('SIGKILL, then restart', () => {
  it('at random moments while three CI agents upload continuously, with retention on: whole after every restart', { timeout: 120_000 }, async () => {
    const data = await tempDir('hangar-crash-uploads-');
    const apks = [readFileSync(SMALL_APK), readFileSync(BIG_APK)];
    let server = await serveOn(data);
    const first = await upload(server, apks[0]!);
    expect(first.status, first.text).toBe(201);
    const channelKey = await channelKeyOf(server, first.body.channel.id);
    const scheme = await api(server.url, 'PATCH', `/api/schemes/${first.body.scheme.id}`, { token: ADMIN, json: { retained_builds: 3 } });
    expect(scheme.status, scheme.text).toBe(200);

    let uploaded = 0;
    for (const killAfterMs of [700, 1300, 2100, 450]) {
      let running = true;
      const agent = async (n: number) => {
        while (running) {
          const res = await upload(server, apks[n % 2]!, channelKey).catch(() => null);
          if (res?.status === 201) uploaded += 1;
        }
      };
      const agents = [0, 1, 2].map(agent);
      await sleep(killAfterMs);
      expect((await server.proc.stop('SIGKILL')).signal).toBe('SIGKILL');
      running = false;
      await Promise.all(agents);
      const restarted = await restartAndCheck(data);
      server = restarted.server;
      expect(restarted.releases, 'retention keeps at most 3 (a kill may leave one more before its retention ran)').toBeLessThanOrEqual(4);
    }
    expect(uploaded, 'uploads went through between the kills').toBeGreaterThan(4);
    const latest = await upload(server, apks[0]!, channelKey);
    expect(latest.status, latest.text).toBe(201);
    await server.proc.stop('SIGTERM');
    await expectConsistent(data);
  });

  it('while retention removes 3,000 releases: the queued deletions finish at the next start', { timeout: 120_000 }, async () => {
    const data = await tempDir('hangar-crash-retention-');
    const apk = readFileSync(SMALL_APK);
    let server = await serveOn(data);
    const first = await upload(server, apk);
    expect(first.status, first.text).toBe(201);
    const channelKey = await channelKeyOf(server, first.body.channel.id);
    await server.proc.stop('SIGTERM');
    const doomed = 3000;
    cloneRelease(data, first.body.id, doomed);
    expect(await expectConsistent(data)).toEqual({ releases: doomed + 1 });

    server = await serveOn(data);
    const scheme = await api(server.url, 'PATCH', `/api/schemes/${first.body.scheme.id}`, { token: ADMIN, json: { retained_builds: 1 } });
    expect(scheme.status, scheme.text).toBe(200);
    // the next upload's retention removes every release but it; the kill lands while files go
    const sent = upload(server, apk, channelKey).catch(() => null);
    const sql = new Database(join(data, DATABASE_FILE), { readonly: true });
    let queued = 0;
    try {
      const deadline = Date.now() + 30_000;
      while (queued === 0 && Date.now() < deadline) {
        queued = (sql.prepare('SELECT count(*) AS n FROM file_deletions').get() as { n: number }).n;
        if (queued === 0) await sleep(2);
      }
    } finally {
      sql.close();
    }
    expect(queued, 'retention committed and was removing files').toBeGreaterThan(0);
    await server.proc.stop('SIGKILL');
    await sent;
    const left = count(data, 'file_deletions');
    expect(left, 'the kill interrupted the removal').toBeGreaterThan(0);
    expect(count(data, 'releases'), 'the rows were gone at once').toBe(1);
    expect((await storedDirectories(data)).length, 'some files were still there').toBeGreaterThan(2);

    const restarted = await restartAndCheck(data);
    expect(restarted.releases).toBe(1);
    expect(await storedDirectories(data)).toHaveLength(2); // the channel and its one release
    const versions = await api(restarted.server.url, 'GET', `/api/apps/versions?channel_key=${encodeURIComponent(channelKey)}`, { token: ADMIN });
    expect(versions.status, versions.text).toBe(200);
    expect(versions.body.releases.map((r: { version: number }) => r.version)).toEqual([doomed + 2]);
    await restarted.server.proc.stop('SIGTERM');
  });

  it('while the database migrates from an older schema: the migration rolls back, the next start completes it, the data is intact', { timeout: 120_000 }, async () => {
    const data = await tempDir('hangar-crash-migration-');
    const older = await olderMigrations(2); // 0000 and 0001: debug_files before 0002 indexed it
    fillAtOlderLevel(data, older, 300_000);
    const before = oldRows(data);
    const applied = () => count(data, '__drizzle_migrations');
    expect(applied()).toBe(2);

    // Before it listens, the server writes nothing but the migration: the write lock held then is it.
    const starting = new CliProcess(['serve', ...serveArgs(data)], { env: serveEnv });
    expect(await waitForWriteLock(join(data, DATABASE_FILE), starting), `the server took the write lock to migrate\n${starting.describe()}`).toBe(true);
    expect((await starting.stop('SIGKILL')).signal).toBe('SIGKILL');
    expect(starting.stdout, 'killed before it listened').not.toMatch(/Hangar listening/);
    expect(applied(), 'the kill rolled the migration back: still at the older schema').toBe(2);
    expect(oldRows(data)).toEqual(before);

    const restarted = await serveOn(data);
    expect(applied(), 'every migration applied').toBe(readMigrationFiles({ migrationsFolder: DEFAULT_MIGRATIONS_FOLDER }).length);
    expect(oldRows(data), 'every row as it was').toEqual(before);
    withDatabase(data, (sql) => {
      expect(sql.pragma('integrity_check', { simple: true })).toBe('ok');
      const indexes = (sql.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'debug_files'").all() as { name: string }[]).map((r) => r.name);
      expect(indexes).toContain('debug_files_channel_version_keys_idx');
    });
    const apps = await api(restarted.url, 'GET', '/api/apps', { token: ADMIN });
    expect(apps.status, apps.text).toBe(200);
    expect(JSON.stringify(apps.body)).toContain('Migrated App');
    await restarted.proc.stop('SIGTERM');
  });
});

/**
 * Copies release `id` (row and file, the file hard-linked) `times` times into its channel, as if that
 * many builds had been uploaded. Run while the server is stopped.
 */
function cloneRelease(data: string, id: number, times: number): void {
  const sql = new Database(join(data, DATABASE_FILE));
  try {
    const row = sql.prepare('SELECT * FROM releases WHERE id = ?').get(id) as Record<string, unknown> & { channel_id: number; file_path: string };
    const columns = Object.keys(row).filter((c) => c !== 'id');
    const insert = sql.prepare(`INSERT INTO releases (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`);
    const setPath = sql.prepare('UPDATE releases SET file_path = ?, icon_path = NULL WHERE id = ?');
    const original = join(data, row.file_path);
    sql.transaction(() => {
      for (let i = 1; i <= times; i += 1) {
        const copy = Number(insert.run({ ...row, version: Number(row.version) + i }).lastInsertRowid);
        const path = row.file_path.replace(`/releases/${id}/`, `/releases/${copy}/`);
        mkdirSync(join(data, path, '..'), { recursive: true });
        linkSync(original, join(data, path));
        setPath.run(path, copy);
      }
      sql.prepare('UPDATE channels SET next_release_version = ? WHERE id = ?').run(Number(row.version) + times + 1, row.channel_id);
    })();
  } finally {
    sql.close();
  }
}

/** A copy of the migrations folder that knows only the first `level` migrations (its journal cut short). */
async function olderMigrations(level: number): Promise<string> {
  const folder = join(await tempDir('hangar-migrations-'), 'migrations');
  cpSync(DEFAULT_MIGRATIONS_FOLDER, folder, { recursive: true });
  const journalFile = join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: unknown[] };
  writeFileSync(journalFile, JSON.stringify({ ...journal, entries: journal.entries.slice(0, level) }));
  return folder;
}

/**
 * A data directory as an older Hangar left it: its database migrated by `migrationsFolder` only, an
 * admin with the token ADMIN (so that no first start writes), one app with `debugFiles` debug-file
 * rows (enough that indexing them takes a while), all pointing at one real file so that the start-up
 * sweep finds every file.
 */
function fillAtOlderLevel(data: string, migrationsFolder: string, debugFiles: number): void {
  mkdirSync(join(data, 'files', 'channels', '1', 'debug_files', '1'), { recursive: true, mode: 0o700 });
  writeFileSync(join(data, 'files', 'channels', '1', 'debug_files', '1', 'symbols.zip'), 'symbols');
  const { sqlite, close } = openDatabase(join(data, DATABASE_FILE), { migrationsFolder });
  try {
    sqlite.exec(`
      INSERT INTO users (id, username, email, username_key, email_key, role, created_at, updated_at) VALUES (1, 'admin', 'admin@localhost', 'admin', 'admin@localhost', 'admin', 0, 0);
      INSERT INTO api_tokens (user_id, name, token_hash, prefix, created_at) VALUES (1, 'ci', '${hashToken(ADMIN)}', 'hgr_', 0);
      INSERT INTO apps (id, name, created_at, updated_at) VALUES (1, 'Migrated App', 0, 0);
      INSERT INTO schemes (id, app_id, name, created_at, updated_at) VALUES (1, 1, 'Release', 0, 0);
      INSERT INTO channels (id, scheme_id, name, slug, key, device_type, created_at, updated_at) VALUES (1, 1, 'Android', 'migrated', 'migrated-key', 'android', 0, 0);
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${debugFiles})
      INSERT INTO debug_files (channel_id, device_type, release_version, build_version, file_path, file_name, size, sha256, created_at, updated_at)
        SELECT 1, 'android', '1.' || (i % 100), CAST(i AS TEXT), 'files/channels/1/debug_files/1/symbols.zip', 'symbols.zip', 7, printf('%064d', i), i, i FROM n;
    `);
  } finally {
    close();
  }
}

/** A hash of every row the older schema had (the columns it knew), to compare across the migration. */
function oldRows(data: string): string {
  return withDatabase(data, (sql) => {
    const hash = createHash('sha256');
    for (const query of [
      'SELECT * FROM apps ORDER BY id',
      'SELECT * FROM schemes ORDER BY id',
      'SELECT * FROM channels ORDER BY id',
      'SELECT id, channel_id, device_type, release_version, build_version, file_path, file_name, size, sha256, created_at, updated_at FROM debug_files ORDER BY id',
    ]) {
      for (const row of sql.prepare(query).raw().iterate()) hash.update(JSON.stringify(row));
    }
    return hash.digest('hex');
  });
}

/**
 * Waits until another connection holds the database's write lock (true), or `proc` listens, exits,
 * or 30 s pass (false). Looks by trying to take the lock without waiting, and letting go at once.
 */
async function waitForWriteLock(file: string, proc: CliProcess): Promise<boolean> {
  const sql = new Database(file, { timeout: 0 });
  try {
    const deadline = Date.now() + 30_000;
    while (!proc.exit && !proc.stdout.includes('Hangar listening') && Date.now() < deadline) {
      try {
        sql.exec('BEGIN IMMEDIATE');
        sql.exec('ROLLBACK');
      } catch (error) {
        if ((error as { code?: string }).code === 'SQLITE_BUSY') return true;
        throw error;
      }
      await sleep(1);
    }
    return false;
  } finally {
    sql.close();
  }
}
