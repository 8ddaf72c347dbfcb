/**
 * Concurrent uploads (R10): `version` is the channel's next sequence number, distinct for uploads
 * that overlap and never reused, also not after a delete. Twenty uploads of a real APK are all in
 * flight at once (each has sent half its body before any sends the rest), then all finish.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesUnder } from '../helpers/db.ts';
import { fixture, fixturesMissing } from '../helpers/fixtures.ts';
import { entriesOf, multipart, openRequest, type Part, type RawResponse } from '../helpers/multipart.ts';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.ts';
import { createAppTree, type AppTree } from '../helpers/world.ts';

/** SOURCES.md: ContactManager, com.example.android.contactmanager 1.0 (1) */
const APK = { path: fixture('android', 'contactmanager-1.0-vc1-minsdk5-v1signed.apk'), size: 25931, sha256: '7370e929d3ea2ef8dd030b2b0e2a86ea4e0019a6de3d1dd6aec40b0752e01722', bundleId: 'com.example.android.contactmanager' };
const N = 20;

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

describe.skipIf(fixturesMissing !== null)('concurrent uploads to one channel (R10)', () => {
  let t: TestServer;
  let apk: Buffer;
  let tree: AppTree;
  let responses: RawResponse[] = [];

  beforeAll(async () => {
    t = await startTestServer();
    apk = await readFile(APK.path);
    expect(sha256(apk)).toBe(APK.sha256);
    tree = await createAppTree(t, t.admin, 'android');
  });
  afterAll(() => t?.close());

  /** Starts `count` uploads, each sends half its body; once all have, each sends the rest. */
  async function overlappingUploads(count: number, parts: () => Part[]): Promise<RawResponse[]> {
    const open = Array.from({ length: count }, () => {
      const form = multipart(parts());
      const request = openRequest(t.url, { path: '/api/apps/upload', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': form.contentType }, body: form.body });
      return { request, form };
    });
    await Promise.all(open.map(({ request, form }) => request.write(form.body.subarray(0, Math.floor(form.body.length / 2)))));
    return Promise.all(open.map(({ request }) => request.finish()));
  }

  const channelParts = (): Part[] => [
    { name: 'channel_key', value: tree.channel.key },
    { name: 'file', filename: 'ContactManager.apk', data: apk },
  ];

  it(`${N} overlapping uploads: all 201, versions exactly 1..${N}, distinct ids`, async () => {
    responses = await overlappingUploads(N, channelParts);
    for (const res of responses) {
      expect(res.status, res.text).toBe(201);
      expect(res.body).toMatchObject({ bundle_id: APK.bundleId, release_version: '1.0', build_version: '1', size: APK.size, channel: { id: tree.channel.id } });
    }
    const versions = responses.map((r) => r.body.version as number).sort((a, b) => a - b);
    expect(versions).toEqual(Array.from({ length: N }, (_, i) => i + 1));
    expect(new Set(responses.map((r) => r.body.id)).size).toBe(N);
  });

  it(`stores ${N} files, each the fixture byte for byte, and leaves no temporary file`, async () => {
    const channelDir = join(t.dataDir, 'files', 'channels', String(tree.channel.id));
    const stored = (await filesUnder(channelDir)).filter((f) => f.endsWith('.apk'));
    expect(stored).toHaveLength(N);
    expect(stored.sort()).toEqual(responses.map((r) => join('releases', String(r.body.id), 'release.apk')).sort());
    for (const file of stored) expect(sha256(await readFile(join(channelDir, file))), file).toBe(APK.sha256);
    const rows = t.sql.prepare('SELECT id, version, sha256, size FROM releases WHERE channel_id = ? ORDER BY version').all(tree.channel.id) as { id: number; version: number; sha256: string; size: number }[];
    expect(rows.map((r) => r.version)).toEqual(Array.from({ length: N }, (_, i) => i + 1));
    for (const row of rows) expect(row).toMatchObject({ sha256: APK.sha256, size: APK.size });
    expect(await entriesOf(join(t.dataDir, 'tmp'))).toEqual([]);
  });

  it(`GET /api/apps/versions lists the ${N}, highest version first`, async () => {
    const res = await t.anon.get('/api/apps/versions', { query: { channel_key: tree.channel.key, per_page: 100 } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.releases.map((r: { version: number }) => r.version)).toEqual(Array.from({ length: N }, (_, i) => N - i));
    const firstPage = await t.anon.get('/api/apps/versions', { query: { channel_key: tree.channel.key, per_page: 5, page: 2 } });
    expect(firstPage.body.releases.map((r: { version: number }) => r.version)).toEqual([15, 14, 13, 12, 11]);
  });

  it(`after release ${N} is deleted, the next upload gets ${N + 1} (a version is never reused)`, async () => {
    const last = responses.find((r) => r.body.version === N)!;
    const deleted = await t.admin.delete(`/api/releases/${last.body.id}`);
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toEqual({ mesage: 'OK' });
    expect(t.sql.prepare('SELECT count(*) AS n FROM releases WHERE id = ?').get(last.body.id)).toEqual({ n: 0 });
    expect(await entriesOf(join(t.dataDir, 'files', 'channels', String(tree.channel.id), 'releases', String(last.body.id)))).toEqual([]);

    const [next] = await overlappingUploads(1, channelParts);
    expect(next!.status, next!.text).toBe(201);
    expect(next!.body.version).toBe(N + 1);
    expect(next!.body.id).not.toBe(last.body.id);

    const list = await t.anon.get('/api/apps/versions', { query: { channel_key: tree.channel.key, per_page: 100 } });
    expect(list.body.releases.map((r: { version: number }) => r.version)).toEqual([N + 1, ...Array.from({ length: N - 1 }, (_, i) => N - 1 - i)]);
  });

  it('deleting the newest release before the next upload still does not hand its version out again', async () => {
    const list = await t.anon.get('/api/apps/versions', { query: { channel_key: tree.channel.key, per_page: 1 } });
    const newest = list.body.releases[0];
    expect(newest.version).toBe(N + 1);
    const deleted = await t.admin.delete(`/api/releases/${newest.id}`);
    expect(deleted.status, deleted.text).toBe(200);
    const [next] = await overlappingUploads(1, channelParts);
    expect(next!.status, next!.text).toBe(201);
    expect(next!.body.version).toBe(N + 2);
  });

  it('overlapping uploads that each create an app: one app, scheme and channel each, every release version 1', async () => {
    const before = (t.sql.prepare('SELECT count(*) AS n FROM apps').get() as { n: number }).n;
    const created = await overlappingUploads(8, () => [{ name: 'file', filename: 'ContactManager.apk', data: apk }]);
    for (const res of created) {
      expect(res.status, res.text).toBe(201);
      expect(res.body.version).toBe(1);
      expect(res.body.channel).toMatchObject({ name: 'Android', device_type: 'android' });
    }
    expect(new Set(created.map((r) => r.body.app.id)).size).toBe(8);
    expect(new Set(created.map((r) => r.body.channel.id)).size).toBe(8);
    expect((t.sql.prepare('SELECT count(*) AS n FROM apps').get() as { n: number }).n).toBe(before + 8);
  });

  it('overlapping uploads to two channels number each channel on its own', async () => {
    const other = await createAppTree(t, t.admin, 'android');
    const [a, b] = await Promise.all([
      overlappingUploads(5, () => [{ name: 'channel_key', value: other.channel.key }, { name: 'file', filename: 'a.apk', data: apk }]),
      overlappingUploads(5, channelParts),
    ]);
    for (const res of [...a!, ...b!]) expect(res.status, res.text).toBe(201);
    expect(a!.map((r) => r.body.version).sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5]);
    expect(b!.map((r) => r.body.version).sort((x, y) => x - y)).toEqual([N + 3, N + 4, N + 5, N + 6, N + 7]);
  });
});
