/**
 * Uploads that go wrong (R10, storage hygiene): whatever happens, a failed upload leaves nothing
 * behind, and what a crash leaves behind is cleaned at the next start.
 *
 * (a) the client disconnects half-way; (b) the disk fails under the upload (ENOSPC: 507; EIO: 500),
 * injected through the server's `fileStore` factory; (c) the server process is SIGKILLed mid-upload
 * (a real `hangar serve`): the temporary file survives the crash and the next start sweeps it; (d) a
 * crash between moving a file into place and committing its row leaves orphan directories, which the
 * next start removes, while a row whose file is missing is reported at error level and kept; (e) a
 * file that cannot be read as its claimed format is 422 with a clear error; (f) past the configured
 * size limit, 413.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync, type Dirent, type WriteStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileStore } from '../../src-server/storage/files.ts';
import { api, startServe, tempDir, useCliCleanup, withDatabase, type ServeProcess } from '../cli/spawn.ts';
import { filesUnder, fingerprint } from '../helpers/db.ts';
import { fixture, fixturesMissing } from '../helpers/fixtures.ts';
import { entriesOf, eventually, multipart, openSocket, requestHead, sleep, uploadRaw, writeAll, type Part, type RawResponse } from '../helpers/multipart.ts';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.ts';
import { createAppTree, type AppTree } from '../helpers/world.ts';

useCliCleanup();

const BIG_APK = { path: fixture('android', 'appinfodemo-2.1.0-vc10-r8-v2signed.apk'), size: 4000563, sha256: '4a510a6f42c8949087ece34229a619e59388e6778ba6c9ec89f9b99f2f6a211f' };
const SMALL_APK = { path: fixture('android', 'contactmanager-1.0-vc1-minsdk5-v1signed.apk'), size: 25931, sha256: '7370e929d3ea2ef8dd030b2b0e2a86ea4e0019a6de3d1dd6aec40b0752e01722' };
const IPA = { path: fixture('ios', 'appinfodemo-1.2.3-b5-iphone-noicon.ipa'), size: 42699 };

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** An error as node:fs reports one. */
function fsError(code: 'ENOSPC' | 'EIO', syscall = 'write'): NodeJS.ErrnoException {
  const text = code === 'ENOSPC' ? 'no space left on device' : 'i/o error';
  return Object.assign(new Error(`${code}: ${text}, ${syscall}`), { code, errno: code === 'ENOSPC' ? -28 : -5, syscall });
}

/**
 * A file store whose disk fails on demand: temporary files stop taking bytes past `fault.afterBytes`
 * (the write fails with `fault.code`), or moving a file into place fails after its directory was made.
 */
class FaultyStore extends FileStore {
  fault: { code: 'ENOSPC' | 'EIO'; afterBytes: number } | null = null;
  failMove = false;
  /** the icon of a release cannot be written (its path leads nowhere: the write fails with ENOENT) */
  failIcon = false;
  readonly opened: string[] = [];

  override resolve(relativePath: string): string {
    const absolute = super.resolve(relativePath);
    if (this.failIcon && relativePath.endsWith('icon.png')) return join(this.dataDir, 'no-such-directory', 'icon.png');
    return absolute;
  }

  override createTempWriteStream(tempPath: string): WriteStream {
    this.opened.push(tempPath);
    const stream = super.createTempWriteStream(tempPath);
    const fault = this.fault;
    if (!fault) return stream;
    let written = 0;
    const write = stream._write.bind(stream);
    stream._write = (chunk: Buffer, encoding: BufferEncoding, callback: (error?: Error | null) => void) => {
      written += chunk.length;
      if (written > fault.afterBytes) return callback(fsError(fault.code));
      write(chunk, encoding, callback);
    };
    const writev = stream._writev?.bind(stream);
    stream._writev = (chunks: { chunk: Buffer; encoding: BufferEncoding }[], callback: (error?: Error | null) => void) => {
      written += chunks.reduce((sum, c) => sum + c.chunk.length, 0);
      if (written > fault.afterBytes) return callback(fsError(fault.code));
      writev!(chunks, callback);
    };
    return stream;
  }

