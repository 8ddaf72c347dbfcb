import Database from 'better-sqlite3';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_FILE } from '../../src-server/server.ts';
import { counts, filesUnder } from '../helpers/db.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCollaborator, createAppTree, createUser, unique } from '../helpers/world.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

describe('POST /api/apps', () => {
  it('creates an app owned by the caller: extended answers the App with collaborators', async () => {
    const res = await t.admin.post('/api/apps', { name: 'Ground Control' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      name: 'Ground Control',
      archived: false,
      schemes: [],
      collaborators: [{ id: 1, username: 'admin', email: 'admin@localhost', role: 'admin', owner: true }],
    });
  });

  it('base shape answers an array holding one App with empty schemes', async () => {
    const res = await t.admin.post('/api/apps', { name: 'Major Tom' }, { shape: 'base' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual([{ id: expect.any(Number), name: 'Major Tom', schemes: [] }]);
  });

  it('refuses a missing or empty name with 422 and entry.name', async () => {
    for (const body of [{}, { name: '' }, { name: '   ' }]) {
      const res = await t.admin.post('/api/apps', body);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ error: 'Unprocessable entity', entry: { name: ["can't be blank"] } });
    }
    const none = await t.admin.request('POST', '/api/apps');
    expect(none.status).toBe(422);
    expect(none.body.entry).toEqual({ name: ["can't be blank"] });
  });

  it('counts a name of only invisible characters as blank', async () => {
    for (const name of ['\u200B', '\u00A0\u200B\uFEFF', '\u2060']) {
      const res = await t.admin.post('/api/apps', { name });
      expect(res.status, JSON.stringify(name)).toBe(422);
      expect(res.body.entry).toEqual({ name: ["can't be blank"] });
    }
  });

  it('trims the name and keeps unicode as sent', async () => {
    const res = await t.admin.post('/api/apps', { name: '  测试 🚀 Ünïcødé  ' });
    expect(res.status).toBe(201);
    expect(res.body.name).toBe('测试 🚀 Ünïcødé');
  });

  it('lets a member create an app, who then owns it', async () => {
    const member = await createUser(t, 'member');
    const res = await member.client.post('/api/apps', { name: 'Mine' });
    expect(res.status).toBe(201);
    expect(res.body.collaborators).toEqual([expect.objectContaining({ id: member.id, role: 'admin', owner: true })]);
    const list = await member.client.get('/api/apps');
    expect(list.body.map((a: { id: number }) => a.id)).toEqual([res.body.id]);
  });
});

