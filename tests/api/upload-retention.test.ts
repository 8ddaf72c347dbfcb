/**
 * Retention (R13): a scheme's `retained_builds` N > 0 keeps each of its channels at its N newest
 * releases after every upload; older ones go with their files. 0 keeps all. The deletions are
 * crash-safe: a deletion queued in `file_deletions` whose files a crash left on disk is finished at
 * the next start.
 */
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src-server/config/config.ts';
import { FileStore } from '../../src-server/storage/files.ts';
import { DATABASE_FILE, startServer, type RunningServer } from '../../src-server/server.ts';
import { ApiClient } from '../helpers/client.ts';
import { filesUnder } from '../helpers/db.ts';
import { fixture, fixturesMissing } from '../helpers/fixtures.ts';
import { uploadRaw, type RawResponse } from '../helpers/multipart.ts';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.ts';
import { createAppTree, type AppTree } from '../helpers/world.ts';

const APK = { path: fixture('android', 'contactmanager-1.0-vc1-minsdk5-v1signed.apk'), sha256: '7370e929d3ea2ef8dd030b2b0e2a86ea4e0019a6de3d1dd6aec40b0752e01722' };
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

describe.skipIf(fixturesMissing !== null)('retained_builds (R13)', () => {
  let t: TestServer;
  let apk: Buffer;

  beforeAll(async () => {
    t = await startTestServer();
    apk = await readFile(APK.path);
  });
  afterAll(() => t?.close());

  async function upload(channelKey: string): Promise<RawResponse> {
    const res = await uploadRaw(t.url, [{ name: 'channel_key', value: channelKey }, { name: 'file', filename: 'app.apk', data: apk }], { bearer: ADMIN_TOKEN });
    expect(res.status, res.text).toBe(201);
    return res;
  }

  async function retain(schemeId: number, n: number): Promise<void> {
    const res = await t.admin.patch(`/api/schemes/${schemeId}`, { retained_builds: n });
    expect(res.status, res.text).toBe(200);
    expect(res.body.retained_builds).toBe(n);
  }

  async function versionsOf(channelKey: string): Promise<number[]> {
    const res = await t.anon.get('/api/apps/versions', { query: { channel_key: channelKey, per_page: 100 } });
    expect(res.status, res.text).toBe(200);
    return res.body.releases.map((r: { version: number }) => r.version);
  }

  const releaseDir = (channelId: number, releaseId: number) => join(t.dataDir, 'files', 'channels', String(channelId), 'releases', String(releaseId));
  const rowsOf = (channelId: number) => t.sql.prepare('SELECT id, version FROM releases WHERE channel_id = ? ORDER BY version').all(channelId) as { id: number; version: number }[];
  const queued = () => (t.sql.prepare('SELECT count(*) AS n FROM file_deletions').get() as { n: number }).n;

  it('2: after 4 uploads only versions 3 and 4 remain; the files of 1 and 2 are gone from disk', async () => {
    const tree = await createAppTree(t, t.admin, 'android');
    await retain(tree.scheme.id, 2);
    const uploads: RawResponse[] = [];
    for (let i = 0; i < 4; i++) uploads.push(await upload(tree.channel.key));
    expect(uploads.map((u) => u.body.version)).toEqual([1, 2, 3, 4]);

    expect(await versionsOf(tree.channel.key)).toEqual([4, 3]);
    expect(rowsOf(tree.channel.id)).toEqual([
      { id: uploads[2]!.body.id, version: 3 },
      { id: uploads[3]!.body.id, version: 4 },
    ]);
    for (const gone of uploads.slice(0, 2)) expect(existsSync(releaseDir(tree.channel.id, gone.body.id)), `release ${gone.body.version}'s directory`).toBe(false);
    for (const kept of uploads.slice(2)) {
      const file = join(releaseDir(tree.channel.id, kept.body.id), 'release.apk');
      expect(sha256(await readFile(file))).toBe(APK.sha256);
    }
    expect(await filesUnder(join(t.dataDir, 'files', 'channels', String(tree.channel.id)))).toEqual(
      uploads.slice(2).flatMap((u) => [join('releases', String(u.body.id), 'icon.png'), join('releases', String(u.body.id), 'release.apk')]).sort(),
    );
    expect(queued(), 'the deletion queue is drained').toBe(0);
    for (const gone of uploads.slice(0, 2)) {
      const res = await t.admin.get(`/api/releases/${gone.body.id}`);
      expect(res.status).toBe(404);
    }

    // the versions retention took are not handed out again
    const next = await upload(tree.channel.key);
    expect(next.body.version).toBe(5);
    expect(await versionsOf(tree.channel.key)).toEqual([5, 4]);
  });

  it('two channels of the scheme each keep their own 2', async () => {
    const tree = await createAppTree(t, t.admin, 'android');
    const second = await t.admin.post(`/api/schemes/${tree.scheme.id}/channels`, { name: 'Second', device_type: 'android' });
    expect(second.status, second.text).toBe(201);
    const secondKey = (await t.admin.get(`/api/channels/${second.body.id}/key`)).body.key as string;
    await retain(tree.scheme.id, 2);

    const a: RawResponse[] = [];
    const b: RawResponse[] = [];
    for (let i = 0; i < 3; i++) {
      a.push(await upload(tree.channel.key));
      b.push(await upload(secondKey));
    }
    a.push(await upload(tree.channel.key));

    expect(await versionsOf(tree.channel.key)).toEqual([4, 3]);
    expect(await versionsOf(secondKey)).toEqual([3, 2]);
    for (const gone of a.slice(0, 2)) expect(existsSync(releaseDir(tree.channel.id, gone.body.id))).toBe(false);
    expect(existsSync(releaseDir(second.body.id, b[0]!.body.id))).toBe(false);
    for (const kept of b.slice(1)) expect(existsSync(join(releaseDir(second.body.id, kept.body.id), 'release.apk'))).toBe(true);
    expect(queued()).toBe(0);
  });

  it('a channel of another scheme is not touched', async () => {
    const kept = await createAppTree(t, t.admin, 'android');
    const strict = await createAppTree(t, t.admin, 'android');
    await retain(strict.scheme.id, 1);
    for (let i = 0; i < 3; i++) await upload(kept.channel.key);
    for (let i = 0; i < 3; i++) await upload(strict.channel.key);
    expect(await versionsOf(kept.channel.key)).toEqual([3, 2, 1]);
    expect(await versionsOf(strict.channel.key)).toEqual([3]);
  });

  it('0 keeps all', async () => {
    const tree = await createAppTree(t, t.admin, 'android');
    await retain(tree.scheme.id, 0);
    const uploads: RawResponse[] = [];
    for (let i = 0; i < 4; i++) uploads.push(await upload(tree.channel.key));
    expect(await versionsOf(tree.channel.key)).toEqual([4, 3, 2, 1]);
    for (const u of uploads) expect(existsSync(join(releaseDir(tree.channel.id, u.body.id), 'release.apk'))).toBe(true);
  });

  it('lowered later (0 -> 1): the next upload leaves only itself', async () => {
    const tree = await createAppTree(t, t.admin, 'android');
    const before: RawResponse[] = [];
    for (let i = 0; i < 3; i++) before.push(await upload(tree.channel.key));
    await retain(tree.scheme.id, 1);
    const last = await upload(tree.channel.key);
    expect(await versionsOf(tree.channel.key)).toEqual([4]);
    for (const gone of before) expect(existsSync(releaseDir(tree.channel.id, gone.body.id))).toBe(false);
    expect(existsSync(join(releaseDir(tree.channel.id, last.body.id), 'release.apk'))).toBe(true);
  });
});