  override moveIntoPlace(tempPath: string, storedPath: string): void {
    if (!this.failMove) return super.moveIntoPlace(tempPath, storedPath);
    // what the real move does up to a rename that fails
    const target = this.resolve(storedPath);
    rmSync(dirname(target), { recursive: true, force: true });
    mkdirSync(dirname(target), { recursive: true });
    throw fsError('EIO', 'rename');
  }
}

/** Everything under the data directory but the logs. */
async function dataFiles(dataDir: string): Promise<string[]> {
  return (await filesUnder(dataDir)).filter((f) => !f.startsWith('logs/'));
}

/** Every directory under files/ (relative), to see empty ones a failure may leave. */
function dirsUnder(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, rel: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (!e.isDirectory()) continue;
      out.push(join(rel, e.name));
      walk(join(dir, e.name), join(rel, e.name));
    }
  };
  walk(root, '');
  return out.sort();
}

interface LogLine {
  level: number;
  msg?: string;
  [key: string]: unknown;
}
async function logLines(dataDir: string): Promise<LogLine[]> {
  const text = await readFile(join(dataDir, 'logs', 'hangar.log'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as LogLine);
}

describe.skipIf(fixturesMissing !== null)('uploads that fail leave nothing behind (in-process server)', () => {
  let t: TestServer;
  let store: FaultyStore;
  let bigApk: Buffer;
  let smallApk: Buffer;
  let ipa: Buffer;
  let tree: AppTree;

  beforeAll(async () => {
    t = await startTestServer({}, { fileStore: (dir) => (store = new FaultyStore(dir)) });
    bigApk = await readFile(BIG_APK.path);
    smallApk = await readFile(SMALL_APK.path);
    ipa = await readFile(IPA.path);
    expect(sha256(bigApk)).toBe(BIG_APK.sha256);
    tree = await createAppTree(t, t.admin, 'android');
  });
  afterAll(() => t?.close());

  /** The state a failed upload must leave unchanged. */
  async function snapshot() {
    return { rows: fingerprint(t.sql), files: await dataFiles(t.dataDir), dirs: dirsUnder(join(t.dataDir, 'files')) };
  }
  async function expectUnchanged(before: Awaited<ReturnType<typeof snapshot>>) {
    expect(fingerprint(t.sql), 'no row changed').toBe(before.rows);
    expect(await dataFiles(t.dataDir), 'no file added or removed').toEqual(before.files);
    expect(dirsUnder(join(t.dataDir, 'files')), 'no directory added under files/').toEqual(before.dirs);
    expect(await entriesOf(store.tempDir), 'nothing in tmp/').toEqual([]);
  }
  /** The server still answers, and still takes an upload. */
  async function expectHealthy() {
    const health = await t.anon.get('/api/health');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ healthy: true });
    const fault = store.fault;
    const failMove = store.failMove;
    store.fault = null;
    store.failMove = false;
    try {
      const ok = await uploadRaw(t.url, [{ name: 'channel_key', value: tree.channel.key }, { name: 'file', filename: 'ok.apk', data: smallApk }], { bearer: ADMIN_TOKEN });
      expect(ok.status, ok.text).toBe(201);
      expect(ok.body.size).toBe(SMALL_APK.size);
      const row = t.sql.prepare('SELECT sha256 FROM releases WHERE id = ?').get(ok.body.id) as { sha256: string };
      expect(row.sha256).toBe(SMALL_APK.sha256);
      expect(await entriesOf(store.tempDir)).toEqual([]);
    } finally {
      store.fault = fault;
      store.failMove = failMove;
    }
  }

  const apkForm = (data = bigApk, filename = 'app.apk') => multipart([{ name: 'channel_key', value: tree.channel.key }, { name: 'file', filename, data }]);

  describe('(a) the client disconnects mid-upload', () => {
    /** Sends the head and `bytes` of the body, waits for the temporary file to exist, then cuts the connection. */
    async function cutAfter(body: Buffer, contentType: string, bytes: number, waitForTempFile = true): Promise<void> {
      const opened = store.opened.length;
      const socket = await openSocket(t.url);
      socket.on('error', () => {});
      await writeAll(socket, requestHead(t.url, '/api/apps/upload', { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': contentType, 'content-length': String(body.length) }));
      await writeAll(socket, body.subarray(0, bytes));
      if (waitForTempFile) {
        const streaming = await eventually(async () => store.opened.length > opened && (await entriesOf(store.tempDir)).length === 1);
        expect(streaming, 'the server had started writing the upload to tmp/').toBe(true);
        const tempFile = join(store.tempDir, (await entriesOf(store.tempDir))[0]!);
        expect(await eventually(async () => (await stat(tempFile).catch(() => ({ size: 0 }))).size > 0), 'bytes reached the temporary file').toBe(true);
      } else {
        await sleep(100);
      }
      socket.destroy();
    }

    it('at 50% of the body: no temporary file, row or stored file remains; the server stays healthy', async () => {
      const before = await snapshot();
      const form = apkForm();
      await cutAfter(form.body, form.contentType, Math.floor(form.body.length / 2));
      expect(await eventually(async () => (await entriesOf(store.tempDir)).length === 0), 'the temporary file is removed within 3 s').toBe(true);
      await expectUnchanged(before);
      await expectHealthy();
    });

    it('after the whole file part, inside the field that follows it', async () => {
      const before = await snapshot();
      const form = multipart([{ name: 'channel_key', value: tree.channel.key }, { name: 'file', filename: 'app.apk', data: bigApk }, { name: 'changelog', value: 'x'.repeat(100_000) }]);
      const cut = form.body.indexOf(Buffer.from('name="changelog"')) + 5_000;
      await cutAfter(form.body, form.contentType, cut);
      expect(await eventually(async () => (await entriesOf(store.tempDir)).length === 0), 'the temporary file is removed within 3 s').toBe(true);
      await expectUnchanged(before);
      await expectHealthy();
    });

    it('right after the request head, before any body', async () => {
      const before = await snapshot();
      const form = apkForm();
      await cutAfter(form.body, form.contentType, 0, false);
      await sleep(200);
      await expectUnchanged(before);
      await expectHealthy();
    });

    it('ten uploads cut at once leave nothing either', async () => {
      const before = await snapshot();
      const form = apkForm();
      await Promise.all(Array.from({ length: 10 }, async (_, i) => {
        const socket = await openSocket(t.url);
        socket.on('error', () => {});
        await writeAll(socket, requestHead(t.url, '/api/apps/upload', { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': form.contentType, 'content-length': String(form.body.length) }));
        await writeAll(socket, form.body.subarray(0, 500_000 + i * 250_000));
        await sleep(150);
        socket.destroy();
      }));
      expect(await eventually(async () => (await entriesOf(store.tempDir)).length === 0, 5_000), 'every temporary file is removed').toBe(true);
      await expectUnchanged(before);
      await expectHealthy();
    });
  });

  describe('(b) the disk fails under the upload', () => {
    async function failing(fault: FaultyStore['fault'], request: () => Promise<RawResponse>): Promise<RawResponse> {
      const before = await snapshot();
      store.fault = fault;
      let res: RawResponse;
      try {
        res = await request();
      } finally {
        store.fault = null;
      }
      expect(res.headers['content-type'], res.text).toBe('application/json; charset=utf-8');
      expect(await eventually(async () => (await entriesOf(store.tempDir)).length === 0)).toBe(true);
      await expectUnchanged(before);
      return res;
    }

    it('ENOSPC half-way through the file: 507 {"error": ...}, nothing left behind', async () => {
      const form = apkForm();
      const res = await failing({ code: 'ENOSPC', afterBytes: Math.floor(BIG_APK.size / 2) }, () =>
        uploadRaw(t.url, [{ name: 'channel_key', value: tree.channel.key }, { name: 'file', filename: 'app.apk', data: bigApk }], { bearer: ADMIN_TOKEN, boundary: form.boundary }),
      );
      expect(res.status, res.text).toBe(507);
      expect(res.body).toEqual({ error: 'The server is out of disk space' });
      await expectHealthy();
    });

    it('ENOSPC on the first bytes of a small file: 507', async () => {
      const res = await failing({ code: 'ENOSPC', afterBytes: 0 }, () =>
        uploadRaw(t.url, [{ name: 'channel_key', value: tree.channel.key }, { name: 'file', filename: 'app.apk', data: smallApk }], { bearer: ADMIN_TOKEN }),
      );
      expect(res.status, res.text).toBe(507);
      expect(res.body).toEqual({ error: 'The server is out of disk space' });
    });

    it('ENOSPC with the token in a form field after the file: still 507 (the disk, not the token, is the news)', async () => {
      const res = await failing({ code: 'ENOSPC', afterBytes: 1000 }, () =>
        uploadRaw(t.url, [{ name: 'channel_key', value: tree.channel.key }, { name: 'file', filename: 'app.apk', data: smallApk }, { name: 'token', value: ADMIN_TOKEN }]),
      );
      expect(res.status, res.text).toBe(507);
      expect(res.body).toEqual({ error: 'The server is out of disk space' });
    });

    it('EIO half-way through the file: 500 {"error": ...} without internals, nothing left behind, the server still serves', async () => {
      const res = await failing({ code: 'EIO', afterBytes: Math.floor(BIG_APK.size / 2) }, () =>
        uploadRaw(t.url, [{ name: 'channel_key', value: tree.channel.key }, { name: 'file', filename: 'app.apk', data: bigApk }], { bearer: ADMIN_TOKEN }),
      );
      expect(res.status, res.text).toBe(500);
      expect(res.body).toEqual({ error: 'Internal server error' });
      await expectHealthy();
      const logged = (await logLines(t.dataDir)).filter((l) => l.level === 50 && l.msg === 'request failed');
      expect(logged.some((l) => JSON.stringify(l).includes('EIO')), 'the failure is logged at error level').toBe(true);
    });

    it('the move into place fails (rename EIO): 500, no row, no file and no empty release directory left', async () => {
      const before = await snapshot();
      store.failMove = true;
      let res: RawResponse;
      try {
        res = await uploadRaw(t.url, [{ name: 'channel_key', value: tree.channel.key }, { name: 'file', filename: 'app.apk', data: smallApk }], { bearer: ADMIN_TOKEN });
      } finally {
        store.failMove = false;
      }
      expect(res.status, res.text).toBe(500);
      expect(res.body).toEqual({ error: 'Internal server error' });
      await expectUnchanged(before);
      await expectHealthy();
    });
  });

  it('(b) the icon cannot be written after the binary was moved into place: 5xx, and the moved binary does not stay behind', async () => {
    const before = await snapshot();
    store.failIcon = true;
    let res: RawResponse;
    try {
      // ContactManager has a PNG icon, written next to the binary inside the transaction that records it
      res = await uploadRaw(t.url, [{ name: 'channel_key', value: tree.channel.key }, { name: 'file', filename: 'app.apk', data: smallApk }], { bearer: ADMIN_TOKEN });
    } finally {
      store.failIcon = false;
    }
    expect(res.status, res.text).toBe(500);
    expect(res.body).toEqual({ error: 'Internal server error' });
    await expectUnchanged(before);
    await expectHealthy();
  });

  describe('(e) a file that cannot be read as its claimed format: 422 with a clear error, nothing stored', () => {
    async function refusedParse(fileName: string, data: Buffer, key = tree.channel.key): Promise<RawResponse> {
      const before = await snapshot();
      const res = await uploadRaw(t.url, [{ name: 'channel_key', value: key }, { name: 'file', filename: fileName, data }], { bearer: ADMIN_TOKEN });
      expect(res.status, res.text).toBe(422);
      expect(typeof res.body.error).toBe('string');
      expect(res.body.error.length).toBeGreaterThan(10);
      expect(res.body.error, 'no server paths in the message').not.toContain(t.dataDir);
      expect(res.body.error).not.toMatch(/\.upload\b/);
      await expectUnchanged(before);
      return res;
    }

    it('a text file named .ipa', async () => {
      const res = await refusedParse('app.ipa', Buffer.from('This is not an iOS app, just a text file.\n'), (await createAppTree(t, t.admin, 'ios')).channel.key);
      expect(res.body.error).toMatch(/ipa/i);
      expect(res.body.entry).toEqual({ file: [res.body.error] });
    });

    it('a text file named .ipa, uploaded to make a new app', async () => {
      const before = await snapshot();
      const res = await uploadRaw(t.url, [{ name: 'file', filename: 'app.ipa', data: Buffer.from('not a zip') }], { bearer: ADMIN_TOKEN });
      expect(res.status, res.text).toBe(422);
      expect(res.body.entry).toEqual({ file: [res.body.error] });
      await expectUnchanged(before);
    });

    it('the first half of a real .apk', async () => {
      const res = await refusedParse('app.apk', bigApk.subarray(0, Math.floor(bigApk.length / 2)));
      expect(res.body.error).toMatch(/apk/i);
      expect(res.body.entry).toEqual({ file: [res.body.error] });
    });

    it('the first half of a real .ipa', async () => {
      const res = await refusedParse('app.ipa', ipa.subarray(0, Math.floor(ipa.length / 2)), (await createAppTree(t, t.admin, 'ios')).channel.key);
      expect(res.body.error).toMatch(/ipa/i);
    });

    it('an empty file', async () => {
      const res = await refusedParse('app.apk', Buffer.alloc(0));
      expect(res.body.entry).toEqual({ file: [res.body.error] });
    });

    it('a name with an extension Hangar does not read', async () => {
      const res = await refusedParse('notes.txt', Buffer.from('hello'));
      expect(res.body.error).toMatch(/unsupported file type "\.txt"/);
    });

    it('a build for another platform than the channel: 422 entry.device_type', async () => {
      const res = await refusedParse('app.ipa', ipa);
      expect(res.body.entry).toEqual({ device_type: ['is ios but the channel takes android builds'] });
    });

    it('a build with another bundle id than the channel takes: 422 entry.bundle_id', async () => {
      const strict = await createAppTree(t, t.admin, 'android');
      const changed = await t.admin.patch(`/api/channels/${strict.channel.id}`, { bundle_id: 'com.example.other' });
      expect(changed.status, changed.text).toBe(200);
      const res = await refusedParse('app.apk', smallApk, strict.channel.key);
      expect(res.body.entry).toEqual({ bundle_id: ['is com.example.android.contactmanager but the channel takes com.example.other'] });
    });
  });
});

describe.skipIf(fixturesMissing !== null)('(f) past the configured upload size limit', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ maxUploadBytes: 1024 * 1024 });
  });
  afterAll(() => t?.close());

  it('413 with an error, nothing left behind; a build within the limit still goes in', async () => {
    const tree = await createAppTree(t, t.admin, 'android');
    const rows = fingerprint(t.sql);
    const files = await dataFiles(t.dataDir);
    const res = await uploadRaw(t.url, [{ name: 'channel_key', value: tree.channel.key }, { name: 'file', filename: 'app.apk', data: await readFile(BIG_APK.path) }], { bearer: ADMIN_TOKEN });
    expect(res.status, res.text).toBe(413);
    expect(typeof res.body.error).toBe('string');
    expect(await eventually(async () => (await entriesOf(join(t.dataDir, 'tmp'))).length === 0)).toBe(true);
    expect(fingerprint(t.sql)).toBe(rows);
    expect(await dataFiles(t.dataDir)).toEqual(files);
    const ok = await uploadRaw(t.url, [{ name: 'channel_key', value: tree.channel.key }, { name: 'file', filename: 'app.apk', data: await readFile(SMALL_APK.path) }], { bearer: ADMIN_TOKEN });
    expect(ok.status, ok.text).toBe(201);
  });
});