describe('GET /api/apps', () => {
  let fresh: TestServer;
  beforeAll(async () => {
    fresh = await startTestServer();
    for (let i = 1; i <= 30; i += 1) {
      const res = await fresh.admin.post('/api/apps', { name: `App ${String(i).padStart(2, '0')}` });
      expect(res.status).toBe(201);
    }
  });
  afterAll(() => fresh.close());

  it('pages newest first: 25 by default, then the rest', async () => {
    const first = await fresh.admin.get('/api/apps');
    expect(first.status).toBe(200);
    expect(first.body).toHaveLength(25);
    expect(first.body[0].name).toBe('App 30');
    expect(first.body[24].name).toBe('App 06');
    const second = await fresh.admin.get('/api/apps', { query: { page: 2 } });
    expect(second.body.map((a: { name: string }) => a.name)).toEqual(['App 05', 'App 04', 'App 03', 'App 02', 'App 01']);
    const beyond = await fresh.admin.get('/api/apps', { query: { page: 3 } });
    expect(beyond.body).toEqual([]);
  });

  it('honours per_page within 1..100', async () => {
    expect((await fresh.admin.get('/api/apps', { query: { per_page: 1 } })).body).toHaveLength(1);
    expect((await fresh.admin.get('/api/apps', { query: { per_page: 100 } })).body).toHaveLength(30);
    for (const query of [{ per_page: 0 }, { per_page: 101 }, { page: 0 }, { page: 'x' }]) {
      const res = await fresh.admin.get('/api/apps', { query });
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.entry)).toEqual(Object.keys(query));
    }
  });

  it('filters by scope (all by default) and shows archived only in the extended shape', async () => {
    const list = await fresh.admin.get('/api/apps', { query: { per_page: 100 } });
    const target = list.body[0];
    const archived = await fresh.admin.put(`/api/apps/${target.id}`, { name: target.name, archived: true });
    expect(archived.status).toBe(200);
    expect(archived.body.archived).toBe(true);

    const all = await fresh.admin.get('/api/apps', { query: { per_page: 100 } });
    expect(all.body).toHaveLength(30);
    const onlyArchived = await fresh.admin.get('/api/apps', { query: { scope: 'archived' } });
    expect(onlyArchived.body.map((a: { id: number }) => a.id)).toEqual([target.id]);
    expect(onlyArchived.body[0].archived).toBe(true);
    const active = await fresh.admin.get('/api/apps', { query: { scope: 'active', per_page: 100 } });
    expect(active.body).toHaveLength(29);
    expect(active.body.every((a: { archived: boolean }) => a.archived === false)).toBe(true);

    const base = await fresh.admin.get('/api/apps', { shape: 'base', query: { per_page: 1 } });
    expect(base.body[0]).not.toHaveProperty('archived');
    expect(base.body[0]).not.toHaveProperty('collaborators');
  });

  it('shows members only the apps they collaborate on; developers and admins see all', async () => {
    const member = await createUser(fresh, 'member');
    const developer = await createUser(fresh, 'developer');
    const apps = await fresh.admin.get('/api/apps', { query: { per_page: 3 } });
    await addCollaborator(fresh, apps.body[2].id, member.id, 'member');
    expect((await member.client.get('/api/apps')).body.map((a: { id: number }) => a.id)).toEqual([apps.body[2].id]);
    expect((await developer.client.get('/api/apps', { query: { per_page: 100 } })).body).toHaveLength(30);
  });

  it('lists schemes with their channels, channels without key outside scheme/channel endpoints', async () => {
    const tree = await createAppTree(fresh);
    const base = await fresh.admin.get('/api/apps', { shape: 'base', query: { per_page: 1 } });
    expect(base.body[0]).toEqual({
      id: tree.app.id,
      name: tree.app.name,
      schemes: [
        {
          id: tree.scheme.id,
          name: 'Beta',
          new_build_callout: true,
          retained_builds: 0,
          channels: [{ slug: tree.channel.slug, name: 'Main', device_type: 'ios', bundle_id: '*', git_url: null, has_password: false }],
        },
      ],
    });
    const ext = await fresh.admin.get('/api/apps', { query: { per_page: 1 } });
    expect(ext.body[0].schemes[0].channels[0]).toEqual({
      id: tree.channel.id,
      slug: tree.channel.slug,
      name: 'Main',
      device_type: 'ios',
      bundle_id: '*',
      git_url: null,
      has_password: false,
      download_filename_type: 'version_datetime',
    });
  });
});

describe('GET /api/apps/:id', () => {
  it('answers the app with schemes and channels; collaborators only in the extended shape', async () => {
    const tree = await createAppTree(t);
    const ext = await t.admin.get(`/api/apps/${tree.app.id}`);
    expect(ext.status).toBe(200);
    expect(ext.body.collaborators).toEqual([{ id: 1, username: 'admin', email: 'admin@localhost', role: 'admin', owner: true }]);
    expect(ext.body.schemes[0].channels[0].id).toBe(tree.channel.id);
    const base = await t.admin.get(`/api/apps/${tree.app.id}`, { shape: 'base' });
    expect(Object.keys(base.body)).toEqual(['id', 'name', 'schemes']);
  });

  it('shows collaborators to those who may manage them, not to plain members', async () => {
    const tree = await createAppTree(t);
    const member = await createUser(t, 'member');
    const developer = await createUser(t, 'member');
    await addCollaborator(t, tree.app.id, member.id, 'member');
    await addCollaborator(t, tree.app.id, developer.id, 'developer');
    const asMember = await member.client.get(`/api/apps/${tree.app.id}`);
    expect(asMember.status).toBe(200);
    expect(asMember.body).not.toHaveProperty('collaborators');
    expect(asMember.text).not.toContain(developer.email);
    const asDeveloper = await developer.client.get(`/api/apps/${tree.app.id}`);
    expect(asDeveloper.body.collaborators.map((c: { id: number }) => c.id)).toEqual([1, member.id, developer.id]);
  });

  it('answers 404 "App not found" for an unknown app', async () => {
    const res = await t.admin.get('/api/apps/999999');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'App not found' });
  });
});

