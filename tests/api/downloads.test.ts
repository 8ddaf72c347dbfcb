/**
 * What devices fetch (R11, R14): downloads (names, ranges, conditional requests, streaming), icons,
 * iOS install manifests, QR codes, and the visit password of protected channels.
 *
 * The server's public base URL is a fixed name (BASE) so that the URLs it hands out can be checked
 * exactly; the tests fetch them from the test server by swapping that origin for the real one.
 */
import Database from 'better-sqlite3';
import { createHash, createHmac } from 'node:crypto';
import { open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parsePlist } from 'plist';
import { PNG } from 'pngjs';
import QRCode from 'qrcode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_FILE, SECRET_FILE } from '../../src-server/server.ts';
import { fixture, fixturesMissing } from '../helpers/fixtures.ts';
import { secureFetch } from '../helpers/https.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { upload } from '../helpers/upload.ts';
import { createAppTree, type AppTree } from '../helpers/world.ts';

const BASE = 'http://hangar.test:7700';
const ZONE = 'America/St_Johns'; // -03:30 / -02:30: the file name stamp must use the server's zone
const IPA = fixture('ios', 'bundle-1.0-b1-ipad-cgbi-icons.ipa');
const IPA_NO_ICON = fixture('ios', 'appinfodemo-1.2.3-b5-iphone-noicon.ipa');
const APK = fixture('android', 'contactmanager-1.0-vc1-minsdk5-v1signed.apk');

let t: TestServer;
let ios: AppTree;
let ipa: Buffer;
let ipaSha: string;
/** the first .ipa release of `ios` */
let release: any;

const sha256 = (data: Buffer | Uint8Array) => createHash('sha256').update(data).digest('hex');
/** Where iOS installs go: Hangar's HTTPS port on the base URL's host. */
const secureBase = () => `https://hangar.test:${t.server.httpsPort}`;
/** A URL the server handed out, made fetchable: its origin swapped for the test server's (HTTP or HTTPS). */
const local = (url: string) => {
  if (url.startsWith(`${secureBase()}/`)) return t.server.localHttpsUrl + url.slice(secureBase().length);
  expect(url.startsWith(BASE), url).toBe(true);
  return t.url + url.slice(BASE.length);
};
/** GET a path or URL; HTTPS trusting only the installation's CA, as a device that installed it. */
const get = (path: string, init: RequestInit = {}): Promise<Response> =>
  path.startsWith('https:')
    ? secureFetch(path, t.server.authority.certificatePem, { method: init.method, headers: init.headers as Record<string, string> })
    : fetch(path.startsWith('http') ? path : `${t.url}${path}`, { redirect: 'manual', ...init });
const bytes = async (res: Response) => Buffer.from(await res.arrayBuffer());
const rowOf = (id: number) => t.sql.prepare('SELECT * FROM releases WHERE id = ?').get(id) as Record<string, any>;

/** YYYYmmddHHMM of an instant in a time zone. */
function stamp(ms: number, timeZone: string): string {
  const parts: Record<string, string> = {};
  const format = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' });
  for (const part of format.formatToParts(new Date(ms))) parts[part.type] = part.value;
  return `${parts.year}${parts.month}${parts.day}${parts.hour}${parts.minute}`;
}

/** The path the download of a release redirects to. */
async function downloadPath(id: number, init: RequestInit = {}): Promise<string> {
  const res = await get(`/download/releases/${id}`, init);
  expect(res.status, await res.clone().text()).toBe(302);
  return new URL(res.headers.get('location')!, t.url).pathname + new URL(res.headers.get('location')!, t.url).search;
}

beforeAll(async () => {
  t = await startTestServer({ baseUrl: BASE, timezone: ZONE });
  if (fixturesMissing) return;
  ipa = await readFile(IPA);
  ipaSha = sha256(ipa);
  ios = await createAppTree(t, t.admin, 'ios');
  release = await upload(t.admin, IPA, { channel_key: ios.channel.key });
});
afterAll(() => t?.close());

