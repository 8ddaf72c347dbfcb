/**
 * `hangar backup` and `hangar restore` as real processes against a real server: a backup taken while
 * uploads (and the deletions retention makes) go on restores to exactly its snapshot, rows and files;
 * damage, an interrupted backup, an occupied data directory and a newer schema are refused, and a
 * refused restore leaves the data directory as it was.
 */
import Database from 'better-sqlite3';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { build } from 'plist';
import { describe, expect, it } from 'vitest';
import { multipartBody } from '../helpers/builds.ts';
import { fixture, fixturesMissing } from '../helpers/fixtures.ts';
import { makeZip } from '../helpers/make-zip.ts';
import { api, CliProcess, ROOT, runCli, startServe, tempDir, useCliCleanup, withDatabase, type ServeProcess } from './spawn.ts';

useCliCleanup();

const ADMIN = 'hgr_cli-backup-admin-token-0123456789';
const MANIFEST = 'hangar-backup.json';
const LONG_MS = 120_000;

function serveOn(data: string): Promise<ServeProcess> {
  return startServe(['--host', '127.0.0.1', '--port', '0', '--https-port', '0', '--data', data], { env: { HANGAR_ADMIN_TOKEN: ADMIN } });
}

/** A real (minimal) .ipa of about `size` bytes: random, stored, so that copies take their time. */
function ipa(buildVersion: number, size: number, bundleId = 'dev.hangar.backup'): Buffer {
  const info = build({ CFBundleIdentifier: bundleId, CFBundleShortVersionString: '1.0', CFBundleVersion: String(buildVersion), CFBundleName: 'Backup', MinimumOSVersion: '15.0' });
  return makeZip({ 'Payload/Backup.app/Info.plist': info, 'Payload/Backup.app/payload.bin': randomBytes(size) }, { store: true });
}

async function post(server: ServeProcess, path: string, file: { name: string; data: Buffer }, fields: Record<string, string> = {}): Promise<any> {
  const { body, contentType } = multipartBody(fields, file);
  const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': contentType }, body: new Uint8Array(body) });
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return JSON.parse(text);
}

function channelOf(data: string, releaseId: number): { id: number; key: string; schemeId: number } {
  return withDatabase(data, (sql) => sql.prepare('SELECT c.id, c.key, c.scheme_id AS schemeId FROM channels c JOIN releases r ON r.channel_id = c.id WHERE r.id = ?').get(releaseId) as never);
}

/** Every row of every table, in rowid order. */
function allRows(dir: string): Record<string, unknown[]> {
  return withDatabase(dir, (sql) => {
    const tables = sql.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[];
    return Object.fromEntries(tables.map((t) => [t, sql.prepare(`SELECT * FROM "${t}" ORDER BY rowid`).all()]));
  });
}

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

function filesUnder(root: string, dir = root): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(root, join(dir, e.name)) : [relative(root, join(dir, e.name))]));
}

/** Folders beside `path` that a backup or restore works in before renaming. */
function leftovers(path: string): string[] {
  const prefix = `${path.split('/').pop()}.`;
  return readdirSync(dirname(path)).filter((name) => name.startsWith(prefix) && /\.(partial|restoring)-/.test(name));
}

function readManifest(dir: string): any {
  return JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8'));
}

interface Upload {
  channel: 'kept' | 'retained';
  started: number;
  finished: number;
  id: number;
}

