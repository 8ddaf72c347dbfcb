/**
 * Slow and stalled clients (issue 7, faults), against a real server whose time limits are shortened
 * (ServerConfig.timeouts: 1 s idle, 1.5 s for the request head):
 * - an upload whose client stops sending is cut once idle: its temporary file goes, nothing is
 *   stored, and other requests are served meanwhile; an upload that is slow but keeps moving for
 *   several times the idle limit goes through;
 * - slowloris: a request head sent a byte at a time is cut after the head limit even though bytes
 *   keep coming, and 200 such connections at once do not stop a normal request or an upload;
 * - the HTTPS port has the same limits.
 */
import { readFile } from 'node:fs/promises';
import { connect as connectTls } from 'node:tls';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, fixturesMissing } from '../helpers/fixtures.ts';
import { entriesOf, eventually, multipart, openRequest, openSocket, requestHead, sleep, uploadRaw, writeAll } from '../helpers/multipart.ts';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.ts';
import { createAppTree, type AppTree } from '../helpers/world.ts';

const IDLE_MS = 1000;
const HEADERS_MS = 1500;
const SMALL_APK = fixture('android', 'contactmanager-1.0-vc1-minsdk5-v1signed.apk');
const BIG_APK = fixture('android', 'appinfodemo-2.1.0-vc10-r8-v2signed.apk');

/** Resolves with the milliseconds from now until the server closes `socket`. */
function closedAfter(socket: Socket): Promise<number> {
  const started = Date.now();
  return new Promise((resolve) => {
    socket.on('error', () => {});
    socket.once('close', () => resolve(Date.now() - started));
  });
}

/** What a socket receives, as text. */
function received(socket: Socket): () => string {
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  return () => text;
}

/** Writes `data` a byte every `everyMs` until the socket closes or the bytes run out; answers how many were written. */
async function dribble(socket: Socket, data: Buffer, everyMs: number): Promise<number> {
  let sent = 0;
  while (sent < data.length && !socket.destroyed && socket.writable) {
    socket.write(data.subarray(sent, sent + 1));
    sent += 1;
    await sleep(everyMs);
  }
  return sent;
}

