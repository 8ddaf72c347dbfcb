/**
 * Reading, changing and deleting a release (R6): GET, PUT/PATCH and DELETE /api/releases/:id, with
 * real uploads behind them.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, fixturesMissing } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { upload } from '../helpers/upload.ts';
import { createAppTree, createUser, type AppTree } from '../helpers/world.ts';

const IPA = fixture('ios', 'bundle-1.0-b1-ipad-cgbi-icons.ipa');

let t: TestServer;
let tree: AppTree;

const rowOf = (id: number) => t.sql.prepare('SELECT * FROM releases WHERE id = ?').get(id) as Record<string, any> | undefined;
const latest = (query: Record<string, string>, key = tree.channel.key) =>
  t.anon.get('/api/apps/latest', { query: { channel_key: key, ...query }, shape: 'extended' });

beforeAll(async () => {
  t = await startTestServer();
  if (fixturesMissing) return;
  tree = await createAppTree(t);
});
afterAll(() => t?.close());

describe.skipIf(fixturesMissing !== null)('GET /api/releases/:id', () => {
  it('answers the release (extended: with id, text_changelog, platform, device_type; base: without)', async () => {
    const release = await upload(t.admin, IPA, { channel_key: tree.channel.key, changelog: 'one\ntwo' });
    const ext = await t.admin.get(`/api/releases/${release.id}`, { shape: 'extended' });
    expect(ext.status, ext.text).toBe(200);
    expect(ext.body).toMatchObject({
      id: release.id,
      version: release.version,
      bundle_id: 'com.icyleaf.bundle',
      release_version: '1.0',
      build_version: '1',
      changelog: [{ message: 'one' }, { message: 'two' }],
      text_changelog: '- one\n- two',
      platform: 'iOS',
      device_type: 'ios',
      install_url: release.install_url,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4}$/),
    });
    const base = await t.admin.get(`/api/releases/${release.id}`, { shape: 'base' });
    expect(base.status).toBe(200);
    for (const key of ['id', 'text_changelog', 'platform', 'device_type']) expect(base.body).not.toHaveProperty(key);
    expect(base.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$/);
  });

  it('needs a token (401) and read access to the app (403 for a member who does not collaborate)', async () => {
    const release = await upload(t.admin, IPA, { channel_key: tree.channel.key });
    expect((await t.anon.get(`/api/releases/${release.id}`)).status).toBe(401);
    const outsider = await createUser(t, 'member');
    expect((await outsider.client.get(`/api/releases/${release.id}`)).status).toBe(403);
  });

  it('404 for an unknown release', async () => {
    const res = await t.admin.get('/api/releases/987654');
    expect(res.status).toBe(404);
    expect(res.body.error).toEqual(expect.any(String));
  });
});

describe.skipIf(fixturesMissing !== null)('PUT/PATCH /api/releases/:id', () => {
  it('changelog as text: one entry per line, blank lines dropped, leading -/* stripped', async () => {
    const release = await upload(t.admin, IPA, { channel_key: tree.channel.key });
    const res = await t.admin.put(`/api/releases/${release.id}`, { changelog: 'Fixed the crash\n\n- Faster start\n  * New icon\r\n' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.changelog).toEqual([{ message: 'Fixed the crash' }, { message: 'Faster start' }, { message: 'New icon' }]);
    expect(res.body.text_changelog).toBe('- Fixed the crash\n- Faster start\n- New icon');
    expect(JSON.parse(rowOf(release.id)!.changelog)).toEqual(res.body.changelog);
  });

  it('changelog as an array of ReleaseChangelog (kept as given) or of texts', async () => {
    const release = await upload(t.admin, IPA, { channel_key: tree.channel.key });
    const entries = [
      { message: 'Merge branch x', author: 'Ada', email: 'ada@example.test', date: '2026-11-20 10:00:00' },
      { message: 'Second' },
    ];
    const res = await t.admin.put(`/api/releases/${release.id}`, { changelog: entries });
    expect(res.status, res.text).toBe(200);
    expect(res.body.changelog).toEqual(entries);
    expect(res.body.text_changelog).toBe('- Merge branch x\n- Second');
    const texts = await t.admin.patch(`/api/releases/${release.id}`, { changelog: ['a', 'b'] });
    expect(texts.body.changelog).toEqual([{ message: 'a' }, { message: 'b' }]);
    const json = await t.admin.patch(`/api/releases/${release.id}`, { changelog: JSON.stringify([{ message: 'from JSON text' }]) });
    expect(json.body.changelog).toEqual([{ message: 'from JSON text' }]);
    const cleared = await t.admin.patch(`/api/releases/${release.id}`, { changelog: [] });
    expect(cleared.body.changelog).toEqual([]);
    expect(cleared.body.text_changelog).toBe('');
    const bad = await t.admin.patch(`/api/releases/${release.id}`, { changelog: [{ no: 'message' }] });
    expect(bad.status).toBe(422);
  });

  it('custom_fields as an array or as JSON text; not JSON is 422', async () => {
    const release = await upload(t.admin, IPA, { channel_key: tree.channel.key });
    const fields = [{ name: 'Env', value: 'staging', icon: 'fas fa-flag' }];
    const array = await t.admin.put(`/api/releases/${release.id}`, { custom_fields: fields });
    expect(array.status, array.text).toBe(200);
    expect(array.body.custom_fields).toEqual(fields);
    const text = await t.admin.put(`/api/releases/${release.id}`, { custom_fields: JSON.stringify([{ name: 'QA', value: 'passed', icon: 'fas fa-check' }]) });
    expect(text.body.custom_fields).toEqual([{ name: 'QA', value: 'passed', icon: 'fas fa-check' }]);
    const bad = await t.admin.put(`/api/releases/${release.id}`, { custom_fields: '{not json' });
    expect(bad.status).toBe(422);
    expect(bad.body.entry).toHaveProperty('custom_fields');
    expect((await t.admin.get(`/api/releases/${release.id}`)).body.custom_fields).toEqual([{ name: 'QA', value: 'passed', icon: 'fas fa-check' }]);
  });

  it('branch: a leading origin/ is stripped; the other fields are stored as sent', async () => {
    const release = await upload(t.admin, IPA, { channel_key: tree.channel.key });
    const res = await t.admin.put(`/api/releases/${release.id}`, {
      branch: 'origin/release/2.0',
      git_commit: '0123abcd',
      ci_url: 'https://ci.example.test/job/9',
      source: 'jenkins',
      release_type: 'beta',
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ branch: 'release/2.0', git_commit: '0123abcd', ci_url: 'https://ci.example.test/job/9', source: 'jenkins' });
    expect(rowOf(release.id)!.release_type).toBe('beta');
  });

  it('PATCH changes only the fields sent', async () => {
    const release = await upload(t.admin, IPA, { channel_key: tree.channel.key, changelog: 'keep me', branch: 'main' });
    const res = await t.admin.patch(`/api/releases/${release.id}`, { git_commit: 'feedface' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: release.id, git_commit: 'feedface', branch: 'main', changelog: [{ message: 'keep me' }], release_version: '1.0', build_version: '1' });
    const base = await t.admin.patch(`/api/releases/${release.id}`, { ci_url: 'https://ci.example.test/2' }, { shape: 'base' });
    expect(base.status).toBe(200);
    expect(base.body).toMatchObject({ git_commit: 'feedface', ci_url: 'https://ci.example.test/2', branch: 'main' });
  });

  it('versions change, and latest follows them (compared as version numbers)', async () => {
    const channel = await createAppTree(t);
    const first = await upload(t.admin, IPA, { channel_key: channel.channel.key });
    const second = await upload(t.admin, IPA, { channel_key: channel.channel.key });
    expect((await latest({ release_version: '1.0', build_version: '1' }, channel.channel.key)).body.releases).toEqual([]);

    const res = await t.admin.put(`/api/releases/${second.id}`, { release_version: '1.10', build_version: '10' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ release_version: '1.10', build_version: '10', version: 2 });
    const after = await latest({ release_version: '1.9', build_version: '9' }, channel.channel.key);
    expect(after.body.releases.map((r: any) => r.id)).toEqual([second.id]);

    await t.admin.patch(`/api/releases/${first.id}`, { build_version: '11', release_version: '1.10' });
    const both = await latest({ release_version: '1.9', build_version: '9' }, channel.channel.key);
    expect(both.body.releases.map((r: any) => r.id)).toEqual([second.id, first.id]);
    const base = await t.anon.get('/api/apps/latest', { query: { channel_key: channel.channel.key, release_version: '1.10', build_version: '10' }, shape: 'base' });
    expect(base.body.releases).toMatchObject({ version: 1, build_version: '11' });
    const exists = await t.anon.get('/api/apps/version_exist', { query: { channel_key: channel.channel.key, bundle_id: 'com.icyleaf.bundle', release_version: '1.10', build_version: '11' } });
    expect(exists.status).toBe(200);
    const gone = await t.anon.get('/api/apps/version_exist', { query: { channel_key: channel.channel.key, bundle_id: 'com.icyleaf.bundle', release_version: '1.0', build_version: '1' } });
    expect(gone.status).toBe(404);
  });

  it('refuses empty versions with 422', async () => {
    const release = await upload(t.admin, IPA, { channel_key: tree.channel.key });
    for (const body of [{ release_version: '' }, { build_version: '' }]) {
      const res = await t.admin.put(`/api/releases/${release.id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
  });

  it('404 for an unknown release', async () => {
    for (const method of ['put', 'patch'] as const) {
      const res = await t.admin[method]('/api/releases/987654', { changelog: 'x' });
      expect(res.status).toBe(404);
    }
  });

  it('409 while the app is archived (and works again once unarchived)', async () => {
    const archived = await createAppTree(t);
    const release = await upload(t.admin, IPA, { channel_key: archived.channel.key });
    const archive = await t.admin.patch(`/api/apps/${archived.app.id}`, { archived: true });
    expect(archive.status, archive.text).toBe(200);
    try {
      const put = await t.admin.put(`/api/releases/${release.id}`, { changelog: 'nope' });
      expect(put.status).toBe(409);
      const del = await t.admin.delete(`/api/releases/${release.id}`);
      expect(del.status).toBe(409);
      expect(rowOf(release.id)).toBeDefined();
      expect((await t.admin.get(`/api/releases/${release.id}`)).status).toBe(200); // still readable
    } finally {
      expect((await t.admin.patch(`/api/apps/${archived.app.id}`, { archived: false })).status).toBe(200);
    }
    expect((await t.admin.put(`/api/releases/${release.id}`, { changelog: 'now yes' })).status).toBe(200);
  });

  it('a member collaborator may not change a release (403); an app developer may', async () => {
    const release = await upload(t.admin, IPA, { channel_key: tree.channel.key });
    const member = await createUser(t, 'member');
    const developer = await createUser(t, 'member');
    await t.admin.post(`/api/apps/${tree.app.id}/collaborators`, { user_id: member.id, role: 'member' });
    await t.admin.post(`/api/apps/${tree.app.id}/collaborators`, { user_id: developer.id, role: 'developer' });
    expect((await member.client.put(`/api/releases/${release.id}`, { changelog: 'x' })).status).toBe(403);
    expect((await member.client.delete(`/api/releases/${release.id}`)).status).toBe(403);
    expect((await developer.client.put(`/api/releases/${release.id}`, { changelog: 'x' })).status).toBe(200);
  });
});

describe.skipIf(fixturesMissing !== null)('DELETE /api/releases/:id', () => {
  it('removes the row and the file directory, answers {"mesage":"OK"}; the version is never reused', async () => {
    const channel = await createAppTree(t);
    const one = await upload(t.admin, IPA, { channel_key: channel.channel.key });
    const two = await upload(t.admin, IPA, { channel_key: channel.channel.key });
    const three = await upload(t.admin, IPA, { channel_key: channel.channel.key });
    expect([one.version, two.version, three.version]).toEqual([1, 2, 3]);
    const dir = join(t.dataDir, dirname(rowOf(three.id)!.file_path));
    expect(existsSync(join(t.dataDir, rowOf(three.id)!.file_path))).toBe(true);

    const res = await t.admin.delete(`/api/releases/${three.id}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ mesage: 'OK' });
    expect(rowOf(three.id)).toBeUndefined();
    expect(existsSync(dir)).toBe(false);
    expect(existsSync(join(t.dataDir, dirname(rowOf(two.id)!.file_path)))).toBe(true);

    expect((await t.admin.get(`/api/releases/${three.id}`)).status).toBe(404);
    const download = await fetch(`${t.url}/download/releases/${three.id}`, { redirect: 'manual' });
    expect(download.status).toBe(404);
    await download.arrayBuffer();

    const four = await upload(t.admin, IPA, { channel_key: channel.channel.key });
    expect(four.version).toBe(4);
    const versions = await t.anon.get('/api/apps/versions', { query: { channel_key: channel.channel.key } });
    expect(versions.body.releases.map((r: any) => r.version)).toEqual([4, 2, 1]);
    // deleting the newest never lowers the next number either
    await t.admin.delete(`/api/releases/${four.id}`);
    expect((await upload(t.admin, IPA, { channel_key: channel.channel.key })).version).toBe(5);
  });

  it('404 for an unknown (or already deleted) release; 401 without a token', async () => {
    const release = await upload(t.admin, IPA, { channel_key: tree.channel.key });
    expect((await t.anon.delete(`/api/releases/${release.id}`)).status).toBe(401);
    expect((await t.admin.delete(`/api/releases/${release.id}`)).status).toBe(200);
    const again = await t.admin.delete(`/api/releases/${release.id}`);
    expect(again.status).toBe(404);
    expect(again.body.error).toEqual(expect.any(String));
  });
});
