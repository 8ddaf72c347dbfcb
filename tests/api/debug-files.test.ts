/**
 * Debug files through the API (R15): every archive of ../shared/fixtures/symbols uploaded (UUIDs,
 * architectures and names as SOURCES.md gives them), both shapes, the file at `file_url` and the
 * download's choice of file (each ordering rule), listing, reading, replacing and deleting, the
 * guards (crafted zips: neither kind, the same zip twice, a zip bomb, too many entries, names that
 * climb out), and failures that must leave nothing behind.
 *
 * The server's public base URL is a fixed name (BASE) so that `file_url` can be checked exactly; the
 * tests fetch such URLs from the test server by swapping that origin for the real one.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, type Dirent } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, resolveConfig } from '../../src-server/config/config.ts';
import { FileStore } from '../../src-server/storage/files.ts';
import { filesUnder, fingerprint } from '../helpers/db.ts';
import { fixture, fixturesMissing } from '../helpers/fixtures.ts';
import { makeZip } from '../helpers/make-zip.ts';
import { entriesOf, eventually, multipart, openSocket, requestHead, sleep, writeAll } from '../helpers/multipart.ts';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.ts';
import { dsymEntries, dsymZip, mappingZip, postDebugFile, thinMachO } from '../helpers/symbols.ts';
import { addCollaborator, createAppTree, createUser, type AppTree } from '../helpers/world.ts';

const BASE = 'http://hangar.test:7700';
const LIMITS = { maxUncompressedBytes: 16 * 1024 * 1024, maxEntries: 50 };

const APPLE = (name: string) => fixture('symbols', 'apple', name);
const ANDROID = (name: string) => fixture('symbols', 'android', name);
const FULL_MAPPING_UUID = '81384aeb-4837-5f73-a771-417b4399a483';

const sha256 = (data: Buffer | Uint8Array) => createHash('sha256').update(data).digest('hex');
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/**
 * A file store whose moves into place fail on demand: at the rename (after making the directory, as
 * the real move does), or just after it (as a failed commit would leave things).
 */
class FaultyStore extends FileStore {
  fail: 'move' | 'after-move' | null = null;

  override moveIntoPlace(tempPath: string, storedPath: string): void {
    if (this.fail === 'move') {
      mkdirSync(dirname(this.resolve(storedPath)), { recursive: true });
      throw Object.assign(new Error('EIO: i/o error, rename'), { code: 'EIO' });
    }
    super.moveIntoPlace(tempPath, storedPath);
    if (this.fail === 'after-move') throw new Error('the commit failed');
  }
}

let t: TestServer;
let store: FaultyStore;
/** the server's clock runs `clockShift` ms ahead of the real one */
let clockShift = 0;

/** A URL the server handed out, made fetchable: its origin swapped for the test server's. */
const local = (url: string) => {
  expect(url.startsWith(`${BASE}/`), url).toBe(true);
  return t.url + url.slice(BASE.length);
};
const get = (url: string, init: RequestInit = {}) => fetch(url.startsWith('http') ? url : `${t.url}${url}`, { redirect: 'manual', ...init });
const bytes = async (res: Response) => Buffer.from(await res.arrayBuffer());
const rowsOf = (table: string, where = '1 = 1', ...args: unknown[]) => t.sql.prepare(`SELECT * FROM ${table} WHERE ${where} ORDER BY id`).all(...args) as Record<string, any>[];

/** Uploads and expects 201; answers the body. */
async function uploaded(tree: AppTree, zip: Buffer, fields: Record<string, string> = {}, shape?: 'base' | 'extended') {
  const res = await postDebugFile(t.admin, zip, { channel_key: tree.channel.key, ...fields }, { ...(shape && { shape }) });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** Where the download of a channel's debug file redirects to, for a query. */
async function downloadLocation(key: string, query: Record<string, string>): Promise<string> {
  const res = await get(`/api/debug_files/download?${new URLSearchParams({ channel_key: key, ...query })}`);
  expect(res.status, await res.clone().text()).toBe(302);
  return res.headers.get('location')!;
}

/** The id of the debug file the download picks. */
async function picked(key: string, query: Record<string, string>): Promise<number> {
  const location = await downloadLocation(key, query);
  const match = new RegExp(`^${BASE}/download/debug_files/(\\d+)\\?exp=\\d+&sig=[\\w-]+$`).exec(location);
  expect(match, location).not.toBeNull();
  return Number(match![1]);
}

/** Every file and directory under the data directory but the logs, and every row. */
async function snapshot() {
  const dirs: string[] = [];
  const walk = (dir: string, rel: string) => {
    let entries: Dirent[] = [];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries.filter((d) => d.isDirectory())) {
      dirs.push(join(rel, e.name));
      walk(join(dir, e.name), join(rel, e.name));
    }
  };
  walk(join(t.dataDir, 'files'), '');
  return { rows: fingerprint(t.sql), files: (await filesUnder(t.dataDir)).filter((f) => !f.startsWith('logs/')), dirs: dirs.sort() };
}
async function expectUnchanged(before: Awaited<ReturnType<typeof snapshot>>) {
  expect(await eventually(async () => (await entriesOf(join(t.dataDir, 'tmp'))).length === 0), 'nothing left in tmp/').toBe(true);
  expect(await snapshot()).toEqual(before);
}