describe.skipIf(fixturesMissing !== null)('hangar backup while uploads continue, then hangar restore', () => {
  it('restores exactly the snapshot: every row of every table, every file hash; later uploads absent', { timeout: LONG_MS }, async () => {
    const data = join(await tempDir(), 'data');
    const server = await serveOn(data);

    // real fixtures: an Android build and an iOS one with icons, and the iOS channel's debug symbols
    const apk = await post(server, '/api/apps/upload', { name: 'app.apk', data: await readFile(fixture('android', 'appinfodemo-2.1.0-vc10-r8-v2signed.apk')) });
    const ios = await post(server, '/api/apps/upload', { name: 'app.ipa', data: await readFile(fixture('ios', 'bundle-1.0-b1-ipad-cgbi-icons.ipa')) });
    await post(server, '/api/debug_files/upload', { name: 'symbols.zip', data: await readFile(fixture('symbols', 'apple', 'dsym-ios-single-arm64.zip')) }, { channel_key: channelOf(data, ios.id).key });

    // two channels the loop uploads to: one keeps everything, one keeps its 2 newest (so deletions go on too)
    const first = await post(server, '/api/apps/upload', { name: 'kept.ipa', data: ipa(0, 1 << 20) });
    const retainedFirst = await post(server, '/api/apps/upload', { name: 'retained.ipa', data: ipa(0, 1 << 20, 'dev.hangar.retained') });
    const kept = channelOf(data, first.id);
    const retained = channelOf(data, retainedFirst.id);
    expect((await api(server.url, 'PATCH', `/api/schemes/${retained.schemeId}`, { token: ADMIN, json: { retained_builds: 2 } })).status).toBe(200);
    for (let i = 1; i <= 6; i++) await post(server, '/api/apps/upload', { name: 'kept.ipa', data: ipa(i, 4 << 20) }, { channel_key: kept.key });

    const uploads: Upload[] = [];
    let stop = false;
    const loop = async (channel: Upload['channel'], key: string) => {
      for (let n = 100; !stop; n++) {
        const started = Date.now();
        const release = await post(server, '/api/apps/upload', { name: `${channel}.ipa`, data: ipa(n, 2 << 20) }, { channel_key: key });
        uploads.push({ channel, started, finished: Date.now(), id: release.id });
      }
    };
    const loops = Promise.all([loop('kept', kept.key), loop('retained', retained.key)]);
    while (uploads.length < 4) await sleep(20);

    const backupDir = join(dirname(data), 'backup');
    const backupStarted = Date.now();
    const backup = await runCli(['backup', '--data', data, '--to', backupDir], { timeoutMs: 60_000 });
    const backupEnded = Date.now();
    while (uploads.filter((u) => u.started > backupEnded).length < 4) await sleep(20);
    stop = true;
    await loops;
    expect((await server.proc.stop()).code).toBe(0);

    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout).toMatch(/^Backup of .* written to .*: \d+ releases, 1 debug files, \d+ files, [\d.]+ MiB\.\n$/);
    expect(leftovers(backupDir)).toEqual([]);
    expect(existsSync(join(data, 'backup.lock'))).toBe(false);
    // the backup overlapped uploads, and retention deleted releases meanwhile
    expect(uploads.some((u) => u.started < backupEnded && u.finished > backupStarted)).toBe(true);

    // restore into a new folder: the database is the snapshot, row for row
    const restored = join(dirname(data), 'restored');
    const restore = await runCli(['restore', '--from', backupDir, '--data', restored], { timeoutMs: 60_000 });
    expect(restore.code, restore.stderr).toBe(0);
    expect(restore.stdout).toMatch(/Restored .* into .*restored: /);
    const snapshot = allRows(backupDir);
    expect(allRows(restored)).toEqual(snapshot);

    // the snapshot is a moment of the live server: a prefix of each channel's uploads, rows as they were
    const live = allRows(data);
    const liveById = new Map((live.releases as any[]).map((r) => [r.id, r]));
    const snapshotReleases = snapshot.releases as any[];
    const keptVersions = snapshotReleases.filter((r) => r.channel_id === kept.id).map((r) => r.version);
    expect(keptVersions).toEqual(keptVersions.map((_, i) => i + 1));
    for (const row of snapshotReleases) {
      if (liveById.has(row.id)) expect(row).toEqual(liveById.get(row.id));
      else expect(row.channel_id).toBe(retained.id); // only retention deleted releases after the snapshot
    }
    const inSnapshot = new Set(snapshotReleases.map((r) => r.id));
    for (const u of uploads) {
      if (u.finished < backupStarted && u.channel === 'kept') expect(inSnapshot.has(u.id), `upload ${u.id} done before the backup`).toBe(true);
      if (u.started > backupEnded) expect(inSnapshot.has(u.id), `upload ${u.id} started after the backup`).toBe(false);
    }
    expect(inSnapshot.has(apk.id) && inSnapshot.has(ios.id)).toBe(true);

    // files: exactly those the snapshot's rows name, each with its row's hash; the secrets as they are
    const referenced = [
      ...snapshotReleases.flatMap((r) => [r.file_path, ...(r.icon_path ? [r.icon_path] : [])]),
      ...(snapshot.debug_files as any[]).map((d) => d.file_path),
    ];
    expect(filesUnder(restored, join(restored, 'files')).sort()).toEqual(referenced.sort());
    for (const row of [...snapshotReleases, ...(snapshot.debug_files as any[])]) expect(sha256(join(restored, row.file_path)), row.file_path).toBe(row.sha256);
    const iconPath = snapshotReleases.find((r) => r.id === ios.id).icon_path;
    expect(sha256(join(restored, iconPath))).toBe(sha256(join(data, iconPath)));
    const tlsFiles = filesUnder(data, join(data, 'tls'));
    expect(tlsFiles).toContain('tls/ca.key');
    for (const secret of ['secret.key', ...tlsFiles]) expect(readFileSync(join(restored, secret)).equals(readFileSync(join(data, secret))), secret).toBe(true);

    // the manifest: what, from which Hangar and schema, every file with its hash
    const manifest = readManifest(backupDir);
    const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
    const migration = withDatabase(data, (sql) => sql.prepare('SELECT max(created_at) FROM __drizzle_migrations').pluck().get());
    expect(manifest).toMatchObject({ format: 'hangar-backup', formatVersion: 1, hangarVersion: version, schemaMigration: Number(migration) });
    expect(Date.parse(manifest.createdAt)).toBeGreaterThanOrEqual(backupStarted - 1000);
    expect(manifest.counts.rows).toEqual(Object.fromEntries(Object.entries(snapshot).map(([t, rows]) => [t, rows.length])));
    expect(manifest.counts).toMatchObject({ releases: snapshotReleases.length, debugFiles: 1, files: manifest.files.length });
    expect(manifest.files.map((f: any) => f.path).sort()).toEqual(['hangar.sqlite3', 'secret.key', ...tlsFiles, ...referenced].sort());
    for (const f of manifest.files) {
      expect(sha256(join(backupDir, f.path)), f.path).toBe(f.sha256);
      expect(sha256(join(restored, f.path)), f.path).toBe(f.sha256);
      expect(statSync(join(backupDir, f.path)).mode & 0o777, f.path).toBe(0o600);
    }
    expect(manifest.totalBytes).toBe(manifest.files.reduce((sum: number, f: any) => sum + f.size, 0));
    expect(statSync(backupDir).mode & 0o777).toBe(0o700);

    // a server on the restored folder serves the snapshot: the same token, the same bytes
    const again = await serveOn(restored);
    const newest = snapshotReleases.filter((r) => r.channel_id === kept.id).at(-1);
    const download = await fetch(`${again.url}/download/releases/${newest.id}`);
    expect(download.status).toBe(200);
    expect(createHash('sha256').update(Buffer.from(await download.arrayBuffer())).digest('hex')).toBe(newest.sha256);
    const later = uploads.find((u) => u.started > backupEnded)!;
    expect((await api(again.url, 'GET', `/api/releases/${later.id}`, { token: ADMIN })).status).toBe(404);
    expect((await again.proc.stop()).code).toBe(0);
  });
});