/** A file store whose removal of queued deletions fails while `failDrain` is set (a disk error mid-retention). */
class FailingDrainStore extends FileStore {
  failDrain = false;
  override async drainDeletions(db: Parameters<FileStore['drainDeletions']>[0]): Promise<number> {
    if (this.failDrain) throw Object.assign(new Error('EIO: i/o error, rmdir'), { code: 'EIO' });
    return super.drainDeletions(db);
  }
}

describe.skipIf(fixturesMissing !== null)('retention that fails after the upload was recorded', () => {
  let t: TestServer;
  let store: FailingDrainStore;
  beforeAll(async () => {
    t = await startTestServer({}, { fileStore: (dir) => (store = new FailingDrainStore(dir)) });
  });
  afterAll(() => t?.close());

  it('the upload is still 201 (it is stored); the rows go, their files stay queued, and the next drain finishes them', async () => {
    const apk = await readFile(APK.path);
    const tree = await createAppTree(t, t.admin, 'android');
    const up = () => uploadRaw(t.url, [{ name: 'channel_key', value: tree.channel.key }, { name: 'file', filename: 'app.apk', data: apk }], { bearer: ADMIN_TOKEN });
    const first = await up();
    expect(first.status, first.text).toBe(201);
    const patched = await t.admin.patch(`/api/schemes/${tree.scheme.id}`, { retained_builds: 1 });
    expect(patched.status, patched.text).toBe(200);

    store.failDrain = true;
    let second: RawResponse;
    try {
      second = await up();
    } finally {
      store.failDrain = false;
    }
    expect(second.status, second.text).toBe(201);
    expect(second.body.version).toBe(2);
    const firstDir = join(t.dataDir, 'files', 'channels', String(tree.channel.id), 'releases', String(first.body.id));
    expect(t.sql.prepare('SELECT version FROM releases WHERE channel_id = ?').all(tree.channel.id)).toEqual([{ version: 2 }]);
    expect(t.sql.prepare('SELECT path FROM file_deletions').all()).toEqual([{ path: join('files', 'channels', String(tree.channel.id), 'releases', String(first.body.id)) }]);
    expect(existsSync(firstDir), 'the files wait in the queue').toBe(true);

    // the next deletion drains the queue
    const third = await up();
    expect(third.status, third.text).toBe(201);
    expect(existsSync(firstDir)).toBe(false);
    expect(t.sql.prepare('SELECT count(*) AS n FROM file_deletions').get()).toEqual({ n: 0 });
    expect(t.sql.prepare('SELECT version FROM releases WHERE channel_id = ?').all(tree.channel.id)).toEqual([{ version: 3 }]);
  });
});