beforeAll(async () => {
  t = await startTestServer({ baseUrl: BASE, symbolLimits: LIMITS }, { now: () => Date.now() + clockShift, fileStore: (dir) => (store = new FaultyStore(dir)) });
});
afterAll(() => t?.close());

describe.skipIf(fixturesMissing !== null)('every archive of ../shared/fixtures/symbols, uploaded (SOURCES.md, Debug symbols)', () => {
  let ios: AppTree;
  beforeAll(async () => {
    ios = await createAppTree(t, t.admin, 'ios');
  });

  /** uuid, arch and object name of each metadata entry (base shape) */
  const slices = (body: any) => body.metadata.map((m: any) => `${m.type} ${m.uuid} ${m.object}`);

  it('dsym-ios-single-arm64.zip: 201 with its arm64 slice; versions from its Info.plist, not from the form', async () => {
    const body = await uploaded(ios, readFileSync(APPLE('dsym-ios-single-arm64.zip')), { release_version: '9.9', build_version: '99' }, 'base');
    expect(body).toMatchObject({ app_name: expect.any(String), device_type: 'ios', release_version: '1.0', build_version: '1', file_url: `${BASE}/download/debug_files/${body.id}` });
    expect(slices(body)).toEqual(['arm64 EA9BBF2D-BFDD-3CE0-85B2-1CBE7152FCA5 iOS']);
    expect(body.metadata[0]).toMatchObject({ debug_file_id: body.id, size: 866911, data: { main: true, identifier: 'com.icyleaf.iOS' } });
  });

  it('dsym-ios-single-fat-armv7-arm64.zip: one entry per slice, in the fat file\'s order', async () => {
    const body = await uploaded(ios, readFileSync(APPLE('dsym-ios-single-fat-armv7-arm64.zip')), {}, 'base');
    expect(body).toMatchObject({ release_version: '1.0', build_version: '2' });
    expect(slices(body)).toEqual(['armv7 26DFC15D-BDCE-351F-B5DE-6EE9F5DD6D85 iOS', 'arm64 17F58291-DD25-3FC8-9417-CCBE8163D33E iOS']);
    expect(body.metadata.map((m: any) => m.size)).toEqual([866526, 866911]);
  });

  it('dsym-ios-two-bundles-at-root-with-macosx-junk.zip: both bundles, the app main and the notification extension not (extended shape)', async () => {
    const body = await uploaded(ios, readFileSync(APPLE('dsym-ios-two-bundles-at-root-with-macosx-junk.zip')), {}, 'extended');
    expect(body.device_type).toBe('iOS');
    expect(body.file_url).toBeUndefined();
    expect(body.metadata).toEqual([
      { id: expect.any(Number), category: 'dSYM', uuid: '52E65DBE-8234-3387-B733-C5044E26653F', bundle_id: 'im.ews.ios.AppInfo', name: 'AppInfo', extension: false, size: 1029092, created_at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4}$/) },
      { id: expect.any(Number), category: 'dSYM', uuid: '628E9796-746C-3FEC-91E7-586B4BED352A', bundle_id: 'im.ews.ios.AppInfo.AppInfoNotificationCenter', name: 'AppInfoNotificationCenter', extension: true, size: 988131, created_at: expect.any(String) },
    ]);
  });

  it('dsym-macos-Example.framework-fat-x86_64-arm64.zip into a macOS channel: device_type macos / macOS', async () => {
    const macos = await createAppTree(t, t.admin, 'macos');
    const body = await uploaded(macos, readFileSync(APPLE('dsym-macos-Example.framework-fat-x86_64-arm64.zip')), {}, 'base');
    expect(body).toMatchObject({ device_type: 'macos', release_version: '1.0', build_version: '1' });
    expect(slices(body)).toEqual(['x86_64 3B4566E4-491B-3DCF-94F5-AE51F624DD87 Example', 'arm64 2556F151-5A40-3847-BE6C-E2C1B5BE4DF8 Example']);
    expect(body.metadata.every((m: any) => m.data.identifier === 'com.example.Example' && m.data.main === true)).toBe(true);
    const extended = await t.admin.get(`/api/debug_files/${body.id}`, { shape: 'extended' });
    expect(extended.body.device_type).toBe('macOS');
  });

  it('android-mapping-with-manifest-and-rtxt.zip: the mapping UUID, the package, the files; versions from the form', async () => {
    const android = await createAppTree(t, t.admin, 'android');
    const body = await uploaded(android, readFileSync(ANDROID('android-mapping-with-manifest-and-rtxt.zip')), { release_version: '1.0.3', build_version: '103' }, 'base');
    expect(body).toMatchObject({ device_type: 'android', release_version: '1.0.3', build_version: '103' });
    const files = [
      { name: 'AndroidManifest.xml', size: 1268 },
      { name: 'R.txt', size: 147585 },
      { name: 'mapping.txt', size: 1666940 },
    ];
    expect(body.metadata).toEqual([
      {
        id: expect.any(Number),
        debug_file_id: body.id,
        uuid: FULL_MAPPING_UUID,
        type: 'proguard',
        object: 'com.icyleaf.appinfo',
        data: { files, package_name: 'com.icyleaf.appinfo', version_name: '1.0', version_code: '1' },
        size: 1268 + 147585 + 1666940,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$/),
        updated_at: expect.any(String),
      },
    ]);
    const extended = await t.admin.get(`/api/debug_files/${body.id}`, { shape: 'extended' });
    expect(extended.body.device_type).toBe('Android');
    expect(extended.body.metadata).toEqual([
      { id: body.metadata[0].id, category: 'Proguard', uuid: FULL_MAPPING_UUID, bundle_id: 'com.icyleaf.appinfo', name: 'com.icyleaf.appinfo', extension: false, size: 1268 + 147585 + 1666940, files, created_at: expect.any(String) },
    ]);
  });

  it('android-mapping-only.zip: the same mapping, so the same UUID; without versions it is 422', async () => {
    const android = await createAppTree(t, t.admin, 'android');
    const zip = readFileSync(ANDROID('android-mapping-only.zip'));
    const before = await snapshot();
    const missing = await postDebugFile(t.admin, zip, { channel_key: android.channel.key, build_version: '1' });
    expect(missing.status, missing.text).toBe(422);
    expect(missing.body.entry).toEqual({ release_version: ["can't be blank"] });
    await expectUnchanged(before);
    const body = await uploaded(android, zip, { release_version: '1.0', build_version: '1' }, 'base');
    expect(body.metadata).toMatchObject([{ uuid: FULL_MAPPING_UUID, type: 'proguard', object: null, data: { files: [{ name: 'mapping.txt', size: 1666940 }] } }]);
  });

  it('the file at file_url is the zip, byte for byte, with the channel key; HEAD and Range work', async () => {
    const zip = readFileSync(APPLE('dsym-macos-Example.framework-fat-x86_64-arm64.zip'));
    const tree = await createAppTree(t, t.admin, 'macos');
    const body = await uploaded(tree, zip, {}, 'base');
    const url = `${local(body.file_url)}?channel_key=${tree.channel.key}`;
    const res = await get(url);
    expect(res.status).toBe(200);
    expect(sha256(await bytes(res))).toBe(sha256(zip));
    expect(res.headers.get('etag')).toBe(`"${sha256(zip)}"`);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${tree.channel.slug}_1.0_1_symbols.zip"; filename*=UTF-8''${tree.channel.slug}_1.0_1_symbols.zip`);
    const head = await get(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(zip.length));
    expect((await bytes(head)).length).toBe(0);
    const range = await get(url, { headers: { range: 'bytes=0-99' } });
    expect(range.status).toBe(206);
    expect((await bytes(range)).equals(zip.subarray(0, 100))).toBe(true);
  });
});