/** A stopped server's data directory holding `count` synthetic releases of `size` bytes. */
async function dataWithReleases(count: number, size: number): Promise<{ data: string; ids: number[] }> {
  const data = join(await tempDir(), 'data');
  const server = await serveOn(data);
  const ids: number[] = [];
  const first = await post(server, '/api/apps/upload', { name: 'a.ipa', data: ipa(1, size) });
  ids.push(first.id);
  const { key } = channelOf(data, first.id);
  for (let i = 2; i <= count; i++) ids.push((await post(server, '/api/apps/upload', { name: 'a.ipa', data: ipa(i, size) }, { channel_key: key })).id);
  expect((await server.proc.stop()).code).toBe(0);
  return { data, ids };
}

async function backupOf(data: string): Promise<string> {
  const to = join(dirname(data), 'backup');
  const result = await runCli(['backup', '--data', data, '--to', to]);
  expect(result.code, result.stderr).toBe(0);
  return to;
}

/** Rewrites a manifest entry after a file of the backup was changed on purpose (as a newer Hangar would). */
function rehash(backupDir: string, path: string): void {
  const manifest = readManifest(backupDir);
  const entry = manifest.files.find((f: any) => f.path === path);
  entry.sha256 = sha256(join(backupDir, path));
  entry.size = statSync(join(backupDir, path)).size;
  writeFileSync(join(backupDir, MANIFEST), JSON.stringify(manifest));
}