describe.skipIf(fixturesMissing !== null)('GET /download/releases/:id', () => {
  it('302s to /download/releases/:id/<slug>_<release_version>_<build_version>_<YYYYmmddHHMM>.ipa (server time zone)', async () => {
    const row = rowOf(release.id);
    const name = `${ios.channel.slug}_1.0_1_${stamp(row.created_at, ZONE)}.ipa`;
    expect(await downloadPath(release.id)).toBe(`/download/releases/${release.id}/${encodeURIComponent(name)}`);
    const res = await get(`/download/releases/${release.id}/${encodeURIComponent(name)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${name}"; filename*=UTF-8''${encodeURIComponent(name)}`);
    await res.arrayBuffer();
  });

  it('the install_url of a non-iOS release is this download URL', async () => {
    const android = await createAppTree(t, t.admin, 'android');
    const apk = await upload(t.admin, APK, { channel_key: android.channel.key });
    expect(apk.install_url).toBe(`${BASE}/download/releases/${apk.id}`);
    const res = await get(local(apk.install_url));
    expect(res.status).toBe(302);
  });

  it('serves the file byte for byte, with its length, ETag (the quoted SHA-256) and a no-cache policy', async () => {
    const res = await get(await downloadPath(release.id));
    expect(res.status).toBe(200);
    const body = await bytes(res);
    expect(sha256(body)).toBe(ipaSha);
    expect(res.headers.get('content-length')).toBe(String(ipa.length));
    expect(res.headers.get('etag')).toBe(`"${ipaSha}"`);
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
  });

  it('HEAD answers the headers and no body', async () => {
    const path = await downloadPath(release.id);
    const res = await get(path, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(ipa.length));
    expect(res.headers.get('etag')).toBe(`"${ipaSha}"`);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="/);
    expect((await bytes(res)).length).toBe(0);
    const redirect = await get(`/download/releases/${release.id}`, { method: 'HEAD' });
    expect(redirect.status).toBe(302);
  });

  it('Range bytes=0-99: 206, Content-Range, 100 bytes', async () => {
    const res = await get(await downloadPath(release.id), { headers: { range: 'bytes=0-99' } });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes 0-99/${ipa.length}`);
    const body = await bytes(res);
    expect(body.length).toBe(100);
    expect(body.equals(ipa.subarray(0, 100))).toBe(true);
  });

  it('a suffix range bytes=-100 and an open range bytes=100-', async () => {
    const path = await downloadPath(release.id);
    const suffix = await get(path, { headers: { range: 'bytes=-100' } });
    expect(suffix.status).toBe(206);
    expect(suffix.headers.get('content-range')).toBe(`bytes ${ipa.length - 100}-${ipa.length - 1}/${ipa.length}`);
    expect((await bytes(suffix)).equals(ipa.subarray(ipa.length - 100))).toBe(true);
    const open_ = await get(path, { headers: { range: 'bytes=100-' } });
    expect(open_.status).toBe(206);
    expect(open_.headers.get('content-range')).toBe(`bytes 100-${ipa.length - 1}/${ipa.length}`);
    expect((await bytes(open_)).equals(ipa.subarray(100))).toBe(true);
  });

  it('an unsatisfiable range: 416 with Content-Range bytes */size', async () => {
    const res = await get(await downloadPath(release.id), { headers: { range: `bytes=${ipa.length + 10}-${ipa.length + 20}` } });
    const text = await res.text();
    expect(res.status, text).toBe(416);
    expect(res.headers.get('content-range')).toBe(`bytes */${ipa.length}`);
  });

  it('resumes: the first half, then the rest with Range, concatenate to the same file', async () => {
    const path = await downloadPath(release.id);
    const half = Math.floor(ipa.length / 2);
    const first = await get(path, { headers: { range: `bytes=0-${half - 1}` } });
    expect(first.status).toBe(206);
    const etag = first.headers.get('etag')!;
    const rest = await get(path, { headers: { range: `bytes=${half}-`, 'if-range': etag } });
    expect(rest.status).toBe(206);
    expect(sha256(Buffer.concat([await bytes(first), await bytes(rest)]))).toBe(ipaSha);
  });

  it('If-None-Match with the ETag: 304; If-Range with it: 206; with another tag: 200 and the whole file', async () => {
    const path = await downloadPath(release.id);
    const etag = `"${ipaSha}"`;
    const notModified = await get(path, { headers: { 'if-none-match': etag } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('etag')).toBe(etag);
    const weak = await get(path, { headers: { 'if-none-match': `"other", W/${etag}` } });
    expect(weak.status).toBe(304);
    const other = await get(path, { headers: { 'if-none-match': '"something-else"' } });
    expect(other.status).toBe(200);
    await other.arrayBuffer();

    const ranged = await get(path, { headers: { range: 'bytes=10-19', 'if-range': etag } });
    expect(ranged.status).toBe(206);
    expect((await bytes(ranged)).equals(ipa.subarray(10, 20))).toBe(true);
    const stale = await get(path, { headers: { range: 'bytes=10-19', 'if-range': '"0123456789abcdef"' } });
    expect(stale.status).toBe(200);
    expect(sha256(await bytes(stale))).toBe(ipaSha);
  });

  it('If-Match with the ETag serves the file (206 for a range: a resuming client checks it is unchanged); another tag or If-Unmodified-Since in the past: 412, never 404', async () => {
    const path = await downloadPath(release.id);
    const matching = await get(path, { headers: { 'if-match': `"${ipaSha}"`, range: 'bytes=0-9' } });
    const text = matching.status === 206 ? '' : await matching.text();
    expect(matching.status, text).toBe(206);
    if (matching.status === 206) expect((await bytes(matching)).equals(ipa.subarray(0, 10))).toBe(true);
    const other = await get(path, { headers: { 'if-match': '"not-this-file"' } });
    await other.arrayBuffer();
    expect(other.status).toBe(412);
    const unmodified = await get(path, { headers: { 'if-unmodified-since': 'Thu, 01 Jan 1970 00:00:00 GMT' } });
    await unmodified.arrayBuffer();
    expect(unmodified.status).toBe(412);
  });

  it('an .apk is served as application/vnd.android.package-archive', async () => {
    const android = await createAppTree(t, t.admin, 'android');
    const apk = await upload(t.admin, APK, { channel_key: android.channel.key });
    const path = await downloadPath(apk.id);
    expect(path).toMatch(new RegExp(`^/download/releases/${apk.id}/${android.channel.slug}_1\\.0_1_\\d{12}\\.apk$`));
    const res = await get(path);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.android.package-archive');
    expect(sha256(await bytes(res))).toBe(sha256(await readFile(APK)));
  });

  it('original_filename: the uploaded base name (a full path sent as the name keeps its base name)', async () => {
    const tree = await createAppTree(t, t.admin, 'ios');
    const patched = await t.admin.patch(`/api/channels/${tree.channel.id}`, { download_filename_type: 'original_filename' });
    expect(patched.status, patched.text).toBe(200);
    const plain = await upload(t.admin, IPA, { channel_key: tree.channel.key }, { fileName: 'C:\\builds\\Nightly Build (7).ipa' });
    const path = await downloadPath(plain.id);
    expect(decodeURIComponent(path)).toBe(`/download/releases/${plain.id}/Nightly Build (7).ipa`);
    const res = await get(path, { method: 'HEAD' });
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="Nightly Build \(7\)\.ipa"; filename\*=UTF-8''Nightly%20Build%20/);

    const unicode = await upload(t.admin, IPA, { channel_key: tree.channel.key }, { fileName: '测试 build.ipa' });
    const uPath = await downloadPath(unicode.id);
    expect(decodeURIComponent(uPath)).toBe(`/download/releases/${unicode.id}/测试 build.ipa`);
    const disposition = (await get(uPath, { method: 'HEAD' })).headers.get('content-disposition')!;
    expect(disposition).toContain(`filename*=UTF-8''${encodeURIComponent('测试 build.ipa')}`);
    expect(disposition).toMatch(/filename="[\x20-\x7e]+"/); // an ASCII fallback
  });

  it("Content-Disposition's filename* is a valid RFC 8187 ext-value (' ( ) * percent-encoded)", async () => {
    const tree = await createAppTree(t, t.admin, 'ios');
    await t.admin.patch(`/api/channels/${tree.channel.id}`, { download_filename_type: 'original_filename' });
    const named = await upload(t.admin, IPA, { channel_key: tree.channel.key }, { fileName: "Bob's App (beta)*.ipa" });
    const disposition = (await get(await downloadPath(named.id), { method: 'HEAD' })).headers.get('content-disposition')!;
    const ext = /filename\*=UTF-8''(.*)$/.exec(disposition)?.[1];
    // RFC 8187 value-chars: attr-char / pct-encoded; attr-char excludes ' ( ) * and the like
    expect(ext, disposition).toMatch(/^(?:[A-Za-z0-9!#$&+\-.^_`|~]|%[0-9A-F]{2})+$/);
    expect(decodeURIComponent(ext!)).toBe("Bob's App (beta)*.ipa");
  });

  it('404 for an unknown release', async () => {
    for (const path of ['/download/releases/987654', '/download/releases/987654/app.ipa']) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      await res.arrayBuffer();
    }
  });

  it('streams a 300 MB file without reading it into memory', { timeout: 120_000 }, async () => {
    const tree = await createAppTree(t, t.admin, 'ios');
    const big = await upload(t.admin, IPA, { channel_key: tree.channel.key });
    const SIZE = 300 * 1024 * 1024;
    const row = rowOf(big.id);
    const stored = join(t.dataDir, row.file_path);
    const handle = await open(stored, 'w');
    await handle.truncate(SIZE); // sparse: no disk space, all zeros
    await handle.close();
    const zeros = Buffer.alloc(1024 * 1024);
    const hash = createHash('sha256');
    for (let i = 0; i < SIZE / zeros.length; i++) hash.update(zeros);
    const bigSha = hash.digest('hex');
    const writable = new Database(join(t.dataDir, DATABASE_FILE));
    try {
      writable.prepare('UPDATE releases SET size = ?, sha256 = ? WHERE id = ?').run(SIZE, bigSha, big.id);
    } finally {
      writable.close();
    }

    globalThis.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const res = await get(await downloadPath(big.id));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(SIZE));
    expect(res.headers.get('etag')).toBe(`"${bigSha}"`);
    const reader = res.body!.getReader();
    const received = createHash('sha256');
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      received.update(value);
      total += value.length;
      peak = Math.max(peak, process.memoryUsage().rss);
    }
    expect(total).toBe(SIZE);
    expect(received.digest('hex')).toBe(bigSha);
    const growth = peak - before;
    expect(growth, `RSS grew by ${(growth / 1024 / 1024).toFixed(0)} MB while streaming 300 MB`).toBeLessThan(150 * 1024 * 1024);
  });
});