describe('the file at file_url: the channel key or a signed link, nothing less', () => {
  let tree: AppTree;
  let other: AppTree;
  let file: any;
  const zip = mappingZip('com.example.Guarded -> a:');

  beforeAll(async () => {
    tree = await createAppTree(t, t.admin, 'android');
    other = await createAppTree(t, t.admin, 'android');
    file = await uploaded(tree, zip, { release_version: '1.0', build_version: '1' }, 'base');
  });

  it('401 without proof, with another channel\'s key, with a forged or expired signature', async () => {
    const url = local(file.file_url);
    for (const query of ['', `?channel_key=${other.channel.key}`, '?channel_key=nope', `?exp=${Math.floor(Date.now() / 1000) + 600}&sig=forged`]) {
      const res = await get(url + query);
      expect(res.status, query).toBe(401);
      expect((await res.json()).error).toMatch(/channel_key/);
    }
    const location = await downloadLocation(tree.channel.key, { release_version: 'latest' });
    expect((await get(local(location))).status).toBe(200);
    // the link of another file does not open this one
    const second = await uploaded(tree, mappingZip('com.example.Second -> a:'), { release_version: '1.0', build_version: '2' }, 'base');
    const secondLink = await downloadLocation(tree.channel.key, { release_version: '1.0', build_version: '2' });
    expect(secondLink.startsWith(`${second.file_url}?`)).toBe(true);
    expect((await get(local(secondLink.replace(`/${second.id}?`, `/${file.id}?`)))).status).toBe(401);
    // an hour later the link is no good
    clockShift = 3601 * 1000;
    try {
      expect((await get(local(location))).status).toBe(401);
    } finally {
      clockShift = 0;
    }
  });

  it('404 for a debug file that does not exist', async () => {
    expect((await get(`/download/debug_files/999999?channel_key=${tree.channel.key}`)).status).toBe(404);
  });
});