describe.skipIf(fixturesMissing !== null)('a deletion a crash interrupted (file_deletions)', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  async function start(dataDir: string): Promise<{ server: RunningServer; admin: ApiClient }> {
    const server = await startServer({ ...resolveConfig({ host: '127.0.0.1', port: 0, data: dataDir }, {}), logToStdout: false, initialAdminToken: ADMIN_TOKEN });
    return { server, admin: new ApiClient(server.localUrl, ADMIN_TOKEN) };
  }

  it('is finished at the next start: the release directory goes, the queue empties, the rest stays', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'hangar-retention-'));
    dirs.push(dataDir);
    const apk = await readFile(APK.path);

    const first = await start(dataDir);
    let tree: AppTree;
    let doomed: RawResponse;
    let kept: RawResponse;
    try {
      tree = await createAppTree({ admin: first.admin } as TestServer, first.admin, 'android');
      const up = () => uploadRaw(first.server.localUrl, [{ name: 'channel_key', value: tree.channel.key }, { name: 'file', filename: 'app.apk', data: apk }], { bearer: ADMIN_TOKEN });
      doomed = await up();
      kept = await up();
      expect(doomed.status, doomed.text).toBe(201);
      expect(kept.status, kept.text).toBe(201);
    } finally {
      await first.server.close();
    }

    // A crash after a retention (or delete) committed, before its files were removed: the row is
    // gone, its directory is queued and still on disk.
    const doomedDir = join('files', 'channels', String(tree.channel.id), 'releases', String(doomed.body.id));
    const keptFile = join(dataDir, 'files', 'channels', String(tree.channel.id), 'releases', String(kept.body.id), 'release.apk');
    expect(existsSync(join(dataDir, doomedDir, 'release.apk'))).toBe(true);
    const db = new Database(join(dataDir, DATABASE_FILE));
    db.transaction(() => {
      db.prepare('INSERT INTO file_deletions (path, created_at) VALUES (?, ?)').run(doomedDir, Date.now());
      db.prepare('DELETE FROM releases WHERE id = ?').run(doomed.body.id);
    })();
    db.close();

    const second = await start(dataDir);
    try {
      expect(existsSync(join(dataDir, doomedDir)), 'the queued directory is removed').toBe(false);
      expect(sha256(await readFile(keptFile))).toBe(APK.sha256);
      const sql = new Database(join(dataDir, DATABASE_FILE), { readonly: true });
      try {
        expect(sql.prepare('SELECT count(*) AS n FROM file_deletions').get()).toEqual({ n: 0 });
        expect(sql.prepare('SELECT id, version FROM releases ORDER BY id').all()).toEqual([{ id: kept.body.id, version: 2 }]);
      } finally {
        sql.close();
      }
      const log = await readFile(join(dataDir, 'logs', 'hangar.log'), 'utf8');
      const errors = log.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as { level: number }).filter((l) => l.level >= 50);
      expect(errors, 'nothing is reported missing: the queue finished what the crash left').toEqual([]);
      const versions = await second.admin.get('/api/apps/versions', { query: { channel_key: tree.channel.key } });
      expect(versions.body.releases.map((r: { version: number }) => r.version)).toEqual([2]);
      const next = await uploadRaw(second.server.localUrl, [{ name: 'channel_key', value: tree.channel.key }, { name: 'file', filename: 'app.apk', data: apk }], { bearer: ADMIN_TOKEN });
      expect(next.status, next.text).toBe(201);
      expect(next.body.version).toBe(3);
    } finally {
      await second.server.close();
    }
  });
});