describe.skipIf(fixturesMissing !== null)('icons', () => {
  it('GET icon_url: image/png, cached long and immutable', async () => {
    expect(release.icon_url).toBe(`${BASE}/icons/releases/${release.id}.png`);
    const res = await get(local(release.icon_url));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    const cache = res.headers.get('cache-control') ?? '';
    expect(cache).toContain('immutable');
    expect(Number(/max-age=(\d+)/.exec(cache)?.[1])).toBeGreaterThanOrEqual(30 * 24 * 3600);
    const png = PNG.sync.read(await bytes(res));
    expect(png.width).toBeGreaterThan(0);
  });

  it('a release without an icon has icon_url null and its icon path is 404', async () => {
    const plain = await upload(t.admin, IPA_NO_ICON, { channel_key: ios.channel.key });
    expect(plain.icon_url).toBeNull();
    const res = await get(`/icons/releases/${plain.id}.png`);
    expect(res.status).toBe(404);
    await res.arrayBuffer();
  });
});

describe.skipIf(fixturesMissing !== null)('install manifest', () => {
  const manifestOf = async (url: string, init: RequestInit = {}) => {
    const res = await get(url, init);
    const text = await res.text();
    return { res, text, plist: res.status === 200 ? (parsePlist(text) as any) : null };
  };

  it('GET the manifest of install_url over HTTPS: an application/xml plist naming the download and the icon, both HTTPS', async () => {
    const url = release.install_url.replace(/^itms-services:\/\/\?action=download-manifest&url=/, '');
    expect(url).toBe(`${secureBase()}/channels/${ios.channel.slug}/releases/${release.id}/install`);
    const { res, plist } = await manifestOf(local(url));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(plist.items).toHaveLength(1);
    const [item] = plist.items;
    const byKind = Object.fromEntries(item.assets.map((a: any) => [a.kind, a.url]));
    expect(Object.keys(byKind).sort()).toEqual(['display-image', 'software-package']);
    expect(byKind['display-image']).toBe(`${secureBase()}/icons/releases/${release.id}.png`);
    const packageUrl: string = byKind['software-package'];
    expect(packageUrl.startsWith(`${secureBase()}/download/releases/${release.id}/`)).toBe(true);
    expect(item.metadata).toEqual({ 'bundle-identifier': 'com.icyleaf.bundle', 'bundle-version': '1.0', kind: 'software', title: release.app_name });
    // the package URL serves the file
    const file = await get(local(packageUrl));
    expect(file.status).toBe(200);
    expect(sha256(await bytes(file))).toBe(ipaSha);
  });

  it('has no display-image without an icon', async () => {
    const plain = await upload(t.admin, IPA_NO_ICON, { channel_key: ios.channel.key });
    const { res, plist } = await manifestOf(`/channels/${ios.channel.slug}/releases/${plain.id}/install`);
    expect(res.status).toBe(200);
    expect(plist.items[0].assets.map((a: any) => a.kind)).toEqual(['software-package']);
    expect(plist.items[0].metadata['bundle-version']).toBe(plain.release_version);
  });

  it('404 for a non-iOS release and for a slug that is not the release\'s channel', async () => {
    const android = await createAppTree(t, t.admin, 'android');
    const apk = await upload(t.admin, APK, { channel_key: android.channel.key });
    expect((await manifestOf(`/channels/${android.channel.slug}/releases/${apk.id}/install`)).res.status).toBe(404);
    expect((await manifestOf(`/channels/${android.channel.slug}/releases/${release.id}/install`)).res.status).toBe(404);
    expect((await manifestOf(`/channels/nosuchslug/releases/${release.id}/install`)).res.status).toBe(404);
    expect((await manifestOf(`/channels/${ios.channel.slug}/releases/987654/install`)).res.status).toBe(404);
  });
});

