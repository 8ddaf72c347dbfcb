/**
 * Per-channel webhooks (R13): settings, permissions, validation, and real deliveries to a real HTTP
 * receiver on 127.0.0.1, raised by real uploads, downloads and changelog edits; retries with a
 * shortened backoff, failure after the last attempt, the kept deliveries, a restart with a delivery
 * pending, and secrets kept out of bodies and logs.
 */
import { createHmac } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src-server/config/config.ts';
import { logFilePath } from '../../src-server/http/logging.ts';
import { startServer } from '../../src-server/server.ts';
import { ApiClient } from '../helpers/client.ts';
import { fixture, fixturesMissing } from '../helpers/fixtures.ts';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.ts';
import { addCollaborator, createAppTree, createUser, type AppTree } from '../helpers/world.ts';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
/** Shortened for the tests: 3 attempts, 300 ms and 600 ms apart. */
const RETRY_DELAYS_MS = [300, 600];
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

// ---- a real receiver ------------------------------------------------------------------------

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
  at: number;
  status: number;
}

class Receiver {
  readonly received: Received[] = [];
  /** the status to answer a request with (by default 200) */
  respond: (request: { path: string; body: string; count: number }) => number = () => 200;
  private readonly server: Server;
  url = '';

  constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const path = req.url ?? '/';
        const count = this.received.filter((r) => r.path === path).length + 1;
        const status = this.respond({ path, body, count });
        let json: unknown = null;
        try {
          json = JSON.parse(body);
        } catch {
          // recorded as text
        }
        this.received.push({ path, headers: req.headers, body, json, at: Date.now(), status });
        res.writeHead(status, { 'content-type': 'text/plain' });
        res.end(status < 300 ? 'thanks' : 'nope');
      });
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

