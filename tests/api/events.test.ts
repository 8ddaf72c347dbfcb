/**
 * GET /api/events (R13): the live events consoles receive over server-sent events, who receives them,
 * and that open streams never hold up a stop.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, fixturesMissing } from '../helpers/fixtures.ts';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.ts';
import { SseStream, type SseEvent } from '../helpers/sse.ts';
import { upload } from '../helpers/upload.ts';
import { addCollaborator, createAppTree, createUser, type AppTree, type TestUser } from '../helpers/world.ts';

const IPA = fixture('ios', 'bundle-1.0-b1-ipad-cgbi-icons.ipa');

let t: TestServer;
const streams: SseStream[] = [];
async function connect(token: string | null, query = ''): Promise<SseStream> {
  const stream = await SseStream.open(`${t.url}/api/events${query}`, token);
  streams.push(stream);
  return stream;
}

const ofRelease = (events: SseEvent[], id: number) => events.filter((e) => e.data?.release_id === id);

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  for (const stream of streams) stream.close();
  await t?.close();
});

describe('GET /api/events: access', () => {
  it('needs a token: 401 without one, or with an unknown one', async () => {
    for (const token of [null, 'hgr_not-a-token-at-all-0000000000']) {
      const res = await fetch(`${t.url}/api/events`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect((await res.json()).error).toEqual(expect.any(String));
    }
  });

  it('answers a text/event-stream to a signed-in user (Bearer or ?token=)', async () => {
    const viaHeader = await connect(ADMIN_TOKEN);
    expect(viaHeader.status).toBe(200);
    expect(viaHeader.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(viaHeader.headers.get('cache-control')).toContain('no-store');
    viaHeader.close();
    const viaQuery = await connect(null, `?token=${ADMIN_TOKEN}`);
    expect(viaQuery.status).toBe(200);
    viaQuery.close();
  });
});

describe.skipIf(fixturesMissing !== null)('GET /api/events: what a console receives', () => {
  let tree: AppTree;
  let admin: SseStream;

  beforeAll(async () => {
    if (fixturesMissing) return;
    tree = await createAppTree(t);
    admin = await connect(ADMIN_TOKEN);
    expect(admin.status).toBe(200);
  });

  it('an upload to a scheme with new_build_callout true: release.created and build.available (snake_case JSON)', async () => {
    const release = await upload(t.admin, IPA, { channel_key: tree.channel.key });
    const created = await admin.next('release.created', { release_id: release.id });
    expect(created.data).toEqual({
      type: 'release.created',
      app_id: tree.app.id,
      scheme_id: tree.scheme.id,
      channel_id: tree.channel.id,
      release_id: release.id,
      new_build_callout: true,
    });
    const available = await admin.next('build.available', { release_id: release.id });
    expect(available.data).toMatchObject({ type: 'build.available', app_id: tree.app.id, channel_id: tree.channel.id, release_id: release.id });
  });

  it('new_build_callout false: release.created but no build.available', async () => {
    const quiet = await createAppTree(t);
    const patched = await t.admin.patch(`/api/schemes/${quiet.scheme.id}`, { new_build_callout: false });
    expect(patched.status, patched.text).toBe(200);
    const release = await upload(t.admin, IPA, { channel_key: quiet.channel.key });
    const created = await admin.next('release.created', { release_id: release.id });
    expect(created.data.new_build_callout).toBe(false);
    // a later event of the same release: everything the upload raised has arrived before it
    expect((await t.admin.patch(`/api/releases/${release.id}`, { source: 'marker' })).status).toBe(200);
    await admin.next('release.updated', { release_id: release.id });
    expect(ofRelease(admin.events, release.id).map((e) => e.event)).toEqual(['release.created', 'release.updated']);
  });

  it('release.updated on PUT /api/releases/:id', async () => {
    const release = await upload(t.admin, IPA, { channel_key: tree.channel.key });
    const put = await t.admin.put(`/api/releases/${release.id}`, { changelog: 'fixed it' });
    expect(put.status, put.text).toBe(200);
    const updated = await admin.next('release.updated', { release_id: release.id });
    expect(updated.data).toMatchObject({ type: 'release.updated', app_id: tree.app.id, channel_id: tree.channel.id, release_id: release.id, changelog_changed: true });
  });

  it('release.deleted on DELETE /api/releases/:id', async () => {
    const release = await upload(t.admin, IPA, { channel_key: tree.channel.key });
    const deleted = await t.admin.delete(`/api/releases/${release.id}`);
    expect(deleted.status, deleted.text).toBe(200);
    const event = await admin.next('release.deleted', { release_id: release.id });
    expect(event.data).toMatchObject({ type: 'release.deleted', app_id: tree.app.id, channel_id: tree.channel.id, release_id: release.id, reason: 'request' });
  });

  it('release.deleted when retention removes a build', async () => {
    const kept = await createAppTree(t);
    const patched = await t.admin.patch(`/api/schemes/${kept.scheme.id}`, { retained_builds: 1 });
    expect(patched.status, patched.text).toBe(200);
    const first = await upload(t.admin, IPA, { channel_key: kept.channel.key });
    const second = await upload(t.admin, IPA, { channel_key: kept.channel.key });
    const event = await admin.next('release.deleted', { release_id: first.id });
    expect(event.data).toMatchObject({ type: 'release.deleted', app_id: kept.app.id, channel_id: kept.channel.id, release_id: first.id, reason: 'retention' });
    await admin.next('release.created', { release_id: second.id });
  });

  it('release.downloaded on a download', async () => {
    const release = await upload(t.admin, IPA, { channel_key: tree.channel.key });
    const redirect = await fetch(`${t.url}/download/releases/${release.id}`, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    const file = await fetch(new URL(redirect.headers.get('location')!, t.url));
    expect(file.status).toBe(200);
    await file.arrayBuffer();
    const event = await admin.next('release.downloaded', { release_id: release.id });
    expect(event.data).toMatchObject({ type: 'release.downloaded', app_id: tree.app.id, channel_id: tree.channel.id, release_id: release.id });
  });

  it('every data line is JSON with type, app_id, channel_id and release_id, and type matches the event name', () => {
    expect(admin.events.length).toBeGreaterThan(0);
    for (const event of admin.events) {
      expect(event.data.type, event.raw).toBe(event.event);
      for (const key of ['app_id', 'channel_id', 'release_id']) expect(Number.isInteger(event.data[key]), `${key} in ${event.raw}`).toBe(true);
      for (const key of Object.keys(event.data)) expect(key, event.raw).toMatch(/^[a-z_]+$/);
    }
  });
});

describe.skipIf(fixturesMissing !== null)('GET /api/events: who receives what', () => {
  let outsider: TestUser;
  let reader: TestUser;

  beforeAll(async () => {
    if (fixturesMissing) return;
    outsider = await createUser(t, 'member');
    reader = await createUser(t, 'member');
  });

  it('a member who does not collaborate on an app receives none of its events; an app member does', async () => {
    const tree = await createAppTree(t);
    await addCollaborator(t, tree.app.id, reader.id, 'member');
    const own = await createAppTree(t, outsider.client);
    const outsiderStream = await connect(outsider.token);
    const readerStream = await connect(reader.token);
    expect([outsiderStream.status, readerStream.status]).toEqual([200, 200]);

    const release = await upload(t.admin, IPA, { channel_key: tree.channel.key });
    await t.admin.put(`/api/releases/${release.id}`, { changelog: 'x' });
    const redirect = await fetch(`${t.url}/download/releases/${release.id}`, { redirect: 'manual' });
    await (await fetch(new URL(redirect.headers.get('location')!, t.url))).arrayBuffer();
    await t.admin.delete(`/api/releases/${release.id}`);

    // the collaborator sees all of it
    await readerStream.next('release.deleted', { release_id: release.id });
    expect(ofRelease(readerStream.events, release.id).map((e) => e.event)).toEqual([
      'release.created',
      'build.available',
      'release.updated',
      'release.downloaded',
      'release.deleted',
    ]);
    // the outsider: a marker on their own app arrives, and nothing of the other app before it
    const mine = await upload(outsider.client, IPA, { channel_key: own.channel.key });
    await outsiderStream.next('release.created', { release_id: mine.id });
    expect(outsiderStream.events.filter((e) => e.data.app_id !== own.app.id)).toEqual([]);
    expect(readerStream.events.filter((e) => e.data.app_id === own.app.id)).toEqual([]);
  });
});

describe.skipIf(fixturesMissing !== null)('GET /api/events: losing access', () => {
  it('a collaborator taken off the app stops receiving its events', async () => {
    const tree = await createAppTree(t);
    const user = await createUser(t, 'member');
    await addCollaborator(t, tree.app.id, user.id, 'member');
    const stream = await connect(user.token);
    const before = await upload(t.admin, IPA, { channel_key: tree.channel.key });
    await stream.next('release.created', { release_id: before.id });
    expect((await t.admin.delete(`/api/apps/${tree.app.id}/collaborators/${user.id}`)).status).toBe(200);
    const after = await upload(t.admin, IPA, { channel_key: tree.channel.key });
    // a marker: the admin's own stream has seen the upload, so the user's would have too
    const admin = await connect(ADMIN_TOKEN);
    await t.admin.patch(`/api/releases/${after.id}`, { source: 'marker' });
    await admin.next('release.updated', { release_id: after.id });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ofRelease(stream.events, after.id)).toEqual([]);
  });

  it('a user who is locked (R16) receives nothing more on a stream opened before', async () => {
    const tree = await createAppTree(t);
    const user = await createUser(t, 'member');
    await addCollaborator(t, tree.app.id, user.id, 'member');
    const stream = await connect(user.token);
    expect(stream.status).toBe(200);
    expect((await t.admin.post(`/api/users/${user.id}/lock`)).status).toBe(202);
    const release = await upload(t.admin, IPA, { channel_key: tree.channel.key });
    const admin = await connect(ADMIN_TOKEN);
    await t.admin.patch(`/api/releases/${release.id}`, { source: 'marker' });
    await admin.next('release.updated', { release_id: release.id });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ofRelease(stream.events, release.id).map((e) => e.event), 'events delivered to a locked user').toEqual([]);
  });
});

describe('stopping the server ends open event streams', () => {
  it('server.close() finishes in well under the 4.5 s shutdown timeout while a stream is open', async () => {
    const own = await startTestServer();
    let closed = false;
    try {
      const stream = await SseStream.open(`${own.url}/api/events`, ADMIN_TOKEN);
      expect(stream.status).toBe(200);
      const started = Date.now();
      await own.close();
      closed = true;
      const took = Date.now() - started;
      expect(took, `server.close() took ${took} ms with an event stream open`).toBeLessThan(2_000);
      await stream.waitForEnd(1_000);
      expect(stream.endedAt! - started).toBeLessThan(2_000);
    } finally {
      if (!closed) await own.close();
    }
  });
});