/** The modules of a QR code PNG, read by sampling module centres (the background is pixel 0,0). */
function modulesOf(png: PNG): boolean[][] {
  const at = (x: number, y: number) => {
    const i = (png.width * y + x) * 4;
    return (png.data[i]! << 16) | (png.data[i + 1]! << 8) | png.data[i + 2]!;
  };
  const background = at(0, 0);
  // the top-left finder pattern: its first foreground pixel on the diagonal, then its 7-module width
  let start = 0;
  while (start < png.width && at(start, start) === background) start++;
  let end = start;
  while (end < png.width && at(end, start) !== background) end++;
  const module = (end - start) / 7;
  const count = Math.round((png.width - 2 * start) / module);
  const grid: boolean[][] = [];
  for (let row = 0; row < count; row++) {
    grid.push([]);
    for (let col = 0; col < count; col++) {
      grid[row]!.push(at(Math.floor(start + (col + 0.5) * module), Math.floor(start + (row + 0.5) * module)) !== background);
    }
  }
  return grid;
}

/** Does the QR code in `png` encode `text`? (compares with the symbol of `text` at each error correction level) */
function encodes(png: PNG, text: string): boolean {
  const seen = modulesOf(png);
  return (['L', 'M', 'Q', 'H'] as const).some((level) => {
    const symbol = QRCode.create(text, { errorCorrectionLevel: level });
    const size = symbol.modules.size;
    if (seen.length !== size) return false;
    for (let r = 0; r < size; r++) for (let c = 0; c < size; c++) if (seen[r]![c] !== Boolean(symbol.modules.get(r, c))) return false;
    return true;
  });
}