describe('PUT /api/apps/:id', () => {
  it('renames: 200 with the App (base: an array holding it)', async () => {
    const tree = await createAppTree(t);
    const ext = await t.admin.put(`/api/apps/${tree.app.id}`, { name: 'Renamed' });
    expect(ext.status).toBe(200);
    expect(ext.body).toMatchObject({ id: tree.app.id, name: 'Renamed', archived: false });
    const base = await t.admin.put(`/api/apps/${tree.app.id}`, { name: 'Renamed again' }, { shape: 'base' });
    expect(base.status).toBe(200);
    expect(base.body).toEqual([expect.objectContaining({ id: tree.app.id, name: 'Renamed again' })]);
  });

  it('requires name on PUT; PATCH changes only what it is sent', async () => {
    const tree = await createAppTree(t);
    const put = await t.admin.put(`/api/apps/${tree.app.id}`, { archived: true });
    expect(put.status).toBe(422);
    expect(put.body.entry).toEqual({ name: ["can't be blank"] });
    const patch = await t.admin.patch(`/api/apps/${tree.app.id}`, { archived: true });
    expect(patch.status).toBe(200);
    expect(patch.body).toMatchObject({ name: tree.app.name, archived: true });
  });

  it('freezes an archived app until it is unarchived (409)', async () => {
    const tree = await createAppTree(t);
    await t.admin.patch(`/api/apps/${tree.app.id}`, { archived: true });
    const rename = await t.admin.put(`/api/apps/${tree.app.id}`, { name: 'x' });
    expect(rename.status).toBe(409);
    expect(rename.body.error).toMatch(/archived/);
    expect((await t.admin.post(`/api/apps/${tree.app.id}/schemes`, { name: 'New' })).status).toBe(409);
    expect((await t.admin.put(`/api/schemes/${tree.scheme.id}`, { name: 'x' })).status).toBe(409);
    expect((await t.admin.post(`/api/schemes/${tree.scheme.id}/channels`, { name: 'x', device_type: 'ios' })).status).toBe(409);
    expect((await t.admin.delete(`/api/channels/${tree.channel.id}`)).status).toBe(409);
    expect((await t.admin.post(`/api/channels/${tree.channel.id}/key`)).status).toBe(409);
    // reading still works
    expect((await t.admin.get(`/api/schemes/${tree.scheme.id}`)).status).toBe(200);
    const unarchive = await t.admin.put(`/api/apps/${tree.app.id}`, { name: 'Back', archived: false });
    expect(unarchive.status).toBe(200);
    expect(unarchive.body).toMatchObject({ name: 'Back', archived: false });
    expect((await t.admin.post(`/api/apps/${tree.app.id}/schemes`, { name: 'New' })).status).toBe(201);
  });

  it('answers 404 for an unknown app', async () => {
    const res = await t.admin.put('/api/apps/999999', { name: 'x' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'App not found' });
  });
});

