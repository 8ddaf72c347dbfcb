/**
 * POST /api/apps/upload as real clients send it (R10), replayed as raw HTTP with hand-built
 * multipart bytes (fetch/FormData would normalise exactly what is under test): the file part before
 * or after the fields, unusual and quoted boundaries, no Content-Type on the file part, full-path
 * and non-ASCII file names, empty fields meaning absent, the token in every place a client puts it,
 * a preamble and an epilogue, a chunked body, fastlane's Faraday form and curl's `-F` (with
 * Expect: 100-continue). Each is answered 201 with the right release (row, size, sha256, stored bytes).
 *
 * And the refusals: no file, an unknown channel key, a bad or missing token, a member's token, a
 * body that is not multipart or is malformed multipart. Each leaves no rows and no files (logs aside); a bad token sent before the file part is
 * refused before the file is read, so nothing of it ever reaches <data>/tmp.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FileStore } from '../../src-server/storage/files.ts';
import { filesUnder, fingerprint } from '../helpers/db.ts';
import { fixture, fixturesMissing } from '../helpers/fixtures.ts';
import {
  CRLF,
  entriesOf,
  multipart,
  openSocket,
  rawRequest,
  requestHead,
  uploadRaw,
  writeAll,
  type Part,
  type RawResponse,
} from '../helpers/multipart.ts';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.ts';
import { createAppTree, createUser, type AppTree } from '../helpers/world.ts';

/** The file store of the server under test, which remembers every temporary file it was asked to open. */
class RecordingStore extends FileStore {
  readonly opened: string[] = [];
  override createTempWriteStream(tempPath: string) {
    this.opened.push(tempPath);
    return super.createTempWriteStream(tempPath);
  }
}

const IPA_PATH = fixture('ios', 'appinfodemo-1.2.3-b5-iphone-noicon.ipa');
const BIG_APK_PATH = fixture('android', 'appinfodemo-2.1.0-vc10-r8-v2signed.apk');
/** SOURCES.md: the iPhone ipa */
const IPA = { size: 42699, sha256: '8412b48390243aa11064c707247ca48dd74e4cd4cd2d0dbde76f161b2433c861', bundleId: 'com.icyleaf.AppInfoDemo', name: 'AppInfoDemo' };

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