describe.skipIf(fixturesMissing !== null)('slow and stalled clients', () => {
  let t: TestServer;
  let tree: AppTree;
  let smallApk: Buffer;
  let bigApk: Buffer;
  const tmp = () => join(t.dataDir, 'tmp');
  const releaseCount = () => (t.sql.prepare('SELECT count(*) AS n FROM releases').get() as { n: number }).n;

  beforeAll(async () => {
    t = await startTestServer({ timeouts: { idleMs: IDLE_MS, headersMs: HEADERS_MS } });
    tree = await createAppTree(t, t.admin, 'android');
    smallApk = await readFile(SMALL_APK);
    bigApk = await readFile(BIG_APK);
  });
  afterAll(() => t?.close());

  /** A normal request and a normal upload are served, and quickly. */
  async function expectServing(): Promise<void> {
    const started = Date.now();
    const health = await t.anon.get('/api/health');
    expect(health.status).toBe(200);
    expect(Date.now() - started, 'GET /api/health answered within 500 ms').toBeLessThan(500);
    const ok = await uploadRaw(t.url, [{ name: 'channel_key', value: tree.channel.key }, { name: 'file', filename: 'ok.apk', data: smallApk }], { bearer: ADMIN_TOKEN });
    expect(ok.status, ok.text).toBe(201);
  }

  it('an upload that stalls half-way is cut once idle: its temporary file goes, nothing is stored, others are served meanwhile', async () => {
    const releasesBefore = releaseCount();
    const form = multipart([{ name: 'channel_key', value: tree.channel.key }, { name: 'file', filename: 'app.apk', data: bigApk }]);
    const socket = await openSocket(t.url);
    const closed = closedAfter(socket);
    const answer = received(socket);
    await writeAll(socket, requestHead(t.url, '/api/apps/upload', { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': form.contentType, 'content-length': String(form.body.length) }));
    await writeAll(socket, form.body.subarray(0, form.body.length / 2));
    expect(await eventually(async () => (await entriesOf(tmp())).length === 1), 'the upload is streaming to tmp/').toBe(true);
    const stalledAt = Date.now();

    await expectServing(); // while the stalled upload holds its connection

    await closed;
    const idleFor = Date.now() - stalledAt;
    expect(idleFor, 'cut after the idle limit, not before').toBeGreaterThanOrEqual(IDLE_MS - 100);
    expect(idleFor, 'cut soon after the idle limit').toBeLessThan(IDLE_MS + 2000);
    expect(answer(), 'the connection is closed without an answer (the request never finished)').toBe('');
    expect(await eventually(async () => (await entriesOf(tmp())).length === 0), 'the temporary file is removed').toBe(true);
    await expectServing();
    expect(releaseCount(), 'only the two healthy uploads were stored').toBe(releasesBefore + 2);
  });

  it('an upload that is slow but keeps moving is not cut, however long it takes', async () => {
    const form = multipart([{ name: 'channel_key', value: tree.channel.key }, { name: 'file', filename: 'slow.apk', data: smallApk }]);
    const upload = openRequest(t.url, { path: '/api/apps/upload', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': form.contentType }, body: form.body });
    const started = Date.now();
    const pieces = 8;
    const size = Math.ceil(form.body.length / pieces);
    for (let i = 0; i < pieces - 1; i += 1) {
      await upload.write(form.body.subarray(i * size, (i + 1) * size));
      await sleep(IDLE_MS * 0.5);
    }
    const res = await upload.finish();
    expect(Date.now() - started, 'the upload took several idle limits').toBeGreaterThan(IDLE_MS * 3);
    expect(res.status, res.text).toBe(201);
  });

  it('an idle connection that sent nothing is closed after the idle limit', async () => {
    const socket = await openSocket(t.url);
    const ms = await closedAfter(socket);
    expect(ms).toBeGreaterThanOrEqual(IDLE_MS - 100);
    expect(ms).toBeLessThan(IDLE_MS + 2000);
  });

  it('slowloris: a request head sent a byte at a time is cut after the head limit, though bytes keep coming', async () => {
    const socket = await openSocket(t.url);
    const closed = closedAfter(socket);
    const answer = received(socket);
    const head = Buffer.from(`GET /api/health HTTP/1.1\r\nHost: x\r\n${'X-Padding: slow\r\n'.repeat(200)}\r\n`, 'latin1');
    const sending = dribble(socket, head, 50); // a byte every 50 ms: never idle
    const ms = await closed;
    const sent = await sending;
    expect(sent, 'the head was not complete when the server cut it').toBeLessThan(head.length);
    expect(ms, 'cut after the head limit').toBeGreaterThanOrEqual(HEADERS_MS - 100);
    expect(ms, 'cut within the head limit and one check interval').toBeLessThan(HEADERS_MS + 1500);
    expect(answer()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('200 slowloris connections at once: a normal request and an upload are still served; every one of them is cut', async () => {
    const sockets = await Promise.all(Array.from({ length: 200 }, () => openSocket(t.url)));
    const closed = sockets.map(closedAfter);
    const head = Buffer.from(`POST /api/apps/upload HTTP/1.1\r\nHost: x\r\n${'X-Padding: slow\r\n'.repeat(100)}\r\n`, 'latin1');
    const sending = sockets.map((socket) => dribble(socket, head, 100));
    await sleep(200);
    const started = Date.now();
    await expectServing();
    const servedIn = Date.now() - started;
    expect(servedIn, 'served while 200 slow heads were open').toBeLessThan(HEADERS_MS);
    const times = await Promise.all(closed);
    await Promise.all(sending);
    expect(Math.max(...times), 'every slow connection is cut').toBeLessThan(HEADERS_MS + 2500);
    await expectServing();
  });

  it('the HTTPS port has the same limits: a slow head over TLS is cut', async () => {
    const port = t.server.httpsPort!;
    const socket = connectTls({ host: '127.0.0.1', port, rejectUnauthorized: false });
    await new Promise<void>((resolve, reject) => {
      socket.once('secureConnect', () => resolve());
      socket.once('error', reject);
    });
    const closed = closedAfter(socket);
    const sending = dribble(socket, Buffer.from(`GET /api/health HTTP/1.1\r\nHost: x\r\n${'X-Padding: slow\r\n'.repeat(200)}\r\n`, 'latin1'), 50);
    const ms = await closed;
    await sending;
    expect(ms).toBeGreaterThanOrEqual(HEADERS_MS - 100);
    expect(ms).toBeLessThan(HEADERS_MS + 1500);
  });
});