// ---- crashes: a real `hangar serve`, killed and started again on the same data directory ------------

const CLI_ADMIN = 'hgr_upload-faults-admin-0123456789abcdef';
const serveEnv = { HANGAR_ADMIN_TOKEN: CLI_ADMIN, HANGAR_LOG_STDOUT: '0' };
const serveOn = (data: string) => startServe(['--host', '127.0.0.1', '--port', '0', '--data', data], { env: serveEnv });

function releaseCount(data: string): number {
  return withDatabase(data, (sql) => (sql.prepare('SELECT count(*) AS n FROM releases').get() as { n: number }).n);
}

async function cliUpload(server: ServeProcess, parts: Part[]): Promise<RawResponse> {
  return uploadRaw(server.url, parts, { bearer: CLI_ADMIN });
}

describe.skipIf(fixturesMissing !== null)('crashes (a real hangar serve)', () => {
  it('(c) SIGKILL mid-upload leaves the temporary file; the next start sweeps it; no release row; the server serves', async () => {
    const data = await tempDir('hangar-upload-crash-');
    const first = await serveOn(data);
    const tmp = join(data, 'tmp');

    // a large upload, sent slowly: only its first megabytes arrive before the kill
    const junk = Buffer.alloc(256 * 1024, 0x5a);
    const total = 64 * 1024 * 1024;
    const head = Buffer.from(`--crash-boundary\r\nContent-Disposition: form-data; name="file"; filename="big.apk"\r\nContent-Type: application/vnd.android.package-archive\r\n\r\n`, 'latin1');
    const tail = Buffer.from('\r\n--crash-boundary--\r\n', 'latin1');
    const socket = await openSocket(first.url);
    socket.on('error', () => {});
    await writeAll(socket, requestHead(first.url, '/api/apps/upload', {
      authorization: `Bearer ${CLI_ADMIN}`,
      'content-type': 'multipart/form-data; boundary=crash-boundary',
      'content-length': String(head.length + total + tail.length),
    }));
    await writeAll(socket, head);
    let sent = 0;
    let tempFile: string | null = null;
    while (sent < 8 * 1024 * 1024) {
      await writeAll(socket, junk);
      sent += junk.length;
      const names = await entriesOf(tmp);
      if (names.length === 1 && (await stat(join(tmp, names[0]!))).size >= 1024 * 1024) {
        tempFile = names[0]!;
        break;
      }
      await sleep(10);
    }
    expect(tempFile, 'the upload was being written to tmp/ when the server was killed').not.toBeNull();
    expect(tempFile!).toMatch(/\.upload$/);

    const exit = await first.proc.stop('SIGKILL');
    expect(exit.signal).toBe('SIGKILL');
    socket.destroy();
    expect(existsSync(join(tmp, tempFile!)), 'the crash left the temporary file behind').toBe(true);
    expect(releaseCount(data)).toBe(0);

    const second = await serveOn(data);
    expect(await entriesOf(tmp), 'the start-up sweep removed it').toEqual([]);
    expect(releaseCount(data)).toBe(0);
    const health = await api(second.url, 'GET', '/api/health');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ healthy: true });
    const swept = (await logLines(data)).find((l) => l.msg === 'start-up sweep removed what a crash left behind');
    expect(swept, 'the sweep is logged').toBeDefined();
    expect(swept).toMatchObject({ level: 40, temporaries: 1, orphans: [] });

    const ok = await cliUpload(second, [{ name: 'file', filename: 'ContactManager.apk', data: await readFile(SMALL_APK.path) }]);
    expect(ok.status, ok.text).toBe(201);
    expect(releaseCount(data)).toBe(1);
    await second.proc.stop('SIGTERM');
  });

  it('(d) orphan directories (a crash between the move and the commit) are swept; a row whose file is gone is reported and kept', async () => {
    const data = await tempDir('hangar-upload-orphans-');
    const first = await serveOn(data);
    const apk = await readFile(SMALL_APK.path);
    const kept = await cliUpload(first, [{ name: 'file', filename: 'ContactManager.apk', data: apk }]);
    expect(kept.status, kept.text).toBe(201);
    const channelId = kept.body.channel.id as number;
    const lost = await cliUpload(first, [{ name: 'channel_key', value: await channelKey(first, channelId) }, { name: 'file', filename: 'ContactManager.apk', data: apk }]);
    expect(lost.status, lost.text).toBe(201);
    expect((await first.proc.stop('SIGTERM')).code).toBe(0);

    const filePathOf = (id: number) => withDatabase(data, (sql) => (sql.prepare('SELECT file_path FROM releases WHERE id = ?').get(id) as { file_path: string }).file_path);
    const keptFile = join(data, filePathOf(kept.body.id));
    const lostFile = join(data, filePathOf(lost.body.id));
    // what a crash after the move, before the commit, leaves: a release directory without a row ...
    const orphanRelease = join(data, 'files', 'channels', String(channelId), 'releases', String(lost.body.id + 1000));
    mkdirSync(orphanRelease, { recursive: true });
    writeFileSync(join(orphanRelease, 'release.apk'), apk);
    writeFileSync(join(orphanRelease, 'icon.png'), 'png');
    // ... and, for a new app, a whole channel directory without its channel row
    const orphanChannel = join(data, 'files', 'channels', String(channelId + 1000));
    mkdirSync(join(orphanChannel, 'releases', '1'), { recursive: true });
    writeFileSync(join(orphanChannel, 'releases', '1', 'release.apk'), apk);
    // and an operator's accident: the file of a committed release deleted from disk
    rmSync(lostFile);
    const rowsBefore = withDatabase(data, (sql) => fingerprint(sql));

    const second = await serveOn(data);
    expect(existsSync(orphanRelease), 'the orphan release directory is removed').toBe(false);
    expect(existsSync(orphanChannel), 'the orphan channel directory is removed').toBe(false);
    expect(existsSync(keptFile), 'a release with its row keeps its file').toBe(true);
    expect(sha256(await readFile(keptFile))).toBe(SMALL_APK.sha256);
    expect(withDatabase(data, (sql) => fingerprint(sql)), 'the sweep changes no row: the release without its file is kept').toBe(rowsBefore);
    expect(releaseCount(data)).toBe(2);

    const lines = await logLines(data);
    const swept = lines.find((l) => l.msg === 'start-up sweep removed what a crash left behind');
    expect(swept).toMatchObject({ level: 40, temporaries: 0 });
    expect((swept!.orphans as string[]).sort()).toEqual(
      [join('files', 'channels', String(channelId + 1000)), join('files', 'channels', String(channelId), 'releases', String(lost.body.id + 1000))].sort(),
    );
    const missing = lines.filter((l) => l.level === 50 && JSON.stringify(l).includes('missing'));
    expect(missing, 'the release whose file is missing is logged at error level').toHaveLength(1);
    expect(missing[0]!.missing).toEqual([{ table: 'releases', id: lost.body.id, path: filePathOf(lost.body.id) }]);

    const health = await api(second.url, 'GET', '/api/health');
    expect(health.status).toBe(200);
    // the release whose file is gone is still listed (for an operator to look into), and still numbered
    const versions = await api(second.url, 'GET', `/api/apps/versions?channel_key=${encodeURIComponent(await channelKey(second, channelId))}`);
    expect(versions.status).toBe(200);
    expect(versions.body.releases.map((r: { version: number }) => r.version)).toEqual([2, 1]);
    await second.proc.stop('SIGTERM');
  });
});

async function channelKey(server: ServeProcess, channelId: number): Promise<string> {
  const res = await api(server.url, 'GET', `/api/channels/${channelId}/key`, { token: CLI_ADMIN });
  expect(res.status, res.text).toBe(200);
  return res.body.key as string;
}