describe.skipIf(fixturesMissing !== null)('QR codes', () => {
  // jsqr is not in node_modules: the PNG is read with pngjs and compared module by module with the
  // QR symbol of the expected text (any error correction level).
  const png = async (url: string) => {
    const res = await get(url);
    expect(res.status, url).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    return PNG.sync.read(await bytes(res));
  };

  it('qrcode_url: a 300 px PNG of release_url', async () => {
    const uploaded = await upload(t.admin, IPA, { channel_key: ios.channel.key });
    expect(uploaded.qrcode_url).toBe(`${BASE}/channels/${ios.channel.slug}/releases/${uploaded.id}/qrcode`);
    const image = await png(local(uploaded.qrcode_url));
    expect([image.width, image.height]).toEqual([300, 300]);
    expect(encodes(image, uploaded.release_url)).toBe(true);
    expect(encodes(image, `${BASE}/${ios.channel.slug}/${release.id}`)).toBe(false);
  });

  it('size=512 is 512 px wide; size=10 is 422', async () => {
    const url = `/channels/${ios.channel.slug}/releases/${release.id}/qrcode`;
    const image = await png(`${url}?size=512`);
    expect([image.width, image.height]).toEqual([512, 512]);
    expect(encodes(image, release.release_url ?? `${BASE}/${ios.channel.slug}/${release.id}`)).toBe(true);
    const small = await get(`${url}?size=10`);
    expect(small.status).toBe(422);
    await small.arrayBuffer();
  });

  it('theme=dark: light modules on a dark background', async () => {
    const url = `/channels/${ios.channel.slug}/releases/${release.id}/qrcode`;
    const light = await png(url);
    const dark = await png(`${url}?theme=dark`);
    const luminance = (image: PNG) => image.data[0]! + image.data[1]! + image.data[2]!;
    expect(luminance(light)).toBeGreaterThan(600); // white background
    expect(luminance(dark)).toBeLessThan(150); // dark background
    expect(encodes(dark, release.release_url)).toBe(true);
  });

  it('/qrcode.svg: image/svg+xml', async () => {
    const res = await get(`/channels/${ios.channel.slug}/releases/${release.id}/qrcode.svg`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(await res.text()).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
  });

  it('different releases give different images; a wrong slug is 404', async () => {
    const other = await upload(t.admin, IPA, { channel_key: ios.channel.key });
    const a = await bytes(await get(`/channels/${ios.channel.slug}/releases/${release.id}/qrcode`));
    const b = await bytes(await get(`/channels/${ios.channel.slug}/releases/${other.id}/qrcode`));
    expect(a.equals(b)).toBe(false);
    const wrong = await get(`/channels/nosuchslug/releases/${release.id}/qrcode`);
    expect(wrong.status).toBe(404);
    await wrong.arrayBuffer();
  });
});

describe.skipIf(fixturesMissing !== null)('visit password (R14)', () => {
  let tree: AppTree;
  let locked: any;
  let cookieName: string;
  const PASSWORD = 'open sesame 42';

  const enter = (slug: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
    get(`/channels/${slug}/password`, { method: 'POST', body: new URLSearchParams(form), headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } });

  /** The cookie a correct password gives ("name=value"). */
  async function visitCookie(): Promise<string> {
    const res = await enter(tree.channel.slug, { password: PASSWORD });
    expect(res.status, await res.clone().text()).toBe(204);
    const setCookie = res.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/HttpOnly/i);
    return setCookie.split(';')[0]!;
  }

  beforeAll(async () => {
    if (fixturesMissing) return;
    tree = await createAppTree(t, t.admin, 'ios');
    locked = await upload(t.admin, IPA, { channel_key: tree.channel.key });
    const patched = await t.admin.patch(`/api/channels/${tree.channel.id}`, { password: PASSWORD });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.has_password).toBe(true);
    cookieName = `hangar_visit_${tree.channel.id}`;
  });

  it('refuses downloads and manifests without the cookie: 401 {"error":"This channel is protected by a password"}', async () => {
    const name = encodeURIComponent(`x.ipa`);
    for (const path of [`/download/releases/${locked.id}`, `/download/releases/${locked.id}/${name}`, `/channels/${tree.channel.slug}/releases/${locked.id}/install`]) {
      const res = await get(path);
      expect(res.status, path).toBe(401);
      expect(await res.json()).toEqual({ error: 'This channel is protected by a password' });
    }
  });

  it('a wrong password is 401 and sets no cookie; the right one is 204 with a Set-Cookie', async () => {
    const wrong = await enter(tree.channel.slug, { password: 'not it at all' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    await wrong.arrayBuffer();
    const cookie = await visitCookie();
    expect(cookie.startsWith(`${cookieName}=`)).toBe(true);
  });

  it('with the cookie, the download and the manifest work', async () => {
    const cookie = await visitCookie();
    const path = await downloadPath(locked.id, { headers: { cookie } });
    const file = await get(path, { headers: { cookie } });
    expect(file.status).toBe(200);
    expect(sha256(await bytes(file))).toBe(ipaSha);
    const manifest = await get(`/channels/${tree.channel.slug}/releases/${locked.id}/install`, { headers: { cookie } });
    expect(manifest.status).toBe(200);
    await manifest.arrayBuffer();
  });

  it('the cookie of one channel does not open another protected channel', async () => {
    const cookie = await visitCookie();
    const other = await createAppTree(t, t.admin, 'ios');
    const otherRelease = await upload(t.admin, IPA, { channel_key: other.channel.key });
    await t.admin.patch(`/api/channels/${other.channel.id}`, { password: PASSWORD });
    const forged = cookie.replace(cookieName, `hangar_visit_${other.channel.id}`);
    const res = await get(`/download/releases/${otherRelease.id}`, { headers: { cookie: forged } });
    expect(res.status).toBe(401);
    await res.arrayBuffer();
  });

  it('the manifest embeds a signed download URL (exp, sig) that works without the cookie; an altered sig or an expired exp is refused', async () => {
    const cookie = await visitCookie();
    const res = await get(`/channels/${tree.channel.slug}/releases/${locked.id}/install`, { headers: { cookie } });
    const plist = parsePlist(await res.text()) as any;
    const packageUrl: string = plist.items[0].assets.find((a: any) => a.kind === 'software-package').url;
    const url = new URL(local(packageUrl));
    const exp = url.searchParams.get('exp');
    const sig = url.searchParams.get('sig');
    expect(exp).toMatch(/^\d+$/);
    expect(Number(exp) * 1000).toBeGreaterThan(Date.now());
    expect(sig).toBeTruthy();

    const signed = await get(url.href); // no cookie, as iOS fetches it
    expect(signed.status).toBe(200);
    expect(sha256(await bytes(signed))).toBe(ipaSha);
    // the short URL with the same query redirects keeping it, and that works too
    const short = await get(`/download/releases/${locked.id}${url.search}`);
    expect(short.status).toBe(302);
    const followed = await get(new URL(short.headers.get('location')!, t.url).href);
    expect(followed.status).toBe(200);
    await followed.arrayBuffer();

    const altered = new URL(url.href);
    altered.searchParams.set('sig', `${sig!.slice(0, -2)}${sig!.endsWith('AA') ? 'BB' : 'AA'}`);
    expect((await get(altered.href)).status).toBe(401);

    const otherRelease = new URL(url.href.replace(`/download/releases/${locked.id}/`, `/download/releases/${locked.id + 100000}/`));
    expect((await get(otherRelease.href)).status).toBe(404);

    const later = new URL(url.href);
    later.searchParams.set('exp', String(Number(exp) + 3600));
    expect((await get(later.href)).status).toBe(401);

    // an expired link, correctly signed with the installation's secret (bound to the channel's password)
    const secret = await readFile(join(t.dataDir, SECRET_FILE));
    const passwordHash = (t.sql.prepare('SELECT c.password_hash AS h FROM releases r JOIN channels c ON c.id = r.channel_id WHERE r.id = ?').get(locked.id) as { h: string }).h;
    const sign = (exp: string) => createHmac('sha256', secret).update(`release:${locked.id}:${exp}:${passwordHash}`).digest('base64url');
    const past = String(Math.floor(Date.now() / 1000) - 60);
    const expired = new URL(url.href);
    expired.searchParams.set('exp', past);
    expired.searchParams.set('sig', sign(past));
    expect((await get(expired.href)).status).toBe(401);
    // the same forgery with a future exp is admitted: the test signs as the server does
    const future = String(Math.floor(Date.now() / 1000) + 60);
    expired.searchParams.set('exp', future);
    expired.searchParams.set('sig', sign(future));
    const admitted = await get(expired.href);
    expect(admitted.status).toBe(200);
    await admitted.arrayBuffer();
  });

  it('changing the password signs the old cookie out and voids signed links', async () => {
    const cookie = await visitCookie();
    const before = await get(`/download/releases/${locked.id}`, { headers: { cookie } });
    expect(before.status).toBe(302);
    const manifest = await get(`/channels/${tree.channel.slug}/releases/${locked.id}/install`, { headers: { cookie } });
    const signedUrl = local((parsePlist(await manifest.text()) as any).items[0].assets.find((a: any) => a.kind === 'software-package').url);
    const signedBefore = await get(signedUrl);
    expect(signedBefore.status).toBe(200);
    await signedBefore.arrayBuffer();
    const patched = await t.admin.patch(`/api/channels/${tree.channel.id}`, { password: 'a different one 7' });
    expect(patched.status, patched.text).toBe(200);
    try {
      const after = await get(`/download/releases/${locked.id}`, { headers: { cookie } });
      expect(after.status).toBe(401);
      await after.arrayBuffer();
      const signedAfter = await get(signedUrl);
      expect(signedAfter.status).toBe(401);
      await signedAfter.arrayBuffer();
    } finally {
      await t.admin.patch(`/api/channels/${tree.channel.id}`, { password: PASSWORD });
    }
  });

  it('return_to=/x: 303 to /x', async () => {
    const res = await enter(tree.channel.slug, { password: PASSWORD, return_to: `/${tree.channel.slug}/${locked.id}` });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/${tree.channel.slug}/${locked.id}`);
    expect(res.headers.get('set-cookie')).toMatch(new RegExp(`^${cookieName}=`));
  });

  it('return_to never redirects to another site', async () => {
    const attempts = ['//evil.com', 'https://evil.com', '/\\evil.com', '\\\\evil.com', '/\t/evil.com', '/\n/evil.com', '/%09/evil.com', ' //evil.com', 'javascript:alert(1)'];
    const escaped: string[] = [];
    for (const returnTo of attempts) {
      const res = await enter(tree.channel.slug, { password: PASSWORD, return_to: returnTo });
      const text = await res.text();
      if (![204, 303, 422].includes(res.status)) escaped.push(`${JSON.stringify(returnTo)} -> ${res.status} ${text}`);
      const location = res.headers.get('location');
      // resolved as a browser resolves it (the WHATWG URL parser drops tabs and newlines)
      if (location !== null && new URL(location, `${BASE}/${tree.channel.slug}/${locked.id}`).host !== new URL(BASE).host) {
        escaped.push(`${JSON.stringify(returnTo)} -> Location ${JSON.stringify(location)}`);
      }
    }
    expect(escaped).toEqual([]);
  });

  it('a channel that is not protected: every password is taken; an unknown slug is 404', async () => {
    const open_ = await enter(ios.channel.slug, { password: 'anything' });
    expect(open_.status).toBe(204);
    const unknown = await enter('nosuchslug', { password: 'anything' });
    expect(unknown.status).toBe(404);
    await unknown.arrayBuffer();
  });

  it('removing the password opens the channel again', async () => {
    const tree2 = await createAppTree(t, t.admin, 'ios');
    const r = await upload(t.admin, IPA, { channel_key: tree2.channel.key });
    await t.admin.patch(`/api/channels/${tree2.channel.id}`, { password: PASSWORD });
    expect((await get(`/download/releases/${r.id}`)).status).toBe(401);
    const cleared = await t.admin.patch(`/api/channels/${tree2.channel.id}`, { password: '' });
    expect(cleared.body.has_password).toBe(false);
    expect((await get(`/download/releases/${r.id}`)).status).toBe(302);
  });
});