async function waitFor<T>(what: string, probe: () => T | undefined | null | false | Promise<T | undefined | null | false>, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function sign(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

let pathCounter = 0;
/** A fresh path on the receiver, so each test reads only its own requests. */
function hookPath(): string {
  pathCounter += 1;
  return `/hook/${pathCounter}`;
}

// ---- the world ------------------------------------------------------------------------------

let t: TestServer;
let receiver: Receiver;
/** every secret handed out: none may appear in a delivery or in the log */
const secrets: string[] = [];

beforeAll(async () => {
  receiver = await new Receiver().start();
  t = await startTestServer({}, { webhooks: { retryDelaysMs: RETRY_DELAYS_MS, timeoutMs: 2_000 } });
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

async function createWebhook(client: ApiClient, channelId: number, body: Record<string, unknown>) {
  const res = await client.post(`/api/channels/${channelId}/webhooks`, body);
  expect(res.status, res.text).toBe(201);
  secrets.push(res.body.secret);
  return res.body as { id: number; secret: string; url: string; events: string[]; enabled: boolean };
}

async function deliveries(webhookId: number, client: ApiClient = t.admin): Promise<any[]> {
  const res = await client.get(`/api/webhooks/${webhookId}/deliveries`);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

async function settled(webhookId: number, count: number): Promise<any[]> {
  return waitFor(`${count} finished deliveries of webhook ${webhookId}`, async () => {
    const list = await deliveries(webhookId);
    return list.length >= count && list.every((d) => d.state !== 'pending') && list;
  });
}

// ---- settings -------------------------------------------------------------------------------

describe('webhook settings', () => {
  let tree: AppTree;
  beforeAll(async () => {
    tree = await createAppTree(t);
  });

  it('creates a webhook: 201 with its secret, shown once', async () => {
    const res = await t.admin.post(`/api/channels/${tree.channel.id}/webhooks`, { url: `${receiver.url}/a`, events: ['changelog', 'upload', 'upload'] });
    expect(res.status, res.text).toBe(201);
    secrets.push(res.body.secret);
    expect(res.body).toEqual({
      id: expect.any(Number),
      channel_id: tree.channel.id,
      url: `${receiver.url}/a`,
      events: ['upload', 'changelog'],
      enabled: true,
      secret: expect.stringMatching(/^[0-9a-f]{64}$/),
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const id = res.body.id;

    const got = await t.admin.get(`/api/webhooks/${id}`);
    expect(got.status).toBe(200);
    expect(got.body).not.toHaveProperty('secret');
    const list = await t.admin.get(`/api/channels/${tree.channel.id}/webhooks`);
    expect(list.status).toBe(200);
    expect(list.body.map((w: any) => w.id)).toContain(id);
    for (const w of list.body) expect(w).not.toHaveProperty('secret');
    expect(list.text).not.toContain(res.body.secret);
  });

  it('timestamps follow the shape', async () => {
    const hook = await createWebhook(t.admin, tree.channel.id, { url: `${receiver.url}/b`, events: ['download'] });
    const base = await t.admin.get(`/api/webhooks/${hook.id}`, { shape: 'base' });
    expect(base.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+08:00$/);
    const extended = await t.admin.get(`/api/webhooks/${hook.id}`, { shape: 'extended' });
    expect(extended.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \+0800$/);
  });

  it('updates with PUT and PATCH; the secret stays and is not shown', async () => {
    const hook = await createWebhook(t.admin, tree.channel.id, { url: `${receiver.url}/c`, events: ['upload'] });
    const patched = await t.admin.patch(`/api/webhooks/${hook.id}`, { enabled: false });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ id: hook.id, url: `${receiver.url}/c`, events: ['upload'], enabled: false });
    expect(patched.body).not.toHaveProperty('secret');

    const put = await t.admin.put(`/api/webhooks/${hook.id}`, { url: `${receiver.url}/d`, events: ['download', 'changelog'], enabled: true });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({ url: `${receiver.url}/d`, events: ['download', 'changelog'], enabled: true });

    const putMissing = await t.admin.put(`/api/webhooks/${hook.id}`, { url: `${receiver.url}/e` });
    expect(putMissing.status).toBe(422);
    expect(putMissing.body.entry).toEqual({ events: ["can't be blank"] });
  });

  it('accepts a form body with comma-separated events', async () => {
    const res = await t.admin.request('POST', `/api/channels/${tree.channel.id}/webhooks`, { form: { url: `${receiver.url}/form`, events: 'upload, download' } });
    expect(res.status, res.text).toBe(201);
    secrets.push(res.body.secret);
    expect(res.body.events).toEqual(['upload', 'download']);
  });

  it('deletes: {"mesage":"OK"}, then 404 "Webhook not found"', async () => {
    const hook = await createWebhook(t.admin, tree.channel.id, { url: `${receiver.url}/gone`, events: ['upload'] });
    const res = await t.admin.delete(`/api/webhooks/${hook.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ mesage: 'OK' });
    for (const probe of [t.admin.get(`/api/webhooks/${hook.id}`), t.admin.delete(`/api/webhooks/${hook.id}`), t.admin.get(`/api/webhooks/${hook.id}/deliveries`)]) {
      const gone = await probe;
      expect(gone.status).toBe(404);
      expect(gone.body).toEqual({ error: 'Webhook not found' });
    }
    const noChannel = await t.admin.get('/api/channels/999999/webhooks');
    expect(noChannel.status).toBe(404);
    expect(noChannel.body).toEqual({ error: 'Channel not found' });
  });

  it('refuses invalid input with 422 and entry', async () => {
    const url = `${receiver.url}/x`;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ url: 'ftp://example.com/hook', events: ['upload'] }, 'url'],
      [{ url: 'not a url', events: ['upload'] }, 'url'],
      [{ url: 'javascript:alert(1)', events: ['upload'] }, 'url'],
      [{ url: 'http://user:pass@example.com/hook', events: ['upload'] }, 'url'],
      [{ url: `http://example.com/${'a'.repeat(2048)}`, events: ['upload'] }, 'url'],
      [{ url: '', events: ['upload'] }, 'url'],
      [{ events: ['upload'] }, 'url'],
      [{ url, events: ['deploy'] }, 'events.0'],
      [{ url, events: ['upload', 'nope'] }, 'events.1'],
      [{ url, events: [] }, 'events'],
      [{ url, events: 'upload' }, 'events'],
      [{ url }, 'events'],
      [{ url, events: ['upload'], enabled: 'yes' }, 'enabled'],
    ];
    for (const [body, field] of cases) {
      const res = await t.admin.post(`/api/channels/${tree.channel.id}/webhooks`, body);
      expect(res.status, `${JSON.stringify(body).slice(0, 80)}: ${res.text}`).toBe(422);
      expect(res.body.error).toBe('Unprocessable entity');
      expect(Object.keys(res.body.entry), JSON.stringify(body).slice(0, 80)).toEqual([field]);
    }
    const hook = await createWebhook(t.admin, tree.channel.id, { url, events: ['upload'] });
    const empty = await t.admin.patch(`/api/webhooks/${hook.id}`, { events: [] });
    expect(empty.status).toBe(422);
    expect(Object.keys(empty.body.entry)).toEqual(['events']);
    const bad = await t.admin.patch(`/api/webhooks/${hook.id}`, { url: 'gopher://example.com' });
    expect(bad.status).toBe(422);
    expect(bad.body.entry).toEqual({ url: ['must be an absolute http or https URL'] });
  });

  it("freezes an archived app's webhooks (409)", async () => {
    const archivedTree = await createAppTree(t);
    const hook = await createWebhook(t.admin, archivedTree.channel.id, { url: `${receiver.url}/frozen`, events: ['upload'] });
    expect((await t.admin.patch(`/api/apps/${archivedTree.app.id}`, { archived: true })).status).toBe(200);
    const created = await t.admin.post(`/api/channels/${archivedTree.channel.id}/webhooks`, { url: `${receiver.url}/frozen`, events: ['upload'] });
    expect(created.status).toBe(409);
    expect((await t.admin.patch(`/api/webhooks/${hook.id}`, { enabled: false })).status).toBe(409);
    expect((await t.admin.delete(`/api/webhooks/${hook.id}`)).status).toBe(409);
    expect((await t.admin.get(`/api/webhooks/${hook.id}`)).status).toBe(200);
    expect((await t.admin.patch(`/api/apps/${archivedTree.app.id}`, { archived: false })).status).toBe(200);
    expect((await t.admin.delete(`/api/webhooks/${hook.id}`)).status).toBe(200);
  });
});

// ---- permissions ----------------------------------------------------------------------------

describe('permissions: app manage, for reading too', () => {
  it('a member collaborator gets 403, a developer collaborator 2xx, anonymous 401', async () => {
    const tree = await createAppTree(t);
    const member = await createUser(t, 'member');
    const developer = await createUser(t, 'member');
    const outsider = await createUser(t, 'member');
    await addCollaborator(t, tree.app.id, member.id, 'member');
    await addCollaborator(t, tree.app.id, developer.id, 'developer');
    const hook = await createWebhook(t.admin, tree.channel.id, { url: `${receiver.url}${hookPath()}`, events: ['upload'] });
    const test = await t.admin.post(`/api/webhooks/${hook.id}/test`);
    expect(test.status).toBe(202);

    const calls: Array<[string, string, unknown?]> = [
      ['GET', `/api/channels/${tree.channel.id}/webhooks`],
      ['POST', `/api/channels/${tree.channel.id}/webhooks`, { url: `${receiver.url}/p`, events: ['upload'] }],
      ['GET', `/api/webhooks/${hook.id}`],
      ['PUT', `/api/webhooks/${hook.id}`, { url: `${receiver.url}/p`, events: ['upload'] }],
      ['PATCH', `/api/webhooks/${hook.id}`, { enabled: true }],
      ['GET', `/api/webhooks/${hook.id}/deliveries`],
      ['POST', `/api/webhooks/${hook.id}/test`],
      ['POST', `/api/webhooks/${hook.id}/deliveries/${test.body.id}/redeliver`],
    ];
    for (const [method, path, json] of calls) {
      for (const client of [member.client, outsider.client]) {
        const res = await client.request(method, path, json === undefined ? {} : { json });
        expect(res.status, `${method} ${path}`).toBe(403);
      }
      expect((await t.anon.request(method, path, json === undefined ? {} : { json })).status, `${method} ${path}`).toBe(401);
      const allowed = await developer.client.request(method, path, json === undefined ? {} : { json });
      expect(allowed.status, `${method} ${path}: ${allowed.text}`).toBeGreaterThanOrEqual(200);
      expect(allowed.status, `${method} ${path}: ${allowed.text}`).toBeLessThan(300);
      if (method === 'POST' && path.endsWith('/webhooks')) secrets.push(allowed.body.secret);
    }
    expect((await member.client.delete(`/api/webhooks/${hook.id}`)).status).toBe(403);
    expect((await developer.client.delete(`/api/webhooks/${hook.id}`)).status).toBe(200);
  });

  it('an unknown webhook is 404, an unknown delivery of a known one too', async () => {
    expect((await t.admin.get('/api/webhooks/999999')).status).toBe(404);
    const tree = await createAppTree(t);
    const hook = await createWebhook(t.admin, tree.channel.id, { url: `${receiver.url}${hookPath()}`, events: ['upload'] });
    const res = await t.admin.post(`/api/webhooks/${hook.id}/deliveries/999999/redeliver`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Delivery not found' });
  });
});

// ---- real events ----------------------------------------------------------------------------

describe.skipIf(fixturesMissing !== null)('deliveries of real events', () => {
  let tree: AppTree;
  let path: string;
  let hook: { id: number; secret: string };
  let downloadOnlyPath: string;
  let disabledPath: string;
  let upload: any;

  beforeAll(async () => {
    tree = await createAppTree(t);
    path = hookPath();
    downloadOnlyPath = hookPath();
    disabledPath = hookPath();
    hook = await createWebhook(t.admin, tree.channel.id, { url: `${receiver.url}${path}`, events: ['upload', 'download', 'changelog'] });
    await createWebhook(t.admin, tree.channel.id, { url: `${receiver.url}${downloadOnlyPath}`, events: ['download'] });
    await createWebhook(t.admin, tree.channel.id, { url: `${receiver.url}${disabledPath}`, events: ['upload', 'download', 'changelog'], enabled: false });

    const file = fixture('ios', 'bundle-1.0-b1-ipad-cgbi-icons.ipa');
    expect(existsSync(file)).toBe(true);
    const form = new FormData();
    form.set('channel_key', tree.channel.key);
    form.set('changelog', '- First line\n- Second line');
    form.set('file', new Blob([readFileSync(file)]), 'bundle.ipa');
    const res = await fetch(`${t.url}/api/apps/upload`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, body: form });
    upload = await res.json();
    expect(res.status, JSON.stringify(upload)).toBe(201);
  });

  it('an upload sends `upload` with the documented payload and a valid signature', async () => {
    const [request] = await waitFor('the upload delivery', () => receiver.at(path).length >= 1 && receiver.at(path));
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['user-agent']).toBe(`Hangar/${VERSION}`);
    expect(request!.headers['x-hangar-event']).toBe('upload');
    expect(request!.headers['x-hangar-signature']).toBe(sign(request!.body, hook.secret));
    const payload = request!.json;
    expect(Object.keys(payload)).toEqual(['event', 'delivery_id', 'sent_at', 'app', 'scheme', 'channel', 'release']);
    expect(payload).toEqual({
      event: 'upload',
      delivery_id: Number(request!.headers['x-hangar-delivery']),
      sent_at: expect.stringMatching(ISO_UTC),
      app: { id: tree.app.id, name: tree.app.name },
      scheme: { id: tree.scheme.id, name: tree.scheme.name },
      channel: { id: tree.channel.id, slug: tree.channel.slug, name: 'Main', device_type: 'ios' },
      release: {
        id: upload.id,
        version: upload.version,
        app_name: upload.app_name,
        bundle_id: upload.bundle_id,
        release_version: upload.release_version,
        build_version: upload.build_version,
        changelog: [{ message: 'First line' }, { message: 'Second line' }],
        text_changelog: '- First line\n- Second line',
        release_url: upload.release_url,
        install_url: upload.install_url,
        size: upload.size,
        created_at: expect.stringMatching(ISO_UTC),
      },
    });
    expect(new Date(payload.release.created_at).getTime()).toBeGreaterThan(Date.now() - 60_000);

    const [delivery] = await settled(hook.id, 1);
    expect(delivery).toMatchObject({ id: payload.delivery_id, event: 'upload', state: 'succeeded', attempts: 1, last_status: 200, last_error: null, next_attempt_at: null });
    expect(delivery.payload).toEqual(payload);
    expect(receiver.at(downloadOnlyPath)).toHaveLength(0);
  });

  it('a download sends `download`', async () => {
    const res = await fetch(`${t.url}/download/releases/${upload.id}`);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    const requests = await waitFor('the download deliveries', () => receiver.at(path).length >= 2 && receiver.at(downloadOnlyPath).length >= 1 && receiver.at(path));
    const download = requests[1]!;
    expect(download.headers['x-hangar-event']).toBe('download');
    expect(download.json.event).toBe('download');
    expect(download.json.release.id).toBe(upload.id);
    expect(download.headers['x-hangar-signature']).toBe(sign(download.body, hook.secret));
    expect(receiver.at(downloadOnlyPath)[0]!.json.event).toBe('download');
    expect(download.json.delivery_id).not.toBe(receiver.at(downloadOnlyPath)[0]!.json.delivery_id);
  });

  it('a changelog change sends `changelog`; other edits send nothing', async () => {
    const before = receiver.at(path).length;
    const changed = await t.admin.put(`/api/releases/${upload.id}`, { changelog: 'Fixed the crash\nFaster start' });
    expect(changed.status, changed.text).toBe(200);
    const requests = await waitFor('the changelog delivery', () => receiver.at(path).length > before && receiver.at(path));
    const changelog = requests[before]!;
    expect(changelog.headers['x-hangar-event']).toBe('changelog');
    expect(changelog.json.release.changelog).toEqual([{ message: 'Fixed the crash' }, { message: 'Faster start' }]);
    expect(changelog.json.release.text_changelog).toBe('- Fixed the crash\n- Faster start');

    // Queuing happens within the request: when these answer, no delivery was queued.
    const count = (await deliveries(hook.id)).length;
    expect((await t.admin.put(`/api/releases/${upload.id}`, { branch: 'main' })).status).toBe(200);
    expect((await t.admin.patch(`/api/releases/${upload.id}`, { changelog: 'Fixed the crash\nFaster start' })).status).toBe(200);
    expect(await deliveries(hook.id)).toHaveLength(count);
    await settled(hook.id, count);
    expect(receiver.at(path).filter((r) => r.json.event === 'changelog')).toHaveLength(1);
  });

  it('a disabled webhook is sent nothing, and refuses tests (409)', async () => {
    expect(receiver.at(disabledPath)).toHaveLength(0);
    const [disabled] = (await t.admin.get(`/api/channels/${tree.channel.id}/webhooks`)).body.filter((w: any) => !w.enabled);
    const res = await t.admin.post(`/api/webhooks/${disabled.id}/test`);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: 'Webhook is disabled' });
  });

  it('a receiver that never answers does not hold up an upload', async () => {
    const silent = createServer(() => {
      // never answers
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const other = await createAppTree(t);
    const stuck = await createWebhook(t.admin, other.channel.id, { url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`, events: ['upload'] });
    try {
      const form = new FormData();
      form.set('channel_key', other.channel.key);
      form.set('file', new Blob([readFileSync(fixture('ios', 'bundle-1.0-b1-ipad-cgbi-icons.ipa'))]), 'bundle.ipa');
      const res = await fetch(`${t.url}/api/apps/upload`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, body: form });
      expect(res.status).toBe(201);
      await res.json();
      // No attempt has ended (one ends only at the 2 s time limit): the upload did not wait for it.
      const [queued] = await deliveries(stuck.id);
      expect(queued).toMatchObject({ event: 'upload', state: 'pending', attempts: 0 });
    } finally {
      expect((await t.admin.delete(`/api/webhooks/${stuck.id}`)).status).toBe(200);
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('test deliveries carry the newest release; redelivery sends the same body with a new id', async () => {
    const before = receiver.at(path).length;
    const test = await t.admin.post(`/api/webhooks/${hook.id}/test`);
    expect(test.status, test.text).toBe(202);
    expect(test.body).toMatchObject({ event: 'upload', state: 'pending', attempts: 0 });
    expect(test.body.payload).toMatchObject({ event: 'upload', test: true, delivery_id: test.body.id, release: { id: upload.id } });
    const first = await waitFor('the test delivery', () => receiver.at(path)[before]);
    expect(first.json).toEqual(test.body.payload);

    const again = await t.admin.post(`/api/webhooks/${hook.id}/deliveries/${test.body.id}/redeliver`);
    expect(again.status, again.text).toBe(202);
    expect(again.body.id).toBeGreaterThan(test.body.id);
    const second = await waitFor('the redelivery', () => receiver.at(path)[before + 1]);
    expect(second.headers['x-hangar-delivery']).toBe(String(again.body.id));
    expect({ ...second.json, delivery_id: 0, sent_at: '' }).toEqual({ ...first.json, delivery_id: 0, sent_at: '' });
    expect(second.headers['x-hangar-signature']).toBe(sign(second.body, hook.secret));
  });
});

// ---- retries --------------------------------------------------------------------------------

describe('retries', () => {
  it('retries a 500 after the backoff and records the attempts', async () => {
    const tree = await createAppTree(t);
    const path = hookPath();
    receiver.respond = ({ path: p, count }) => (p === path && count === 1 ? 500 : 200);
    const hook = await createWebhook(t.admin, tree.channel.id, { url: `${receiver.url}${path}`, events: ['upload'] });
    const test = await t.admin.post(`/api/webhooks/${hook.id}/test`);
    expect(test.status).toBe(202);
    expect(test.body.payload.release).toBeNull();

    await waitFor('the first attempt', () => receiver.at(path).length >= 1);
    const pending = await waitFor('the failed first attempt recorded', async () => {
      const [d] = await deliveries(hook.id);
      return d.attempts === 1 && d;
    });
    expect(pending).toMatchObject({ state: 'pending', attempts: 1, last_status: 500, last_error: 'HTTP 500' });
    expect(pending.next_attempt_at).not.toBeNull();

    const [done] = await settled(hook.id, 1);
    expect(done).toMatchObject({ state: 'succeeded', attempts: 2, last_status: 200, last_error: null, next_attempt_at: null });
    const [a, b] = receiver.at(path);
    expect(b!.at - a!.at).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[0]! - 50);
    expect(b!.body).toBe(a!.body); // the same body, so the same signature and delivery id
    expect(b!.headers['x-hangar-delivery']).toBe(a!.headers['x-hangar-delivery']);
    expect(receiver.at(path)).toHaveLength(2);
    receiver.respond = () => 200;
  });

  it('fails a delivery to a receiver that is down after the last attempt', async () => {
    const down = await new Receiver().start();
    const url = `${down.url}/hook`;
    await down.close();
    const tree = await createAppTree(t);
    const hook = await createWebhook(t.admin, tree.channel.id, { url, events: ['upload'] });
    const started = Date.now();
    expect((await t.admin.post(`/api/webhooks/${hook.id}/test`)).status).toBe(202);
    const [failed] = await settled(hook.id, 1);
    expect(failed).toMatchObject({ state: 'failed', attempts: RETRY_DELAYS_MS.length + 1, last_status: null, next_attempt_at: null });
    expect(failed.last_error).toMatch(/ECONNREFUSED/);
    expect(failed.last_error).not.toContain(hook.secret);
    expect(Date.now() - started).toBeGreaterThanOrEqual(RETRY_DELAYS_MS.reduce((x, y) => x + y, 0) - 50);
  });

  it('drops the retries of a webhook disabled in between', async () => {
    const tree = await createAppTree(t);
    const path = hookPath();
    receiver.respond = ({ path: p }) => (p === path ? 500 : 200);
    try {
      const hook = await createWebhook(t.admin, tree.channel.id, { url: `${receiver.url}${path}`, events: ['upload'] });
      expect((await t.admin.post(`/api/webhooks/${hook.id}/test`)).status).toBe(202);
      await waitFor('the first attempt recorded', async () => {
        const [d] = await deliveries(hook.id);
        return d.attempts === 1;
      });
      expect((await t.admin.patch(`/api/webhooks/${hook.id}`, { enabled: false })).status).toBe(200);
      const [dropped] = await settled(hook.id, 1);
      expect(dropped).toMatchObject({ state: 'failed', attempts: 1, last_error: 'not sent: the webhook is disabled' });
      expect(receiver.at(path)).toHaveLength(1);
    } finally {
      receiver.respond = () => 200;
    }
  });

  it('retries a receiver that answers too slowly', async () => {
    const slow = createServer(() => {
      // never answers
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    try {
      const tree = await createAppTree(t);
      const hook = await createWebhook(t.admin, tree.channel.id, { url: `http://127.0.0.1:${(slow.address() as AddressInfo).port}/`, events: ['upload'] });
      expect((await t.admin.post(`/api/webhooks/${hook.id}/test`)).status).toBe(202);
      const recorded = await waitFor('the timed-out attempt', async () => {
        const [d] = await deliveries(hook.id);
        return d.attempts >= 1 && d;
      });
      expect(recorded).toMatchObject({ state: 'pending', last_status: null, last_error: 'timed out after 2 s' });
      expect((await t.admin.delete(`/api/webhooks/${hook.id}`)).status).toBe(200);
    } finally {
      slow.closeAllConnections();
      await new Promise<void>((resolve) => slow.close(() => resolve()));
    }
  });
});

// ---- the deliveries kept --------------------------------------------------------------------

describe('deliveries listing', () => {
  it('lists the latest first and keeps 50', async () => {
    const tree = await createAppTree(t);
    const path = hookPath();
    const hook = await createWebhook(t.admin, tree.channel.id, { url: `${receiver.url}${path}`, events: ['upload'] });
    const ids: number[] = [];
    for (let i = 0; i < 55; i += 1) {
      const res = await t.admin.post(`/api/webhooks/${hook.id}/test`);
      expect(res.status).toBe(202);
      ids.push(res.body.id);
    }
    await waitFor('55 deliveries received', () => receiver.at(path).length >= 55);
    const list = await settled(hook.id, 50);
    expect(list).toHaveLength(50);
    expect(list.map((d) => d.id)).toEqual(ids.slice(5).reverse());
    expect(list.every((d) => d.state === 'succeeded')).toBe(true);
    const stored = t.sql.prepare('SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ?').get(hook.id) as { n: number };
    expect(stored.n).toBe(50);
  });
});

// ---- restart --------------------------------------------------------------------------------

describe('restart', () => {
  it('a pending delivery survives a restart and is delivered by the next server', async () => {
    const first = await startTestServer({}, { webhooks: { retryDelaysMs: [3_000] } });
    const dataDir = first.dataDir;
    let second: Awaited<ReturnType<typeof startServer>> | null = null;
    try {
      const tree = await createAppTree(first);
      const path = hookPath();
      receiver.respond = ({ path: p, count }) => (p === path && count === 1 ? 503 : 200);
      const hook = await createWebhook(first.admin, tree.channel.id, { url: `${receiver.url}${path}`, events: ['upload'] });
      expect((await first.admin.post(`/api/webhooks/${hook.id}/test`)).status).toBe(202);
      const pending = await waitFor('the first attempt recorded', async () => {
        const [d] = await deliveries(hook.id, first.admin);
        return d.attempts === 1 && d;
      });
      expect(pending).toMatchObject({ state: 'pending', last_status: 503 });
      first.sql.close();
      await first.server.close();
      const stoppedAt = Date.now();
      expect(receiver.at(path)).toHaveLength(1);

      second = await startServer({ ...resolveConfig({ host: '127.0.0.1', port: 0, data: dataDir }, {}), logToStdout: false, initialAdminToken: ADMIN_TOKEN });
      const admin = new ApiClient(second.localUrl, ADMIN_TOKEN);
      const retried = await waitFor('the retry from the new server', () => receiver.at(path)[1]);
      expect(retried.body).toBe(receiver.at(path)[0]!.body);
      expect(retried.at).toBeGreaterThan(stoppedAt);
      const [done] = await waitFor('the delivery recorded as succeeded', async () => {
        const list = await deliveries(hook.id, admin);
        return list[0].state === 'succeeded' && list;
      });
      expect(done).toMatchObject({ attempts: 2, last_status: 200, last_error: null });
    } finally {
      receiver.respond = () => 200;
      await second?.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

// ---- secrets --------------------------------------------------------------------------------

describe('secrets', () => {
  it('never reach a receiver (beyond the signature) nor the log', async () => {
    expect(secrets.length).toBeGreaterThan(5);
    const log = await readFile(logFilePath(t.dataDir), 'utf8');
    expect(log.length).toBeGreaterThan(0);
    expect(receiver.received.length).toBeGreaterThan(0);
    for (const secret of secrets) {
      expect(log).not.toContain(secret);
      for (const request of receiver.received) {
        expect(request.body).not.toContain(secret);
        for (const value of Object.values(request.headers)) expect(String(value)).not.toContain(secret);
      }
    }
    expect(join(t.dataDir, 'logs', 'hangar.log')).toBe(logFilePath(t.dataDir));
  });
});