describe('DELETE /api/apps/:id', () => {
  it('cascades to schemes, channels, releases, debug files, collaborators and their files on disk', async () => {
    const before = counts(t.sql);
    const filesBefore = await filesUnder(t.dataDir);
    const tree = await createAppTree(t);
    const extra = await t.admin.post(`/api/apps/${tree.app.id}/schemes`, { name: 'Release' });
    const channel2 = await t.admin.post(`/api/schemes/${extra.body.id}/channels`, { name: 'Android', device_type: 'android' });
    const member = await createUser(t, 'member');
    await addCollaborator(t, tree.app.id, member.id, 'developer');
    const afterUser = counts(t.sql);

    // Releases and debug files arrive with later issues' upload routes; here they are written the way
    // the storage layer lays them out, so that the cascade has real rows and files to remove.
    const files = t.server.domain.ctx.files;
    const writer = new Database(join(t.dataDir, DATABASE_FILE));
    for (const channelId of [tree.channel.id, channel2.body.id as number]) {
      const relDir = files.releaseDir(channelId, 1);
      await mkdir(files.resolve(relDir), { recursive: true });
      await writeFile(join(files.resolve(relDir), 'app.ipa'), 'binary');
      writer
        .prepare(`INSERT INTO releases (channel_id, version, app_name, bundle_id, release_version, build_version, device_type, file_path, file_name, size, sha256, created_at, updated_at)
                  VALUES (?, 1, 'App', 'com.example', '1.0', '1', 'ios', ?, 'app.ipa', 6, 'x', 0, 0)`)
        .run(channelId, join(relDir, 'app.ipa'));
      const dbgDir = files.debugFileDir(channelId, 1);
      await mkdir(files.resolve(dbgDir), { recursive: true });
      await writeFile(join(files.resolve(dbgDir), 'symbols.zip'), 'zip');
      writer
        .prepare(`INSERT INTO debug_files (channel_id, device_type, release_version, build_version, file_path, file_name, size, sha256, created_at, updated_at)
                  VALUES (?, 'ios', '1.0', '1', ?, 'symbols.zip', 3, ?, 0, 0)`)
        .run(channelId, join(dbgDir, 'symbols.zip'), `sha-${channelId}`);
    }
    writer.close();
    expect((await filesUnder(t.dataDir)).filter((f) => f.startsWith('files/'))).toHaveLength(4);

    const res = await t.admin.delete(`/api/apps/${tree.app.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ mesage: 'OK' });

    const after = counts(t.sql);
    expect(after).toEqual({ ...afterUser, apps: before.apps, schemes: before.schemes, channels: before.channels, collaborators: before.collaborators, releases: before.releases, debug_files: before.debug_files, file_deletions: 0 });
    expect((await filesUnder(t.dataDir)).filter((f) => f.startsWith('files/'))).toEqual(filesBefore.filter((f) => f.startsWith('files/')));
    expect(await readdir(join(t.dataDir, 'files', 'channels'))).toEqual([]);
    expect((await t.admin.get(`/api/apps/${tree.app.id}`)).status).toBe(404);
    expect((await t.admin.get(`/api/schemes/${tree.scheme.id}`)).status).toBe(404);
    expect((await t.admin.get(`/api/channels/${tree.channel.id}`)).status).toBe(404);
    // the user stays; only the collaboration went
    expect((await t.admin.get(`/api/users/${member.id}`)).status).toBe(200);
  });

  it('answers 404 for an unknown app', async () => {
    const res = await t.admin.delete('/api/apps/999999');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'App not found' });
  });
});

describe('schemes', () => {
  it('creates with defaults (callout on, retain all), 201 with empty channels; base adds app', async () => {
    const tree = await createAppTree(t);
    const ext = await t.admin.post(`/api/apps/${tree.app.id}/schemes`, { name: 'Nightly' });
    expect(ext.status).toBe(201);
    expect(ext.body).toEqual({ id: expect.any(Number), name: 'Nightly', new_build_callout: true, retained_builds: 0, channels: [] });
    const base = await t.admin.post(`/api/apps/${tree.app.id}/schemes`, { name: 'Store', new_build_callout: false, retained_builds: 5 }, { shape: 'base' });
    expect(base.status).toBe(201);
    expect(base.body).toEqual({ id: expect.any(Number), name: 'Store', new_build_callout: false, retained_builds: 5, app: { id: tree.app.id, name: tree.app.name }, channels: [] });
  });

  it('lists an app\'s schemes with channels (keys in the base shape), gets, updates and deletes one', async () => {
    const tree = await createAppTree(t);
    const list = await t.admin.get(`/api/apps/${tree.app.id}/schemes`, { shape: 'base' });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      {
        id: tree.scheme.id,
        name: 'Beta',
        new_build_callout: true,
        retained_builds: 0,
        app: { id: tree.app.id, name: tree.app.name },
        channels: [{ slug: tree.channel.slug, name: 'Main', device_type: 'ios', bundle_id: '*', git_url: null, has_password: false, key: tree.channel.key }],
      },
    ]);
    const one = await t.admin.get(`/api/schemes/${tree.scheme.id}`);
    expect(one.body).toMatchObject({ id: tree.scheme.id, name: 'Beta' });
    expect(one.body).not.toHaveProperty('app');

    const put = await t.admin.put(`/api/schemes/${tree.scheme.id}`, { name: 'Gamma', new_build_callout: false, retained_builds: 3 });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ name: 'Gamma', new_build_callout: false, retained_builds: 3 });
    const patch = await t.admin.patch(`/api/schemes/${tree.scheme.id}`, { retained_builds: 0 });
    expect(patch.body).toMatchObject({ name: 'Gamma', new_build_callout: false, retained_builds: 0 });
    expect((await t.admin.put(`/api/schemes/${tree.scheme.id}`, { retained_builds: 1 })).status).toBe(422);

    const del = await t.admin.delete(`/api/schemes/${tree.scheme.id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ mesage: 'OK' });
    expect((await t.admin.get(`/api/channels/${tree.channel.id}`)).status).toBe(404);
    expect((await t.admin.get(`/api/apps/${tree.app.id}/schemes`)).body).toEqual([]);
  });

  it('answers 404 for unknown schemes and apps, 422 for a blank name', async () => {
    for (const [method, path] of [['GET', '/api/schemes/999999'], ['PUT', '/api/schemes/999999'], ['DELETE', '/api/schemes/999999'], ['GET', '/api/schemes/999999/channels']] as const) {
      const res = await t.admin.request(method, path, method === 'PUT' ? { json: { name: 'x' } } : {});
      expect(res.status, path).toBe(404);
      expect(res.body).toEqual({ error: 'Scheme not found' });
    }
    expect((await t.admin.get('/api/apps/999999/schemes')).body).toEqual({ error: 'App not found' });
    expect((await t.admin.post('/api/apps/999999/schemes', { name: 'x' })).status).toBe(404);
    const tree = await createAppTree(t);
    const blank = await t.admin.post(`/api/apps/${tree.app.id}/schemes`, { name: '' });
    expect(blank.status).toBe(422);
    expect(blank.body.entry).toEqual({ name: ["can't be blank"] });
  });
});

