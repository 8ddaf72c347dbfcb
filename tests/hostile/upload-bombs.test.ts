/**
 * Hostile builds and oversized requests at `POST /api/apps/upload` (issue 7, hostile input): an .ipa
 * that is a zip bomb, one with a zip inside, entries that climb out of the archive or are absolute,
 * headers beyond 16 KiB, a field beyond its limit. Each is refused with a clear error (or, for what
 * is harmless, stored as the one file it is), and nothing is written outside the data directory or
 * left behind. (Debug-symbol zips have the same cases in tests/api/debug-files.test.ts.)
 */
import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { build } from 'plist';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipartBody, syntheticIpa } from '../helpers/builds.ts';
import { fingerprint } from '../helpers/db.ts';
import { makeZip } from '../helpers/make-zip.ts';
import { rawRequest } from '../helpers/multipart.ts';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.ts';
import { createAppTree, type AppTree } from '../helpers/world.ts';

let t: TestServer;
let tree: AppTree;

beforeAll(async () => {
  t = await startTestServer();
  tree = await createAppTree(t);
});

afterAll(async () => {
  await t?.close();
});

const INFO = Buffer.from(build({ CFBundleIdentifier: 'dev.hangar.bomb', CFBundleShortVersionString: '1.0', CFBundleVersion: '1', CFBundleName: 'Bomb', MinimumOSVersion: '15.0', UIDeviceFamily: [1] }));

function post(data: Buffer, fileName = 'App.ipa', fields: Record<string, string> = {}) {
  const { body, contentType } = multipartBody({ channel_key: tree.channel.key, ...fields }, { name: fileName, data });
  return t.admin.request('POST', '/api/apps/upload', { raw: { body, contentType } });
}

/** Posts `data` and expects a refusal that changes nothing: no row, no stored file, no temporary file. */
async function expectRefused(data: Buffer, message: RegExp, status = 422) {
  const before = fingerprint(t.sql);
  const started = performance.now();
  const res = await post(data);
  expect(res.status, res.text).toBe(status);
  expect(res.body.error).toMatch(message);
  expect(performance.now() - started, 'answered in time').toBeLessThan(5_000);
  expect(fingerprint(t.sql)).toBe(before);
  expect(await readdir(join(t.dataDir, 'tmp')).catch(() => [])).toEqual([]);
}

describe('zip bombs', () => {
  it('an .ipa whose Info.plist inflates to 200 MiB (a ratio of about 1000:1) is refused without inflating it', async () => {
    const padded = Buffer.concat([INFO, Buffer.alloc(200 * 1024 * 1024)]);
    const bomb = makeZip({ 'Payload/Bomb.app/Info.plist': padded });
    expect(bomb.length).toBeLessThan(300 * 1024);
    await expectRefused(bomb, /too large|inflates beyond/);
  });

  it('an .ipa with a nested zip bomb is read without opening the inner zip', async () => {
    const inner = makeZip({ 'zeros.bin': Buffer.alloc(64 * 1024 * 1024) });
    const outer = makeZip({ 'Payload/Bomb.app/Info.plist': INFO, 'Payload/Bomb.app/inner.zip': makeZip({ 'again.zip': inner }) });
    const started = performance.now();
    const res = await post(outer);
    expect(res.status, res.text).toBe(201);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(res.body.file_size ?? outer.length).toBe(outer.length);
  });
});

describe('entry names that climb out or are absolute', () => {
  it.each([
    ['../../hangar-escaped', 'a relative climb'],
    ['/tmp/hangar-escaped-absolute', 'an absolute path'],
    ['Payload\\..\\..\\hangar-escaped-backslash', 'backslashes'],
    ['Payload/Bomb.app/../../../hangar-escaped-deep', 'a climb inside the bundle'],
  ])('%s (%s): refused, nothing written anywhere', async (name) => {
    const zip = makeZip({ 'Payload/Bomb.app/Info.plist': INFO, [name]: 'escaped' });
    await expectRefused(zip, /not a valid \.ipa|invalid|relative|absolute|not a readable/);
    for (const dir of [t.dataDir, dirname(t.dataDir), '/tmp']) {
      expect((await readdir(dir)).filter((entry) => entry.startsWith('hangar-escaped')), dir).toEqual([]);
    }
  });
});

describe('oversized requests', () => {
  it('headers beyond 16 KiB: 431', async () => {
    const res = await rawRequest(t.url, { method: 'GET', path: '/api/users/me', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-padding': 'p'.repeat(17 * 1024) } });
    expect(res.status).toBe(431);
  });

  it('a form field beyond 1 MiB: 422 naming the field and its limit, nothing stored', async () => {
    const before = fingerprint(t.sql);
    const res = await post(syntheticIpa(), 'App.ipa', { changelog: 'c'.repeat(1024 * 1024 + 1) });
    expect(res.status, res.text).toBe(422);
    // cut off by the multipart reader at its field limit, and refused rather than kept in part
    expect(res.body.entry).toEqual({ changelog: ['is too long (maximum is 1048576 bytes)'] });
    expect(fingerprint(t.sql)).toBe(before);
    expect(await readdir(join(t.dataDir, 'tmp')).catch(() => [])).toEqual([]);
  });

  it('a JSON body beyond 1 MiB: 413', async () => {
    const res = await t.admin.post('/api/apps', { name: 'x'.repeat(1024 * 1024) });
    expect(res.status, res.text).toBe(413);
    expect(res.body.error).toBe('Request body is too large');
  });
});