describe.skipIf(fixturesMissing !== null)('POST /api/apps/upload, as real clients send it (R10)', () => {
  let t: TestServer;
  let store: RecordingStore;
  let ipa: Buffer;
  let tree: AppTree;

  beforeAll(async () => {
    t = await startTestServer({}, { fileStore: (dir) => (store = new RecordingStore(dir)) });
    ipa = await readFile(IPA_PATH);
    expect(sha256(ipa)).toBe(IPA.sha256);
  });
  afterAll(() => t?.close());
  beforeEach(async () => {
    tree = await createAppTree(t, t.admin, 'ios');
  });

  interface ReleaseRow {
    id: number;
    channel_id: number;
    version: number;
    file_name: string;
    file_path: string;
    size: number;
    sha256: string;
    changelog: string;
    source: string;
    branch: string | null;
  }
  const rowOf = (id: number) => t.sql.prepare('SELECT * FROM releases WHERE id = ?').get(id) as ReleaseRow | undefined;

  /** 201 with the ipa's release; its row and its stored file are the ipa (named `fileName`). */
  async function expectIpaRelease(res: RawResponse, expected: { channelId?: number; fileName?: string } = {}): Promise<ReleaseRow> {
    expect(res.status, res.text).toBe(201);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.body).toMatchObject({
      id: expect.any(Number),
      version: expect.any(Number),
      bundle_id: IPA.bundleId,
      release_version: '1.2.3',
      build_version: '5',
      size: IPA.size,
      device_type: 'ios',
    });
    if (expected.channelId !== undefined) expect(res.body.channel.id).toBe(expected.channelId);
    const row = rowOf(res.body.id);
    expect(row).toBeDefined();
    expect(row!.channel_id).toBe(res.body.channel.id);
    expect(row!.size).toBe(IPA.size);
    expect(row!.sha256).toBe(IPA.sha256);
    expect(row!.file_name).toBe(expected.fileName ?? 'app.ipa');
    expect(sha256(await readFile(join(t.dataDir, row!.file_path)))).toBe(IPA.sha256);
    expect(await entriesOf(store.tempDir), 'no temporary file outlives an upload').toEqual([]);
    return row!;
  }

  const file = (data = ipa, filename = 'app.ipa'): Part => ({ name: 'file', filename, data });
  const key = () => ({ name: 'channel_key', value: tree.channel.key });

  describe('(a) the file part before or after the text fields', () => {
    it('file first, then the fields', async () => {
      const res = await uploadRaw(t.url, [file(), key(), { name: 'changelog', value: 'first line\nsecond line' }, { name: 'branch', value: 'origin/main' }], { bearer: ADMIN_TOKEN });
      await expectIpaRelease(res, { channelId: tree.channel.id });
      expect(res.body.version).toBe(1);
      expect(res.body.changelog).toEqual([{ message: 'first line' }, { message: 'second line' }]);
      expect(res.body.branch).toBe('main');
    });

    it('fields first, then the file', async () => {
      const res = await uploadRaw(t.url, [key(), { name: 'changelog', value: 'only line' }, { name: 'source', value: 'jenkins' }, file()], { bearer: ADMIN_TOKEN });
      await expectIpaRelease(res, { channelId: tree.channel.id });
      expect(res.body.changelog).toEqual([{ message: 'only line' }]);
      expect(res.body.source).toBe('jenkins');
    });

    it('the file between the fields', async () => {
      const res = await uploadRaw(t.url, [{ name: 'git_commit', value: 'abc123' }, file(), key()], { bearer: ADMIN_TOKEN });
      await expectIpaRelease(res, { channelId: tree.channel.id });
      expect(res.body.git_commit).toBe('abc123');
    });
  });

  describe('(b) unusual boundaries', () => {
    it('a boundary of 70 characters, the most RFC 2046 allows', async () => {
      const boundary = `-_'+.0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.+_`;
      expect(boundary).toHaveLength(70);
      const res = await uploadRaw(t.url, [key(), file()], { bearer: ADMIN_TOKEN, boundary });
      await expectIpaRelease(res, { channelId: tree.channel.id });
    });

    it("a boundary with the characters '()+_,-./:=? (quoted in the Content-Type, as it must be)", async () => {
      const boundary = "'()+_,-./:=?Hangar'()+_,-./:=?";
      const res = await uploadRaw(t.url, [key(), file()], { bearer: ADMIN_TOKEN, boundary, quoteBoundary: true });
      await expectIpaRelease(res, { channelId: tree.channel.id });
    });

    it('a plain boundary sent as a quoted parameter', async () => {
      const res = await uploadRaw(t.url, [file(), key()], { bearer: ADMIN_TOKEN, boundary: 'simple-boundary-1234', quoteBoundary: true });
      await expectIpaRelease(res, { channelId: tree.channel.id });
    });

    it('a boundary after another parameter of the Content-Type', async () => {
      const form = multipart([key(), file()], { boundary: 'xYzZY' });
      const res = await rawRequest(t.url, {
        path: '/api/apps/upload',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'multipart/form-data; charset=utf-8; boundary=xYzZY' },
        body: form.body,
      });
      await expectIpaRelease(res, { channelId: tree.channel.id });
    });
  });

  it('(c) accepts a file part without a Content-Type header', async () => {
    const res = await uploadRaw(t.url, [key(), { name: 'file', filename: 'app.ipa', data: ipa, contentType: null }], { bearer: ADMIN_TOKEN });
    await expectIpaRelease(res, { channelId: tree.channel.id });
  });

  describe('(d) full-path file names keep their base name', () => {
    for (const path of ['C:\\builds\\out\\app.ipa', '/home/ci/out/app.ipa']) {
      it(`filename="${path}"`, async () => {
        const res = await uploadRaw(t.url, [key(), file(ipa, path)], { bearer: ADMIN_TOKEN });
        const row = await expectIpaRelease(res, { channelId: tree.channel.id, fileName: 'app.ipa' });

        // and that is the name a download with download_filename_type original_filename gets
        const changed = await t.admin.patch(`/api/channels/${tree.channel.id}`, { download_filename_type: 'original_filename' });
        expect(changed.status, changed.text).toBe(200);
        const download = await fetch(new URL(`/download/releases/${row.id}`, t.url), { redirect: 'manual' });
        expect(download.status).toBe(302);
        expect(download.headers.get('location')).toBe(`/download/releases/${row.id}/app.ipa`);
        const served = await fetch(new URL(download.headers.get('location')!, t.url));
        expect(served.status).toBe(200);
        expect(served.headers.get('content-disposition')).toBe(`attachment; filename="app.ipa"; filename*=UTF-8''app.ipa`);
        expect(sha256(Buffer.from(await served.arrayBuffer()))).toBe(IPA.sha256);
      });
    }
  });

  describe('(d) non-ASCII file names', () => {
    it('filename="测试 App.ipa" as raw UTF-8 (browsers, curl)', async () => {
      const res = await uploadRaw(t.url, [key(), file(ipa, '测试 App.ipa')], { bearer: ADMIN_TOKEN });
      await expectIpaRelease(res, { channelId: tree.channel.id, fileName: '测试 App.ipa' });
    });

    it("filename*=UTF-8''%E6%B5%8B%E8%AF%95.ipa (RFC 5987, as some HTTP libraries send it)", async () => {
      const res = await uploadRaw(
        t.url,
        [key(), { name: 'file', filename: '', data: ipa, headers: [`Content-Disposition: form-data; name="file"; filename*=UTF-8''%E6%B5%8B%E8%AF%95.ipa`, 'Content-Type: application/octet-stream'] }],
        { bearer: ADMIN_TOKEN },
      );
      await expectIpaRelease(res, { channelId: tree.channel.id, fileName: '测试.ipa' });
    });
  });

  it('(c) lower-case part headers with unquoted parameters', async () => {
    const res = await uploadRaw(
      t.url,
      [
        { name: 'channel_key', value: tree.channel.key, headers: ['content-disposition: form-data; name=channel_key'] },
        { name: 'file', filename: 'app.ipa', data: ipa, headers: ['content-disposition: form-data; name=file; filename=app.ipa', 'content-type: application/octet-stream'] },
      ],
      { bearer: ADMIN_TOKEN },
    );
    await expectIpaRelease(res, { channelId: tree.channel.id });
  });

  describe('(e) empty fields are absent fields', () => {
    it("changelog '', name '', release_type '', source '', branch '' into a channel", async () => {
      const res = await uploadRaw(
        t.url,
        [key(), { name: 'changelog', value: '' }, { name: 'name', value: '' }, { name: 'release_type', value: '' }, { name: 'source', value: '' }, { name: 'branch', value: '' }, { name: 'custom_fields', value: '' }, file()],
        { bearer: ADMIN_TOKEN },
      );
      const row = await expectIpaRelease(res, { channelId: tree.channel.id });
      expect(res.body.changelog).toEqual([]);
      expect(res.body.text_changelog).toBe('');
      expect(res.body.app_name).toBe(IPA.name);
      expect(res.body.source).toBe('api');
      expect(res.body.branch).toBeNull();
      expect(res.body.custom_fields).toEqual([]);
      expect(row.changelog).toBe('[]');
    });

    it("channel_key '' creates a new app (named after the build when name is '' too)", async () => {
      const appsBefore = (t.sql.prepare('SELECT count(*) AS n FROM apps').get() as { n: number }).n;
      const res = await uploadRaw(t.url, [{ name: 'channel_key', value: '' }, { name: 'name', value: '' }, file()], { bearer: ADMIN_TOKEN });
      await expectIpaRelease(res);
      expect(res.body.version).toBe(1);
      expect(res.body.app.id).not.toBe(tree.app.id);
      expect(res.body.app.name).toBe(IPA.name);
      expect(res.body.channel).toMatchObject({ name: 'iOS', device_type: 'ios' });
      expect(res.body.channel.id).not.toBe(tree.channel.id);
      expect((t.sql.prepare('SELECT count(*) AS n FROM apps').get() as { n: number }).n).toBe(appsBefore + 1);
    });

    it("password '' clears the channel's visit password (the spec: 'cleared when empty')", async () => {
      const set = await t.admin.patch(`/api/channels/${tree.channel.id}`, { password: 'visit-secret-1' });
      expect(set.status, set.text).toBe(200);
      expect(set.body.has_password).toBe(true);
      const res = await uploadRaw(t.url, [key(), { name: 'password', value: '' }, file()], { bearer: ADMIN_TOKEN });
      await expectIpaRelease(res, { channelId: tree.channel.id });
      expect(res.body.channel.has_password).toBe(false);
      const channel = await t.admin.get(`/api/channels/${tree.channel.id}`);
      expect(channel.body.has_password).toBe(false);
    });
  });

  describe('(f) the token wherever a client puts it', () => {
    it('in the query string', async () => {
      const res = await uploadRaw(t.url, [key(), file()], { query: { token: ADMIN_TOKEN } });
      await expectIpaRelease(res, { channelId: tree.channel.id });
    });

    it('in a form field before the file part', async () => {
      const res = await uploadRaw(t.url, [{ name: 'token', value: ADMIN_TOKEN }, key(), file()]);
      await expectIpaRelease(res, { channelId: tree.channel.id });
    });

    it('in a form field after the file part', async () => {
      const res = await uploadRaw(t.url, [key(), file(), { name: 'token', value: ADMIN_TOKEN }]);
      await expectIpaRelease(res, { channelId: tree.channel.id });
    });

    it('as a Bearer header', async () => {
      const res = await uploadRaw(t.url, [key(), file()], { bearer: ADMIN_TOKEN });
      await expectIpaRelease(res, { channelId: tree.channel.id });
    });

    it("a developer's token in the form, uploading to a new app", async () => {
      const dev = await createUser(t, 'developer');
      const res = await uploadRaw(t.url, [{ name: 'token', value: dev.token }, file()]);
      await expectIpaRelease(res);
      expect(res.body.app.collaborators).toEqual([expect.objectContaining({ id: dev.id, role: 'admin', owner: true })]);
    });
  });

  it('(g) CRLF throughout, with a preamble and an epilogue around the parts', async () => {
    const res = await uploadRaw(t.url, [key(), file(), { name: 'changelog', value: 'with preamble' }], {
      bearer: ADMIN_TOKEN,
      preamble: 'This is the preamble. A multipart reader ignores it.\r\nIt may span lines.',
      epilogue: '\r\nThis is the epilogue, also ignored.\r\n',
    });
    await expectIpaRelease(res, { channelId: tree.channel.id });
    expect(res.body.changelog).toEqual([{ message: 'with preamble' }]);
  });

  it('(g) a body sent with Transfer-Encoding: chunked (curl -F file=@- reading stdin)', async () => {
    const res = await uploadRaw(t.url, [key(), file()], { bearer: ADMIN_TOKEN, chunked: true });
    await expectIpaRelease(res, { channelId: tree.channel.id });
  });

  describe('(h) real clients', () => {
    it("fastlane-plugin-zealot (Faraday multipart: UploadIO with application/octet-stream, Content-Length and Content-Transfer-Encoding)", async () => {
      const boundary = '-----------RubyMultipartPost-0f8c4d7e5b2a19c3d6e8f0a1b2c3d4e5';
      // multipart-post's ParamPart and FilePart, in the plugin's order: token, channel_key, file, then the rest
      const param = (name: string, value: string): Part => ({ name, value, headers: [`Content-Disposition: form-data; name="${name}"`] });
      const parts: Part[] = [
        param('token', ADMIN_TOKEN),
        param('channel_key', tree.channel.key),
        {
          name: 'file',
          filename: 'AppInfoDemo.ipa',
          data: ipa,
          headers: [
            'Content-Disposition: form-data; name="file"; filename="AppInfoDemo.ipa"',
            `Content-Length: ${ipa.length}`,
            'Content-Type: application/octet-stream',
            'Content-Transfer-Encoding: binary',
          ],
        },
        param('changelog', '- Fix the login\n- Faster start'),
        param('release_type', 'AdHoc'),
        param('slug', 'ignored-by-zealot-uploads'),
        param('branch', 'origin/develop'),
        param('git_commit', '0123456789abcdef0123456789abcdef01234567'),
        param('custom_fields', '[{"name":"Tester","value":"QA","icon":"fas fa-user"}]'),
        param('source', 'fastlane'),
        param('ci_url', 'https://ci.example.test/job/42'),
      ];
      const form = multipart(parts, { boundary, epilogue: CRLF });
      const res = await rawRequest(t.url, {
        path: '/api/apps/upload',
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'user-agent': 'Faraday v1.10.3', accept: '*/*', 'accept-encoding': 'gzip;q=1.0,deflate;q=0.6,identity;q=0.3' },
        body: form.body,
      });
      await expectIpaRelease(res, { channelId: tree.channel.id, fileName: 'AppInfoDemo.ipa' });
      expect(res.body).toMatchObject({
        changelog: [{ message: 'Fix the login' }, { message: 'Faster start' }],
        text_changelog: '- Fix the login\n- Faster start',
        branch: 'develop',
        git_commit: '0123456789abcdef0123456789abcdef01234567',
        ci_url: 'https://ci.example.test/job/42',
        source: 'fastlane',
        custom_fields: [{ name: 'Tester', value: 'QA', icon: 'fas fa-user' }],
        release_url: expect.any(String),
        install_url: expect.any(String),
        qrcode_url: expect.any(String),
        app: expect.objectContaining({ id: tree.app.id }),
      });
    });

    it('curl -F token=... -F channel_key=... -F file=@path (with Expect: 100-continue)', async () => {
      const boundary = '------------------------d74496d66958873e';
      const res = await uploadRaw(
        t.url,
        [
          { name: 'token', value: ADMIN_TOKEN },
          key(),
          { name: 'file', filename: 'app.ipa', data: ipa, contentType: 'application/octet-stream' },
        ],
        { boundary, headers: { 'user-agent': 'curl/8.5.0', accept: '*/*' }, expectContinue: true },
      );
      await expectIpaRelease(res, { channelId: tree.channel.id });
    });

    it('curl -F file=@path;type=application/vnd.iphone and ?token= in the URL', async () => {
      const res = await uploadRaw(t.url, [key(), { name: 'file', filename: 'app.ipa', data: ipa, contentType: 'application/vnd.iphone' }], {
        boundary: '------------------------a1b2c3d4e5f60718',
        query: { token: ADMIN_TOKEN },
        headers: { 'user-agent': 'curl/7.68.0', accept: '*/*' },
      });
      await expectIpaRelease(res, { channelId: tree.channel.id });
    });
  });

  it('numbers the releases of a channel 1, 2, 3 whichever way they arrive', async () => {
    const versions: number[] = [];
    for (const parts of [[file(), key()], [key(), file()], [{ name: 'token', value: ADMIN_TOKEN }, key(), file()]] as Part[][]) {
      const res = await uploadRaw(t.url, parts, { bearer: ADMIN_TOKEN });
      await expectIpaRelease(res, { channelId: tree.channel.id });
      versions.push(res.body.version);
    }
    expect(versions).toEqual([1, 2, 3]);
  });

  // ---- refusals -------------------------------------------------------------------------------------

  describe('refusals leave no rows and no files', () => {
    /** Everything under the data directory but the logs. */
    const dataFiles = async () => (await filesUnder(t.dataDir)).filter((f) => !f.startsWith('logs/'));

    /** Runs a request that must be refused; answers it with how many temporary files it opened (and removed). */
    async function unchanged(request: () => Promise<RawResponse>): Promise<RawResponse & { tempFilesOpened: number }> {
      const rows = fingerprint(t.sql);
      const files = await dataFiles();
      const opened = store.opened.length;
      const res = await request();
      expect(res.headers['content-type'], res.text).toBe('application/json; charset=utf-8');
      expect(typeof res.body.error, res.text).toBe('string');
      expect(fingerprint(t.sql), 'no row changed').toBe(rows);
      expect(await dataFiles(), 'no file added or removed').toEqual(files);
      expect(await entriesOf(store.tempDir), 'nothing left in tmp/').toEqual([]);
      return { ...res, tempFilesOpened: store.opened.length - opened };
    }

    it('no file part: 422 entry.file', async () => {
      const res = await unchanged(() => uploadRaw(t.url, [key(), { name: 'changelog', value: 'no file' }], { bearer: ADMIN_TOKEN }));
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ error: 'Unprocessable entity', entry: { file: ["can't be blank"] } });
    });

    it('a file part under another name is not the build: 422 entry.file', async () => {
      const res = await unchanged(() => uploadRaw(t.url, [key(), { name: 'binary', filename: 'app.ipa', data: ipa }], { bearer: ADMIN_TOKEN }));
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ error: 'Unprocessable entity', entry: { file: ["can't be blank"] } });
    });

    it('an empty body with a multipart Content-Type: 422 entry.file', async () => {
      const res = await unchanged(() => uploadRaw(t.url, [], { bearer: ADMIN_TOKEN }));
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ error: 'Unprocessable entity', entry: { file: ["can't be blank"] } });
    });

    it('an unknown channel_key: 422 "Unauthorized channel key"', async () => {
      for (const parts of [
        [{ name: 'channel_key', value: 'no-such-channel-key' }, file()],
        [file(), { name: 'channel_key', value: 'no-such-channel-key' }],
      ] as Part[][]) {
        const res = await unchanged(() => uploadRaw(t.url, parts, { bearer: ADMIN_TOKEN }));
        expect(res.status).toBe(422);
        expect(res.body).toEqual({ error: 'Unauthorized channel key', entry: { channel_key: ['is not a known channel key'] } });
      }
    });

    it('a bad token in a form field before the file part: 401, and the file is never read into tmp/', async () => {
      const res = await unchanged(() => uploadRaw(t.url, [{ name: 'token', value: 'hgr_not-a-real-token-0000000000000000' }, key(), file()]));
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'Unauthorized user token' });
      expect(res.tempFilesOpened, 'no temporary file was opened').toBe(0);
    });

    it('a bad token before a large file part is answered 401 before the file is sent', async () => {
      const apk = readFileSync(BIG_APK_PATH);
      const form = multipart([{ name: 'token', value: 'hgr_not-a-real-token-1111111111111111' }, key(), { name: 'file', filename: 'app.apk', data: apk }]);
      const opened = store.opened.length;
      const socket = await openSocket(t.url);
      try {
        let received = '';
        const answered = new Promise<string>((resolve, reject) => {
          socket.on('data', (chunk: Buffer) => {
            received += chunk.toString('latin1');
            if (received.includes('\r\n\r\n')) resolve(received);
          });
          socket.on('error', reject);
        });
        await writeAll(socket, requestHead(t.url, '/api/apps/upload', { 'content-type': form.contentType, 'content-length': String(form.body.length) }));
        // the fields and the first 64 KiB of the file; the rest is held back until the server has answered
        const fileStart = form.body.indexOf(Buffer.from('\r\n\r\n', 'latin1'), form.body.indexOf(Buffer.from('filename="app.apk"'))) + 4;
        await writeAll(socket, form.body.subarray(0, fileStart + 65536));
        const head = await Promise.race([answered, new Promise<string>((_, reject) => setTimeout(() => reject(new Error(`no answer before the file was sent: ${received}`)), 5_000))]);
        expect(head).toMatch(/^HTTP\/1\.1 401 /);
        expect(store.opened.length - opened, 'no temporary file was opened').toBe(0);
        expect(await entriesOf(store.tempDir)).toEqual([]);
      } finally {
        socket.destroy();
      }
    });

    it('a bad token in a form field after the file part: 401, the file read is removed', async () => {
      const res = await unchanged(() => uploadRaw(t.url, [key(), file(), { name: 'token', value: 'hgr_not-a-real-token-2222222222222222' }]));
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'Unauthorized user token' });
    });

    it('a bad token in the query or the header: 401 before the body is read', async () => {
      for (const options of [{ query: { token: 'hgr_bad-query-token-333333333333' } }, { bearer: 'hgr_bad-bearer-token-44444444444' }]) {
        const res = await unchanged(() => uploadRaw(t.url, [key(), file()], options));
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ error: 'Unauthorized user token' });
        expect(res.tempFilesOpened).toBe(0);
      }
    });

    it('no token anywhere: 401', async () => {
      for (const parts of [[key(), file()], [file()], [{ name: 'token', value: '' }, file()]] as Part[][]) {
        const res = await unchanged(() => uploadRaw(t.url, parts));
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ error: 'Unauthorized user token' });
      }
    });

    it('a member (read-only collaborator) of the channel\'s app: 403', async () => {
      const member = await createUser(t, 'member');
      const added = await t.admin.post(`/api/apps/${tree.app.id}/collaborators`, { user_id: member.id, role: 'member' });
      expect(added.status, added.text).toBe(201);
      const res = await unchanged(() => uploadRaw(t.url, [key(), file()], { bearer: member.token }));
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'You are not allowed to perform this action' });
    });

    it('a body that is not multipart: 415', async () => {
      const cases: { contentType: string; body: Buffer; error: string }[] = [
        { contentType: 'application/octet-stream', body: ipa, error: 'Unsupported Content-Type: send JSON, a form or multipart' },
        { contentType: 'text/plain', body: Buffer.from('hello'), error: 'Unsupported Content-Type: send JSON, a form or multipart' },
        { contentType: 'application/json', body: Buffer.from(JSON.stringify({ channel_key: tree.channel.key })), error: 'Send the build as multipart/form-data' },
        { contentType: 'application/x-www-form-urlencoded', body: Buffer.from(`channel_key=${tree.channel.key}`), error: 'Send the build as multipart/form-data' },
      ];
      for (const c of cases) {
        const res = await unchanged(() => rawRequest(t.url, { path: '/api/apps/upload', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': c.contentType }, body: c.body }));
        expect(res.status, `${c.contentType}: ${res.text}`).toBe(415);
        expect(res.body).toEqual({ error: c.error });
      }
    });

    it('a multipart Content-Type without a boundary: a client error (400 or 415), not 500', async () => {
      const form = multipart([key(), file()]);
      const res = await unchanged(() => rawRequest(t.url, { path: '/api/apps/upload', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'multipart/form-data' }, body: form.body }));
      expect([400, 415], `${res.status} ${res.text}`).toContain(res.status);
    });

    it('a multipart body that ends before its closing boundary: 400 malformed, not 500', async () => {
      const form = multipart([key(), file()]);
      const truncated = form.body.subarray(0, form.body.length - 200); // complete as sent (Content-Length matches), but cut inside the file part
      const res = await unchanged(() => rawRequest(t.url, { path: '/api/apps/upload', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': form.contentType }, body: truncated }));
      expect(res.status, res.text).toBe(400);
    });
  });
});