describe('GET /api/debug_files/download: which file (R15)', () => {
  let tree: AppTree;
  /** upload order -> id */
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    tree = await createAppTree(t, t.admin, 'android');
    // in this order: the last uploaded is neither the highest version nor the highest build
    for (const [rv, bv] of [['1.9', '30'], ['1.10', '5'], ['1.10', '12'], ['1.2', '100'], ['1.10', '9']] as const) {
      ids[`${rv}/${bv}`] = (await uploaded(tree, mappingZip(`${rv} ${bv}`), { release_version: rv, build_version: bv })).id;
    }
  });

  it('release_version=latest, order=version (the default): the highest version, compared as numbers (1.10 > 1.9 > 1.2)', async () => {
    expect(await picked(tree.channel.key, { release_version: 'latest', order: 'version' })).toBe(ids['1.10/12']);
    expect(await picked(tree.channel.key, { release_version: 'latest' })).toBe(ids['1.10/12']);
  });

  it('release_version=latest, order=upload_date: the last uploaded', async () => {
    expect(await picked(tree.channel.key, { release_version: 'latest', order: 'upload_date' })).toBe(ids['1.10/9']);
  });

  it('release_version and build_version: exactly that build', async () => {
    expect(await picked(tree.channel.key, { release_version: '1.10', build_version: '5' })).toBe(ids['1.10/5']);
    expect(await picked(tree.channel.key, { release_version: '1.9', build_version: '30', order: 'upload_date' })).toBe(ids['1.9/30']);
  });

  it('release_version without build_version: the first of that release by the order (highest build, or last uploaded)', async () => {
    expect(await picked(tree.channel.key, { release_version: '1.10' })).toBe(ids['1.10/12']);
    expect(await picked(tree.channel.key, { release_version: '1.10', order: 'upload_date' })).toBe(ids['1.10/9']);
    expect(await picked(tree.channel.key, { release_version: '1.2' })).toBe(ids['1.2/100']);
  });

  it('two files of the same build: the last uploaded', async () => {
    const again = (await uploaded(tree, mappingZip('1.2 100 again'), { release_version: '1.2', build_version: '100' })).id;
    expect(await picked(tree.channel.key, { release_version: '1.2', build_version: '100' })).toBe(again);
    expect(await picked(tree.channel.key, { release_version: '1.2' })).toBe(again);
  });

  it('the redirect leads to that very file', async () => {
    const location = await downloadLocation(tree.channel.key, { release_version: '1.10', build_version: '5' });
    const res = await get(local(location));
    expect(res.status).toBe(200);
    expect((await bytes(res)).equals(mappingZip('1.10 5'))).toBe(true);
  });

  it('404 when no file fits: another version, another build, an empty channel', async () => {
    const empty = await createAppTree(t, t.admin, 'android');
    for (const [key, query] of [
      [tree.channel.key, { release_version: '2.0' }],
      [tree.channel.key, { release_version: '1.10', build_version: '7' }],
      [tree.channel.key, { release_version: '1.10.0', build_version: '5' }],
      [empty.channel.key, { release_version: 'latest' }],
    ] as const) {
      const res = await t.anon.get('/api/debug_files/download', { query: { channel_key: key, ...query } });
      expect(res.status, JSON.stringify(query)).toBe(404);
      expect(res.body).toEqual({ error: 'Debug file not found' });
    }
  });

  it('422 without release_version, with an unknown order, without or with an unknown channel_key', async () => {
    const missing = await t.anon.get('/api/debug_files/download', { query: { channel_key: tree.channel.key } });
    expect(missing.status).toBe(422);
    expect(missing.body.entry).toEqual({ release_version: ["can't be blank"] });
    const order = await t.anon.get('/api/debug_files/download', { query: { channel_key: tree.channel.key, release_version: 'latest', order: 'size' } });
    expect(order.status).toBe(422);
    expect(order.body.entry).toEqual({ order: ['is not included in the list'] });
    for (const key of [undefined, 'not-a-key']) {
      const res = await t.anon.get('/api/debug_files/download', { query: { channel_key: key, release_version: 'latest' } });
      expect(res.status).toBe(422);
      expect(res.body.error).toBe('Unauthorized channel key');
    }
  });
});