describe('channels', () => {
  it('creates with every field; the password is never returned, only has_password', async () => {
    const tree = await createAppTree(t);
    const res = await t.admin.post(`/api/schemes/${tree.scheme.id}/channels`, {
      name: 'Store',
      device_type: 'Android',
      slug: 'store-build',
      bundle_id: 'com.example.app',
      git_url: 'git@example.com:team/app.git',
      password: 'open sesame',
      download_filename_type: 'original_filename',
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      slug: 'store-build',
      name: 'Store',
      device_type: 'android',
      bundle_id: 'com.example.app',
      git_url: 'git@example.com:team/app.git',
      has_password: true,
      download_filename_type: 'original_filename',
    });
    expect(res.text).not.toContain('open sesame');
    const stored = t.sql.prepare('SELECT password_hash FROM channels WHERE id = ?').get(res.body.id) as { password_hash: string };
    expect(stored.password_hash).toMatch(/^scrypt\$/);
    expect(stored.password_hash).not.toContain('open sesame');
  });

  it('base shape shows key (not id, not download_filename_type) on channel endpoints', async () => {
    const tree = await createAppTree(t);
    const res = await t.admin.get(`/api/channels/${tree.channel.id}`, { shape: 'base' });
    expect(res.body).toEqual({ slug: tree.channel.slug, name: 'Main', device_type: 'ios', bundle_id: '*', git_url: null, has_password: false, key: tree.channel.key });
    const list = await t.admin.get(`/api/schemes/${tree.scheme.id}/channels`, { shape: 'base' });
    expect(list.body).toEqual([res.body]);
    expect(tree.channel.key).toMatch(/^[0-9a-f]{32}$/);
  });

  it('gives a random url-safe slug when none or an empty one is sent; a PUT without slug keeps it', async () => {
    const tree = await createAppTree(t);
    const a = await t.admin.post(`/api/schemes/${tree.scheme.id}/channels`, { name: 'A', device_type: 'ios' });
    const b = await t.admin.post(`/api/schemes/${tree.scheme.id}/channels`, { name: 'B', device_type: 'ios', slug: '' });
    expect(a.body.slug).toMatch(/^[a-z2-9]{8}$/);
    expect(b.body.slug).toMatch(/^[a-z2-9]{8}$/);
    expect(a.body.slug).not.toBe(b.body.slug);
    const kept = await t.admin.put(`/api/channels/${a.body.id}`, { name: 'A2', device_type: 'ios' });
    expect(kept.body.slug).toBe(a.body.slug);
    const renewed = await t.admin.put(`/api/channels/${a.body.id}`, { name: 'A2', device_type: 'ios', slug: '' });
    expect(renewed.body.slug).toMatch(/^[a-z2-9]{8}$/);
    expect(renewed.body.slug).not.toBe(a.body.slug);
  });

  it('refuses a taken or reserved slug with 422', async () => {
    const tree = await createAppTree(t);
    const taken = await t.admin.post(`/api/schemes/${tree.scheme.id}/channels`, { name: 'Dup', device_type: 'ios', slug: tree.channel.slug });
    expect(taken.status).toBe(422);
    expect(taken.body.entry).toEqual({ slug: ['has already been taken'] });
    const differentCase = await t.admin.post(`/api/schemes/${tree.scheme.id}/channels`, { name: 'Dup', device_type: 'ios', slug: tree.channel.slug.toUpperCase() });
    expect(differentCase.status).toBe(422);
    expect(differentCase.body.entry).toEqual({ slug: ['has already been taken'] });
    for (const slug of ['api', 'Download', 'udid']) {
      const res = await t.admin.post(`/api/schemes/${tree.scheme.id}/channels`, { name: 'R', device_type: 'ios', slug });
      expect(res.status, slug).toBe(422);
      expect(res.body.entry).toEqual({ slug: ['is reserved'] });
    }
  });

  it('updates the password (empty clears it) and other fields; PATCH keeps the rest', async () => {
    const tree = await createAppTree(t);
    const set = await t.admin.patch(`/api/channels/${tree.channel.id}`, { password: 'secret' });
    expect(set.body.has_password).toBe(true);
    const other = await t.admin.patch(`/api/channels/${tree.channel.id}`, { bundle_id: 'com.x' });
    expect(other.body).toMatchObject({ has_password: true, bundle_id: 'com.x', name: 'Main' });
    const cleared = await t.admin.patch(`/api/channels/${tree.channel.id}`, { password: '' });
    expect(cleared.body.has_password).toBe(false);
    const put = await t.admin.put(`/api/channels/${tree.channel.id}`, { name: 'Renamed', device_type: 'MACOS', git_url: null, bundle_id: '' });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ name: 'Renamed', device_type: 'macos', git_url: null, bundle_id: '*' });
    const missing = await t.admin.put(`/api/channels/${tree.channel.id}`, { name: 'Renamed' });
    expect(missing.status).toBe(422);
    expect(missing.body.entry).toEqual({ device_type: ["can't be blank"] });
  });

  it('accepts harmonyos only in the extended shape', async () => {
    const tree = await createAppTree(t);
    const ext = await t.admin.post(`/api/schemes/${tree.scheme.id}/channels`, { name: 'HM', device_type: 'HarmonyOS' });
    expect(ext.status).toBe(201);
    expect(ext.body.device_type).toBe('harmonyos');
    const base = await t.admin.post(`/api/schemes/${tree.scheme.id}/channels`, { name: 'HM', device_type: 'harmonyos' }, { shape: 'base' });
    expect(base.status).toBe(422);
    expect(base.body.entry).toEqual({ device_type: ['is not included in the list'] });
    const bogus = await t.admin.post(`/api/schemes/${tree.scheme.id}/channels`, { name: 'X', device_type: 'symbian' });
    expect(bogus.status).toBe(422);
    expect(bogus.body.entry).toEqual({ device_type: ['is not included in the list'] });
  });

  it('reads and regenerates the channel key; the old one is gone', async () => {
    const tree = await createAppTree(t);
    const read = await t.admin.get(`/api/channels/${tree.channel.id}/key`);
    expect(read.body).toEqual({ key: tree.channel.key });
    const renewed = await t.admin.post(`/api/channels/${tree.channel.id}/key`);
    expect(renewed.status).toBe(200);
    expect(renewed.body.key).toMatch(/^[0-9a-f]{32}$/);
    expect(renewed.body.key).not.toBe(tree.channel.key);
    const count = t.sql.prepare('SELECT count(*) AS n FROM channels WHERE key = ?').get(tree.channel.key) as { n: number };
    expect(count.n).toBe(0);
  });

  it('deletes a channel (200 mesage OK), and answers 404 for unknown ones', async () => {
    const tree = await createAppTree(t);
    const del = await t.admin.delete(`/api/channels/${tree.channel.id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ mesage: 'OK' });
    for (const [method, path] of [['GET', `/api/channels/${tree.channel.id}`], ['DELETE', `/api/channels/${tree.channel.id}`], ['PUT', '/api/channels/999999'], ['GET', '/api/channels/999999/key']] as const) {
      const res = await t.admin.request(method, path, method === 'PUT' ? { json: { name: 'x', device_type: 'ios' } } : {});
      expect(res.status, path).toBe(404);
      expect(res.body).toEqual({ error: 'Channel not found' });
    }
    expect((await t.admin.post('/api/schemes/999999/channels', { name: 'x', device_type: 'ios' })).body).toEqual({ error: 'Scheme not found' });
  });

  it('accepts form-encoded bodies as curl -d sends them', async () => {
    const tree = await createAppTree(t);
    const res = await t.admin.request('POST', `/api/schemes/${tree.scheme.id}/channels`, { form: { name: 'Form', device_type: 'linux', slug: unique('form') } });
    expect(res.status).toBe(201);
    expect(res.body.device_type).toBe('linux');
  });
});