describe('hangar restore refuses what it cannot restore whole', () => {
  it('refuses a backup with a flipped byte in a file, and leaves the data directory untouched', { timeout: LONG_MS }, async () => {
    const { data } = await dataWithReleases(2, 64 << 10);
    const backupDir = await backupOf(data);
    const release = readManifest(backupDir).files.find((f: any) => f.path.endsWith('release.ipa')).path;
    const bytes = readFileSync(join(backupDir, release));
    bytes[bytes.length >> 1]! ^= 0x01;
    writeFileSync(join(backupDir, release), bytes);

    const target = join(dirname(data), 'target');
    await mkdir(target);
    const result = await runCli(['restore', '--from', backupDir, '--data', target]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`the backup is damaged: ${release} does not match its SHA-256 in the manifest`);
    expect(await readdir(target)).toEqual([]);
    expect(leftovers(target)).toEqual([]);

    const absent = join(dirname(data), 'absent');
    expect((await runCli(['restore', '--from', backupDir, '--data', absent])).code).not.toBe(0);
    expect(existsSync(absent)).toBe(false);
  });

  it('refuses a non-empty data directory, and with --force moves it aside whole', { timeout: LONG_MS }, async () => {
    const { data } = await dataWithReleases(1, 1024);
    const backupDir = await backupOf(data);
    const target = join(dirname(data), 'occupied');
    await mkdir(target);
    await writeFile(join(target, 'keep.txt'), 'mine');

    const refused = await runCli(['restore', '--from', backupDir, '--data', target]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/is not empty: restore into an empty or new folder, or pass --force/);
    expect(await readdir(target)).toEqual(['keep.txt']);

    const forced = await runCli(['restore', '--from', backupDir, '--data', target, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    const aside = forced.stdout.match(/^The data directory that was there is now (.+)\.$/m)![1]!;
    expect(readFileSync(join(aside, 'keep.txt'), 'utf8')).toBe('mine');
    expect(allRows(target)).toEqual(allRows(data));
  });

  it('refuses a backup whose database a newer Hangar migrated', { timeout: LONG_MS }, async () => {
    const { data } = await dataWithReleases(1, 1024);
    const backupDir = await backupOf(data);
    const sql = new Database(join(backupDir, 'hangar.sqlite3'));
    sql.prepare('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)').run('from-the-future', 4_000_000_000_000);
    sql.close();
    rehash(backupDir, 'hangar.sqlite3');

    const target = join(dirname(data), 'target');
    const result = await runCli(['restore', '--from', backupDir, '--data', target]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/migrated by a newer Hangar \(schema 4000000000000/);
    expect(existsSync(target)).toBe(false);
    expect(leftovers(target)).toEqual([]);
  });
});

describe('hangar backup: interrupted, and deletions while it runs', () => {
  it('killed mid-way leaves no complete-looking backup, and blocks nothing after', { timeout: LONG_MS }, async () => {
    const { data, ids } = await dataWithReleases(6, 24 << 20);
    const to = join(dirname(data), 'backup');
    const proc = new CliProcess(['backup', '--data', data, '--to', to]);
    let partial: string | undefined;
    while (!proc.exit && !(partial = leftovers(to).find((name) => existsSync(join(dirname(to), name, 'files'))))) await sleep(2);
    proc.child.kill('SIGKILL');
    expect(await proc.waitForExit(), 'the backup ended before it could be killed').toMatchObject({ signal: 'SIGKILL' });

    expect(existsSync(to)).toBe(false);
    expect(existsSync(join(dirname(to), partial!, MANIFEST))).toBe(false);
    const restore = await runCli(['restore', '--from', join(dirname(to), partial!), '--data', join(dirname(data), 'target')]);
    expect(restore.code).not.toBe(0);
    expect(restore.stderr).toMatch(/is not a complete Hangar backup \(no hangar-backup\.json\)/);

    // its lock names a dead process: the server deletes files again, and the next backup goes ahead
    expect(existsSync(join(data, 'backup.lock'))).toBe(true);
    const server = await serveOn(data);
    const dir = join(data, 'files', 'channels', String(channelOf(data, ids[0]!).id), 'releases', String(ids[0]));
    expect(existsSync(dir)).toBe(true);
    expect((await api(server.url, 'DELETE', `/api/releases/${ids[0]}`, { token: ADMIN })).status).toBe(200);
    expect(existsSync(dir)).toBe(false);
    const next = await runCli(['backup', '--data', data, '--to', to], { timeoutMs: 60_000 });
    expect(next.code, next.stderr).toBe(0);
    expect(readManifest(to).counts.releases).toBe(5);
    expect((await server.proc.stop()).code).toBe(0);
  });

  it('while a backup holds the lock, deleted releases keep their files until it is done', { timeout: LONG_MS }, async () => {
    const data = join(await tempDir(), 'data');
    const server = await serveOn(data);
    const release = await post(server, '/api/apps/upload', { name: 'a.ipa', data: ipa(1, 1024) });
    const dir = join(data, 'files', 'channels', String(channelOf(data, release.id).id), 'releases', String(release.id));

    // this test process stands in for a running backup
    await writeFile(join(data, 'backup.lock'), JSON.stringify({ pid: process.pid }));
    expect((await api(server.url, 'DELETE', `/api/releases/${release.id}`, { token: ADMIN })).status).toBe(200);
    expect(existsSync(dir)).toBe(true);
    expect(withDatabase(data, (sql) => sql.prepare('SELECT count(*) FROM file_deletions').pluck().get())).toBe(1);

    // a second backup is refused while the first runs
    const refused = await runCli(['backup', '--data', data, '--to', join(dirname(data), 'refused')]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`another backup of ${data} is running (process ${process.pid})`);
    expect(existsSync(join(dirname(data), 'refused'))).toBe(false);

    // the backup ends: the next one takes the lock, and drains the queue when it is done
    await writeFile(join(data, 'backup.lock'), JSON.stringify({ pid: 2 ** 22 + 1 })); // above Linux's pid_max: gone
    const backup = await runCli(['backup', '--data', data, '--to', join(dirname(data), 'backup')]);
    expect(backup.code, backup.stderr).toBe(0);
    expect(existsSync(dir)).toBe(false);
    expect(withDatabase(data, (sql) => sql.prepare('SELECT count(*) FROM file_deletions').pluck().get())).toBe(0);
    expect(existsSync(join(data, 'backup.lock'))).toBe(false);
    expect((await server.proc.stop()).code).toBe(0);
  });
});
