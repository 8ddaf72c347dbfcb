/**
 * A large build streams through `hangar serve` without the heap noticing: the buffers an upload
 * arrives in and a download leaves in are freed young (src-server/http/young-buffers.ts) instead of
 * piling up until V8's external-memory limit forces a full collection of the whole heap. Without
 * that, this 256 MiB upload cost 4 full collections and its download 13; with it, none.
 *
 * The server is a real child process, as a lab runs it, with V8's own --trace-gc on its stdout: the
 * test counts the full (mark-compact) collections while the build goes up and comes back down. The
 * test process's buffers are its own, so they cannot blur the count (an in-process server would share
 * them); it frees them young too, as the benchmark's clients do (bench/lib/http.ts), so that its own
 * collections cannot make it send in bursts.
 */
import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { youngBuffers } from '../../src-server/http/young-buffers.ts';
import { syntheticInfoPlist } from '../helpers/builds.ts';
import { writeStoredZip } from '../helpers/zip-writer.ts';
import { startServe, tempDir, useCliCleanup, type ServeProcess } from './spawn.ts';

useCliCleanup();

const ADMIN = 'hgr_streaming-admin-token-0123456789abcdef';
const MiB = 1024 * 1024;
const SIZE = 256 * MiB;
/** at most this many full collections per 256 MiB each way (0 measured; one or two may come from elsewhere) */
const MAX_FULL_COLLECTIONS = 2;

/** Full collections the server has logged so far. */
function fullCollections(serve: ServeProcess): number {
  return serve.proc.stdout.match(/Mark-Compact/g)?.length ?? 0;
}

/** Full collections the server runs while `work` runs (counted once its output has caught up). */
async function fullCollectionsDuring(serve: ServeProcess, work: () => Promise<void>): Promise<number> {
  const before = fullCollections(serve);
  await work();
  await sleep(200);
  return fullCollections(serve) - before;
}

/** POSTs the file as the `file` part of a multipart body streamed from disk, with a Content-Length, as curl does. */
function uploadFile(url: string, path: string): Promise<{ status: number; body: any }> {
  const boundary = '----hangar-streaming-test';
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="Big.ipa"\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const length = head.length + statSync(path).size + tail.length;
  return new Promise((resolve, reject) => {
    const req = request(`${url}/api/apps/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': length },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.write(head);
    const file = youngBuffers.counting(createReadStream(path));
    file.on('error', reject);
    file.on('end', () => req.end(tail));
    file.pipe(req, { end: false });
  });
}

async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

describe('hangar serve streaming a 256 MiB build', () => {
  it(`runs at most ${MAX_FULL_COLLECTIONS} full garbage collections each way, and the download is the upload`, async () => {
    const work = await tempDir();
    const ipa = join(work, 'Big.ipa');
    await writeStoredZip(ipa, [
      { name: 'Payload/Synthetic.app/Info.plist', data: Buffer.from(syntheticInfoPlist()) },
      { name: 'Payload/Synthetic.app/Assets.car', junkSize: SIZE },
    ]);
    const serve = await startServe(['--host', '127.0.0.1', '--port', '0', '--https-port', 'off', '--data', join(work, 'data')], {
      env: { HANGAR_ADMIN_TOKEN: ADMIN, HANGAR_LOG_STDOUT: '0' },
      nodeArgs: ['--trace-gc'],
    });

    let release: any;
    const duringUpload = await fullCollectionsDuring(serve, async () => {
      const res = await uploadFile(serve.url, ipa);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      release = res.body;
    });

    const hash = createHash('sha256');
    let size = 0;
    const duringDownload = await fullCollectionsDuring(serve, async () => {
      const redirect = await fetch(`${serve.url}/download/releases/${release.id}`, { redirect: 'manual' });
      expect(redirect.status).toBe(302);
      const res = await fetch(new URL(redirect.headers.get('location')!, serve.url));
      expect(res.status).toBe(200);
      for await (const chunk of res.body!) {
        hash.update(chunk);
        size += chunk.length;
        youngBuffers.passed(chunk.length);
      }
    });
    expect(size).toBe(statSync(ipa).size);
    expect(hash.digest('hex')).toBe(await sha256OfFile(ipa));

    expect(duringUpload, serve.proc.stdout.slice(-4000)).toBeLessThanOrEqual(MAX_FULL_COLLECTIONS);
    expect(duringDownload, serve.proc.stdout.slice(-4000)).toBeLessThanOrEqual(MAX_FULL_COLLECTIONS);
  }, 120_000);
});