describe('listing, reading, replacing and deleting', () => {
  let tree: AppTree;
  let first: any;
  let second: any;

  beforeAll(async () => {
    tree = await createAppTree(t, t.admin, 'ios');
    first = await uploaded(tree, dsymZip({ uuid: uuid(1), releaseVersion: '1.0', buildVersion: '1' }));
    second = await uploaded(tree, dsymZip({ uuid: uuid(2), releaseVersion: '1.1', buildVersion: '2' }));
  });

  it('GET /api/debug_files: the channel\'s files only, newest first, paginated; public with the key', async () => {
    const other = await createAppTree(t, t.admin, 'ios');
    await uploaded(other, dsymZip({ uuid: uuid(3) }));
    const all = await t.anon.get('/api/debug_files', { query: { channel_key: tree.channel.key } });
    expect(all.status).toBe(200);
    expect(all.body.map((f: any) => f.id)).toEqual([second.id, first.id]);
    const page2 = await t.anon.get('/api/debug_files', { query: { channel_key: tree.channel.key, page: 2, per_page: 1 } });
    expect(page2.body.map((f: any) => f.id)).toEqual([first.id]);
    expect((await t.anon.get('/api/debug_files', { query: { channel_key: tree.channel.key, page: 3, per_page: 1 } })).body).toEqual([]);
    for (const query of [{ per_page: 0 }, { per_page: 101 }, { page: 0 }]) {
      const res = await t.anon.get('/api/debug_files', { query: { channel_key: tree.channel.key, ...query } });
      expect(res.status, JSON.stringify(query)).toBe(422);
    }
    const unknown = await t.anon.get('/api/debug_files', { query: { channel_key: 'nope' } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toBe('Unauthorized channel key');
  });

  it('GET /api/debug_files/:id: with a token; a channel_key, when given, must be the file\'s channel', async () => {
    const res = await t.admin.get(`/api/debug_files/${first.id}`, { query: { channel_key: tree.channel.key } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: first.id, release_version: '1.0', metadata: [{ uuid: uuid(1).toUpperCase() }] });
    const other = await createAppTree(t, t.admin, 'ios');
    expect((await t.admin.get(`/api/debug_files/${first.id}`, { query: { channel_key: other.channel.key } })).status).toBe(404);
    expect((await t.admin.get(`/api/debug_files/${first.id}`, { query: { channel_key: 'nope' } })).status).toBe(422);
    expect((await t.admin.get('/api/debug_files/999999')).status).toBe(404);
    expect((await t.anon.get(`/api/debug_files/${first.id}`)).status).toBe(401);
  });

  it('PUT /api/debug_files/:id replaces the zip, its versions and metadata; the old file goes', async () => {
    const target = await uploaded(tree, dsymZip({ uuid: uuid(10), releaseVersion: '2.0', buildVersion: '20' }));
    const [before] = rowsOf('debug_files', 'id = ?', target.id);
    expect(existsSync(join(t.dataDir, before!.file_path))).toBe(true);
    const zip = dsymZip({ uuid: uuid(11), releaseVersion: '2.0.1', buildVersion: '21' });
    const res = await postDebugFile(t.admin, zip, { channel_key: tree.channel.key }, { replace: target.id, shape: 'base' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: target.id, release_version: '2.0.1', build_version: '21', metadata: [{ uuid: uuid(11).toUpperCase() }] });
    expect(rowsOf('debug_file_metadata', 'debug_file_id = ?', target.id).map((m) => m.uuid)).toEqual([uuid(11).toUpperCase()]);
    const [after] = rowsOf('debug_files', 'id = ?', target.id);
    expect(after!.sha256).toBe(sha256(zip));
    expect(after!.created_at).toBe(before!.created_at);
    expect(existsSync(join(t.dataDir, before!.file_path)), 'the replaced file is gone').toBe(false);
    expect(readFileSync(join(t.dataDir, after!.file_path)).equals(zip)).toBe(true);
    const served = await get(`${local(res.body.file_url)}?channel_key=${tree.channel.key}`);
    expect((await bytes(served)).equals(zip)).toBe(true);
  });

  it('PUT with a zip another debug file of the channel has: 422 entry.checksum; with one that cannot be read: 422; either way the file stays as it was', async () => {
    const target = await uploaded(tree, dsymZip({ uuid: uuid(12) }));
    const before = await snapshot();
    const taken = await postDebugFile(t.admin, dsymZip({ uuid: uuid(1), releaseVersion: '1.0', buildVersion: '1' }), { channel_key: tree.channel.key }, { replace: target.id });
    expect(taken.status, taken.text).toBe(422);
    expect(taken.body.entry).toEqual({ checksum: ['has already been taken'] });
    const unreadable = await postDebugFile(t.admin, makeZip({ 'notes.txt': 'no symbols here' }), { channel_key: tree.channel.key }, { replace: target.id });
    expect(unreadable.status, unreadable.text).toBe(422);
    expect(unreadable.body.error).toMatch(/neither a dSYM bundle/);
    await expectUnchanged(before);
    // the same zip again is fine: it is this file's own
    const same = await postDebugFile(t.admin, dsymZip({ uuid: uuid(12) }), { channel_key: tree.channel.key }, { replace: target.id });
    expect(same.status, same.text).toBe(200);
  });

  it('DELETE /api/debug_files/:id: {"mesage":"OK"}, its rows and its files gone; then 404', async () => {
    const target = await uploaded(tree, dsymZip({ uuid: uuid(13) }));
    const [row] = rowsOf('debug_files', 'id = ?', target.id);
    const res = await t.admin.delete(`/api/debug_files/${target.id}`, { query: { channel_key: tree.channel.key } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ mesage: 'OK' });
    expect(rowsOf('debug_files', 'id = ?', target.id)).toEqual([]);
    expect(rowsOf('debug_file_metadata', 'debug_file_id = ?', target.id)).toEqual([]);
    expect(existsSync(join(t.dataDir, `files/channels/${tree.channel.id}/debug_files/${target.id}`))).toBe(false);
    expect(existsSync(join(t.dataDir, row!.file_path))).toBe(false);
    expect((await t.admin.delete(`/api/debug_files/${target.id}`)).status).toBe(404);
  });

  it('deleting the channel takes its debug files and their files', async () => {
    const doomed = await createAppTree(t, t.admin, 'ios');
    const file = await uploaded(doomed, dsymZip({ uuid: uuid(14) }));
    expect((await t.admin.delete(`/api/channels/${doomed.channel.id}`)).status).toBe(200);
    expect(rowsOf('debug_files', 'id = ?', file.id)).toEqual([]);
    expect(existsSync(join(t.dataDir, `files/channels/${doomed.channel.id}`))).toBe(false);
  });

  it('an archived app\'s debug files are read-only (409); reading still works', async () => {
    const archived = await createAppTree(t, t.admin, 'ios');
    const file = await uploaded(archived, dsymZip({ uuid: uuid(15) }));
    expect((await t.admin.patch(`/api/apps/${archived.app.id}`, { archived: true })).status).toBe(200);
    expect((await postDebugFile(t.admin, dsymZip({ uuid: uuid(16) }), { channel_key: archived.channel.key })).status).toBe(409);
    expect((await postDebugFile(t.admin, dsymZip({ uuid: uuid(16) }), { channel_key: archived.channel.key }, { replace: file.id })).status).toBe(409);
    expect((await t.admin.delete(`/api/debug_files/${file.id}`)).status).toBe(409);
    expect((await t.admin.get(`/api/debug_files/${file.id}`)).status).toBe(200);
  });

  it('an app member may read but not upload, replace or delete (403); an app developer may', async () => {
    const member = await createUser(t, 'member');
    const developer = await createUser(t, 'member');
    await addCollaborator(t, tree.app.id, member.id, 'member');
    await addCollaborator(t, tree.app.id, developer.id, 'developer');
    expect((await member.client.get(`/api/debug_files/${first.id}`)).status).toBe(200);
    expect((await postDebugFile(member.client, dsymZip({ uuid: uuid(20) }), { channel_key: tree.channel.key })).status).toBe(403);
    expect((await postDebugFile(member.client, dsymZip({ uuid: uuid(20) }), {}, { replace: first.id })).status).toBe(403);
    expect((await member.client.delete(`/api/debug_files/${first.id}`)).status).toBe(403);
    const created = await postDebugFile(developer.client, dsymZip({ uuid: uuid(20) }), { channel_key: tree.channel.key });
    expect(created.status, created.text).toBe(201);
    // the token may travel in the form too, as fastlane sends it
    const viaForm = await postDebugFile(t.anon, dsymZip({ uuid: uuid(21) }), { channel_key: tree.channel.key, token: developer.token });
    expect(viaForm.status, viaForm.text).toBe(201);
    expect((await developer.client.delete(`/api/debug_files/${created.body.id}`)).status).toBe(200);
  });
});

describe('what an upload must be (422, nothing stored)', () => {
  let ios: AppTree;
  let android: AppTree;
  beforeAll(async () => {
    ios = await createAppTree(t, t.admin, 'ios');
    android = await createAppTree(t, t.admin, 'android');
  });

  async function refused(tree: AppTree, zip: Buffer, fields: Record<string, string> = {}) {
    const before = await snapshot();
    const res = await postDebugFile(t.admin, zip, { channel_key: tree.channel.key, ...fields });
    expect(res.status, res.text).toBe(422);
    expect(res.body.error, 'no server paths in the message').not.toContain(t.dataDir);
    await expectUnchanged(before);
    return res.body;
  }

  it('a zip that is neither a dSYM nor a mapping archive', async () => {
    const body = await refused(ios, makeZip({ 'Payload/App.app/Info.plist': 'x', 'README.md': 'hello' }));
    expect(body.entry).toEqual({ file: [body.error] });
    expect(body.error).toMatch(/neither a dSYM bundle .* nor Android mapping files/);
    expect((await refused(ios, Buffer.from('not a zip at all'))).error).toMatch(/not a readable zip archive/);
  });

  it('the same zip twice: 422 entry.checksum (another channel may hold it)', async () => {
    const zip = dsymZip({ uuid: uuid(30) });
    await uploaded(ios, zip);
    const body = await refused(ios, zip);
    expect(body).toEqual({ error: 'Unprocessable entity', entry: { checksum: ['has already been taken'] } });
    await uploaded(await createAppTree(t, t.admin, 'ios'), zip);
  });

  it('a zip bomb: entries that inflate beyond the configured limit', async () => {
    const zeros = Buffer.alloc(LIMITS.maxUncompressedBytes);
    const bomb = makeZip({ 'mapping.txt': zeros, 'R.txt': Buffer.alloc(1024) });
    expect(bomb.length).toBeLessThan(64 * 1024);
    const body = await refused(android, bomb, { release_version: '1', build_version: '1' });
    expect(body.error).toBe(`the archive inflates to ${LIMITS.maxUncompressedBytes + 1024} bytes; this server takes at most ${LIMITS.maxUncompressedBytes}`);
  });

  it('more entries than the configured limit', async () => {
    const entries: Record<string, string> = { 'mapping.txt': 'a -> b:' };
    for (let i = 0; i < LIMITS.maxEntries; i++) entries[`res/${i}.txt`] = String(i);
    const body = await refused(android, makeZip(entries), { release_version: '1', build_version: '1' });
    expect(body.error).toBe(`the archive holds ${LIMITS.maxEntries + 1} entries; this server takes at most ${LIMITS.maxEntries}`);
  });

  it('entry names that climb out of the archive or are absolute', async () => {
    for (const name of ['../mapping.txt', 'x/../../mapping.txt', '/tmp/mapping.txt']) {
      const body = await refused(android, makeZip({ [name]: 'a -> b:' }), { release_version: '1', build_version: '1' });
      expect(body.error, name).toMatch(/(invalid relative path|absolute path)/);
    }
  });

  it('an archive of another platform than the channel\'s: 422 entry.device_type', async () => {
    expect((await refused(android, dsymZip({ uuid: uuid(31) }), { release_version: '1', build_version: '1' })).entry).toEqual({ device_type: ['is a dSYM archive but the channel takes android builds'] });
    expect((await refused(ios, mappingZip('a'), { release_version: '1', build_version: '1' })).entry).toEqual({ device_type: ['is an Android mapping archive but the channel takes ios builds'] });
    const linux = await createAppTree(t, t.admin, 'linux');
    expect((await refused(linux, dsymZip({ uuid: uuid(32) }))).entry).toEqual({ device_type: ['is a dSYM archive but the channel takes linux builds'] });
  });

  it('a channel with a bundle id takes only the symbols of that bundle (422 entry.bundle_id), and picks it as the main one', async () => {
    const strict = await createAppTree(t, t.admin, 'ios');
    expect((await t.admin.patch(`/api/channels/${strict.channel.id}`, { bundle_id: 'com.example.widget' })).status).toBe(200);
    const body = await refused(strict, dsymZip({ uuid: uuid(33), bundleId: 'com.example.app' }));
    expect(body.entry).toEqual({ bundle_id: ['is com.example.app but the channel takes com.example.widget'] });
    // an app and its widget extension: the widget's bundle is the main one here, and gives the versions
    const zip = makeZip(
      dsymEntries([
        { path: 'App.app.dSYM', bundleId: 'com.example.app', releaseVersion: '5.0', buildVersion: '500', objects: { App: thinMachO({ arch: 'arm64', uuid: uuid(34) }) } },
        { path: 'Widget.appex.dSYM', bundleId: 'com.example.widget', releaseVersion: '5.0', buildVersion: '501', objects: { Widget: thinMachO({ arch: 'arm64', uuid: uuid(35) }) } },
      ]),
    );
    const stored = await uploaded(strict, zip, {}, 'extended');
    expect(stored).toMatchObject({ release_version: '5.0', build_version: '501' });
    expect(stored.metadata.map((m: any) => `${m.name} ${m.extension}`)).toEqual(['App true', 'Widget false']);
  });

  it('a dSYM whose Info.plist gives no versions takes the form\'s, and needs them', async () => {
    const bare = makeZip(dsymEntries([{ path: 'App.app.dSYM', objects: { App: thinMachO({ arch: 'arm64', uuid: uuid(36) }) } }]));
    expect((await refused(ios, bare)).entry).toEqual({ release_version: ["can't be blank"], build_version: ["can't be blank"] });
    expect(await uploaded(ios, bare, { release_version: '3.1', build_version: '310' })).toMatchObject({ release_version: '3.1', build_version: '310' });
  });

  it('no file, an unknown channel_key, no channel_key', async () => {
    const before = await snapshot();
    const noFile = await t.admin.request('POST', '/api/debug_files/upload', { raw: multipartBodyOf({ channel_key: ios.channel.key }) });
    expect(noFile.status, noFile.text).toBe(422);
    expect(noFile.body.entry).toEqual({ file: ["can't be blank"] });
    for (const fields of [{ channel_key: 'nope' }, {}] as Record<string, string>[]) {
      const res = await postDebugFile(t.admin, dsymZip({ uuid: uuid(37) }), fields);
      expect(res.status, res.text).toBe(422);
      expect(res.body.error).toBe('Unauthorized channel key');
    }
    await expectUnchanged(before);
  });
});

describe('the guards\' limits are settings', () => {
  it('HANGAR_MAX_SYMBOLS_UNCOMPRESSED_MB (default 4096) and HANGAR_MAX_SYMBOLS_ENTRIES (default 10000); nonsense refused', () => {
    const MiB = 1024 * 1024;
    expect(resolveConfig({}, {}).symbolLimits).toEqual({ maxUncompressedBytes: 4096 * MiB, maxEntries: 10_000 });
    expect(resolveConfig({}, { HANGAR_MAX_SYMBOLS_UNCOMPRESSED_MB: '512', HANGAR_MAX_SYMBOLS_ENTRIES: '200' }).symbolLimits).toEqual({ maxUncompressedBytes: 512 * MiB, maxEntries: 200 });
    for (const env of [{ HANGAR_MAX_SYMBOLS_ENTRIES: '0' }, { HANGAR_MAX_SYMBOLS_UNCOMPRESSED_MB: '1.5' }, { HANGAR_MAX_SYMBOLS_UNCOMPRESSED_MB: 'lots' }]) {
      expect(() => resolveConfig({}, env), JSON.stringify(env)).toThrow(ConfigError);
    }
  });
});

/** A multipart body with fields only. */
function multipartBodyOf(fields: Record<string, string>) {
  const form = multipart(Object.entries(fields).map(([name, value]) => ({ name, value })));
  return { body: form.body, contentType: form.contentType };
}

describe('failures leave nothing half-written', () => {
  let tree: AppTree;
  beforeAll(async () => {
    tree = await createAppTree(t, t.admin, 'ios');
    await uploaded(tree, dsymZip({ uuid: uuid(39) })); // the channel's directories exist, as they do after a first upload
  });

  for (const fail of ['move', 'after-move'] as const) {
    it(`an upload whose move into place fails (${fail}): 500, no row, no file, no directory`, async () => {
      const before = await snapshot();
      store.fail = fail;
      try {
        const res = await postDebugFile(t.admin, dsymZip({ uuid: uuid(40) }), { channel_key: tree.channel.key }, { unchecked: true });
        expect(res.status, res.text).toBe(500);
        expect(res.body).toEqual({ error: 'Internal server error' });
      } finally {
        store.fail = null;
      }
      await expectUnchanged(before);
      const retried = await postDebugFile(t.admin, dsymZip({ uuid: uuid(40) }), { channel_key: tree.channel.key });
      expect(retried.status, retried.text).toBe(201);
      expect((await t.admin.delete(`/api/debug_files/${retried.body.id}`)).status).toBe(200);
    });

    it(`a replace whose move into place fails (${fail}): 500, and the debug file is as it was, its file served`, async () => {
      const zip = dsymZip({ uuid: uuid(fail === 'move' ? 41 : 42) });
      const file = await uploaded(tree, zip);
      const before = await snapshot();
      store.fail = fail;
      try {
        const res = await postDebugFile(t.admin, dsymZip({ uuid: uuid(43) }), { channel_key: tree.channel.key }, { replace: file.id, unchecked: true });
        expect(res.status, res.text).toBe(500);
      } finally {
        store.fail = null;
      }
      await expectUnchanged(before);
      const served = await get(`/download/debug_files/${file.id}?channel_key=${tree.channel.key}`);
      expect((await bytes(served)).equals(zip)).toBe(true);
    });
  }

  it('a client that disconnects half-way through the zip leaves no temporary file', async () => {
    const before = await snapshot();
    const zip = makeZip({ 'mapping.txt': Buffer.alloc(4 * 1024 * 1024, 'x') }, { store: true });
    const form = multipart([{ name: 'channel_key', value: tree.channel.key }, { name: 'file', filename: 'big.zip', data: zip }]);
    const socket = await openSocket(t.url);
    socket.on('error', () => {});
    await writeAll(socket, requestHead(t.url, '/api/debug_files/upload', { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': form.contentType, 'content-length': String(form.body.length) }));
    await writeAll(socket, form.body.subarray(0, Math.floor(form.body.length / 2)));
    expect(await eventually(async () => (await entriesOf(join(t.dataDir, 'tmp'))).length === 1), 'the zip was streaming to tmp/').toBe(true);
    await sleep(50);
    socket.destroy();
    await expectUnchanged(before);
  });
});
