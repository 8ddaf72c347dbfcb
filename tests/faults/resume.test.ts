/**
 * A device that drops off Wi-Fi mid-download (issue 7, faults): it reads part of a build, the
 * connection is cut, and it resumes with `Range: bytes=N-` and `If-Range: <ETag>` — more than once.
 * Each resume is a 206 from where it stopped, and the pieces put together are the stored file
 * (SHA-256). A resume against a file that changed meanwhile (another ETag) gets the whole file.
 * (Ranges asked for cleanly, without a drop, are in tests/api/downloads.test.ts.)
 */
import { createHash } from 'node:crypto';
import http, { type IncomingHttpHeaders } from 'node:http';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, fixturesMissing } from '../helpers/fixtures.ts';
import { uploadRaw } from '../helpers/multipart.ts';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.ts';

const BIG_APK = fixture('android', 'appinfodemo-2.1.0-vc10-r8-v2signed.apk');
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

interface Piece {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * GETs `url` and keeps what arrives; with `dropAfter`, cuts the connection as soon as that many body
 * bytes have come (what a device has on disk when its Wi-Fi drops).
 */
function download(url: string, headers: Record<string, string>, dropAfter = Infinity): Promise<Piece> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) });
      res.on('data', (chunk: Buffer) => {
        if (size >= dropAfter) return;
        chunks.push(chunk);
        size += chunk.length;
        if (size >= dropAfter) {
          req.destroy();
          done();
        }
      });
      res.on('end', done);
      res.on('error', () => {});
    });
    req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
  });
}

describe.skipIf(fixturesMissing !== null)('a download resumed after the connection dropped', () => {
  let t: TestServer;
  let apk: Buffer;
  let fileUrl: string;

  beforeAll(async () => {
    t = await startTestServer();
    apk = await readFile(BIG_APK);
    const up = await uploadRaw(t.url, [{ name: 'file', filename: 'big.apk', data: apk }], { bearer: ADMIN_TOKEN });
    expect(up.status, up.text).toBe(201);
    const redirect = await fetch(`${t.url}/download/releases/${up.body.id}`, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    fileUrl = new URL(redirect.headers.get('location')!, t.url).href;
  });
  afterAll(() => t?.close());

  it('dropped three times, resumed with Range + If-Range each time: 206 from where it stopped, the whole adds up to the file', async () => {
    const first = await download(fileUrl, {}, 512 * 1024);
    expect(first.status).toBe(200);
    const etag = first.headers.etag!;
    expect(etag).toBe(`"${sha256(apk)}"`);
    expect(first.body.length, 'the drop left part of the file').toBeLessThan(apk.length);
    const pieces = [first.body];
    let have = first.body.length;
    for (const dropAfter of [1024 * 1024, 700 * 1024, Infinity]) {
      const next = await download(fileUrl, { range: `bytes=${have}-`, 'if-range': etag }, dropAfter);
      expect(next.status).toBe(206);
      expect(next.headers['content-range']).toBe(`bytes ${have}-${apk.length - 1}/${apk.length}`);
      pieces.push(next.body);
      have += next.body.length;
    }
    expect(have).toBe(apk.length);
    expect(sha256(Buffer.concat(pieces)), 'the pieces make the stored file').toBe(sha256(apk));
    const health = await t.anon.get('/api/health');
    expect(health.status, 'the server is unharmed by the drops').toBe(200);
  });

  it('resuming with an ETag that no longer matches: 200 and the whole file, not a piece of another', async () => {
    const first = await download(fileUrl, {}, 256 * 1024);
    const resumed = await download(fileUrl, { range: `bytes=${first.body.length}-`, 'if-range': '"not-this-file"' });
    expect(resumed.status).toBe(200);
    expect(sha256(resumed.body)).toBe(sha256(apk));
  });
});
