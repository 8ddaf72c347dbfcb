/**
 * The device pages over real HTTP (LAN issue): channel and release pages of real uploads, their
 * headers, install links and 404s, the visit password gate and its rate limit, the language, the
 * trust and UDID pages, and the Font Awesome assets custom fields use.
 *
 * The server's public base URL is a fixed name (BASE) so that the absolute URLs the pages carry can
 * be told apart from the address the test connects to (pages must never build them from Host).
 */
import { createHmac, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD_ATTEMPTS } from '../../src-server/routes/downloads.ts';
import { RELEASES_PER_PAGE } from '../../src-server/routes/pages.ts';
import { SECRET_FILE } from '../../src-server/server.ts';
import { multipartBody, syntheticIpa } from '../helpers/builds.ts';
import { fixture, fixturesMissing } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { upload } from '../helpers/upload.ts';
import { createAppTree, type AppTree } from '../helpers/world.ts';

const BASE = 'http://hangar.test:7700';
const IPA = fixture('ios', 'bundle-1.0-b1-ipad-cgbi-icons.ipa');
/** a development profile listing 100 devices */
const IPA_DEVICES = fixture('ios', 'appinfodemo-1.2.3-b5-iphone-noicon.ipa');
const APK = fixture('android', 'contactmanager-1.0-vc1-minsdk5-v1signed.apk');
const PASSWORD = 'open sesame 42';
const SAFARI = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const WECHAT = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 MicroMessenger/8.0.49(0x18003137) NetType/WIFI Language/zh_CN';

let t: TestServer;
let ios: AppTree;
let android: AppTree;
/** upload answers: the first .ipa (with changelog and custom fields), the .apk */
let ipa: any;
let apk: any;

interface Page {
  status: number;
  headers: Headers;
  text: string;
}

/** GETs a page as a browser does (Accept: text/html). */
async function page(path: string, headers: Record<string, string> = {}): Promise<Page> {
  const res = await fetch(`${t.url}${path}`, { redirect: 'manual', headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8', 'user-agent': SAFARI, ...headers } });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const unescape = (value: string) => value.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** The href of the install button. */
function installHref(html: string): string {
  const match = /<a class="button install" href="([^"]*)"/.exec(html);
  expect(match, 'an install button').not.toBeNull();
  return unescape(match![1]!);
}

/** A page: 200 or the given status, HTML, with the headers every page has. */
function expectPage(res: Page, status = 200) {
  expect(res.status, res.text.slice(0, 300)).toBe(status);
  expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(res.text.startsWith('<!doctype html>')).toBe(true);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  const csp = res.headers.get('content-security-policy') ?? '';
  const nonce = /script-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
  expect(nonce, csp).toBeTruthy();
  for (const directive of ["default-src 'self'", "frame-ancestors 'none'", "form-action 'self'", `style-src 'self' 'nonce-${nonce}'`]) expect(csp).toContain(directive);
  expect(csp).not.toContain('unsafe-inline');
  expect(res.text).toContain(`<style nonce="${nonce}">`);
  // every script runs with the nonce: none without it
  expect(res.text.match(/<script(?![^>]*nonce="[^"]+")/g)).toBeNull();
}

async function setPassword(tree: AppTree, password: string) {
  const patched = await t.admin.patch(`/api/channels/${tree.channel.id}`, { password });
  expect(patched.status, patched.text).toBe(200);
}

/** POSTs the password form as a browser does. */
function enter(slug: string, password: string, returnTo: string, html = true) {
  return fetch(`${t.url}/channels/${slug}/password`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(html && { accept: 'text/html' }) },
    body: new URLSearchParams({ password, return_to: returnTo }),
  });
}

beforeAll(async () => {
  t = await startTestServer({ baseUrl: BASE });
  if (fixturesMissing) return;
  ios = await createAppTree(t, t.admin, 'ios');
  android = await createAppTree(t, t.admin, 'android');
  ipa = await upload(t.admin, IPA, {
    channel_key: ios.channel.key,
    changelog: 'Fixed the crash on start\nFaster sync',
    custom_fields: JSON.stringify([{ name: 'Branch', value: 'feature/login', icon: 'fas fa-code-branch' }]),
  });
  apk = await upload(t.admin, APK, { channel_key: android.channel.key });
});
afterAll(() => t?.close());

describe.skipIf(fixturesMissing !== null)('channel page /<slug>', () => {
  it('shows the app and its newest release with its install link; slugs match regardless of case', async () => {
    const res = await page(`/${ios.channel.slug}`);
    expectPage(res);
    expect(res.text).toContain(`<h1>${ios.app.name}</h1>`);
    expect(res.text).toContain(`<img class="icon" src="/icons/releases/${ipa.id}.png"`);
    expect(res.text).toContain(`href="/${ios.channel.slug}/${ipa.id}"`);
    expect(installHref(res.text)).toBe(ipa.install_url);
    expect(res.text).toContain('href="/ca"');
    const upper = await page(`/${ios.channel.slug.toUpperCase()}`);
    expectPage(upper);
    expect(installHref(upper.text)).toBe(ipa.install_url);
  });

  it(`pages through the releases, ${RELEASES_PER_PAGE} at a time, newest first`, async () => {
    const tree = await createAppTree(t, t.admin, 'ios');
    const ids: number[] = [];
    for (let i = 1; i <= RELEASES_PER_PAGE + 2; i++) {
      const { body, contentType } = multipartBody({ channel_key: tree.channel.key }, { name: 'app.ipa', data: syntheticIpa({ releaseVersion: `1.${i}`, buildVersion: String(i) }) });
      const res = await t.admin.request('POST', '/api/apps/upload', { raw: { body, contentType } });
      expect(res.status, res.text).toBe(201);
      ids.push(res.body.id);
    }
    const linked = (html: string) => [...html.matchAll(new RegExp(`href="/${tree.channel.slug}/(\\d+)"`, 'g'))].map((m) => Number(m[1]));
    const first = await page(`/${tree.channel.slug}`);
    expectPage(first);
    const newestFirst = [...ids].reverse();
    expect(new Set(linked(first.text))).toEqual(new Set(newestFirst.slice(0, RELEASES_PER_PAGE)));
    expect(first.text).toContain(`href="/${tree.channel.slug}?page=2"`);
    const second = await page(`/${tree.channel.slug}?page=2`);
    expectPage(second);
    expect(linked(second.text)).toEqual(newestFirst.slice(RELEASES_PER_PAGE));
    expect(second.text).not.toContain('?page=3');
    expect(second.text).toContain(`href="/${tree.channel.slug}"`);
    expectPage(await page(`/${tree.channel.slug}?page=3`), 404);
  });

  it('a channel without releases says so', async () => {
    const tree = await createAppTree(t, t.admin, 'android');
    const res = await page(`/${tree.channel.slug}`);
    expectPage(res);
    expect(res.text).toContain('No builds have been uploaded to this channel yet.');
  });
});

describe.skipIf(fixturesMissing !== null)('release page /<slug>/<id>', () => {
  it('iOS: icon, versions, changelog, custom field with its icon, the itms-services link, the trust link and probe, the QR code', async () => {
    const res = await page(`/${ios.channel.slug}/${ipa.id}`);
    expectPage(res);
    expect(ipa.release_url).toBe(`${BASE}/${ios.channel.slug}/${ipa.id}`);
    expect(res.text).toContain(`src="/icons/releases/${ipa.id}.png"`);
    expect(res.text).toContain('1.0 (build 1)');
    expect(res.text).toContain('<li>Fixed the crash on start</li>');
    expect(res.text).toContain('<li>Faster sync</li>');
    expect(res.text).toContain('<i class="fas fa-code-branch" aria-hidden="true"></i> Branch</dt><dd>feature/login</dd>');
    expect(res.text).toContain('<link rel="stylesheet" href="/assets/fontawesome/css/all.min.css">');
    const href = installHref(res.text);
    expect(href).toBe(ipa.install_url);
    expect(href.startsWith('itms-services://?action=download-manifest&url=')).toBe(true);
    expect(res.text).toContain('href="/ca"');
    expect(res.text).toMatch(/<script nonce="[^"]+">fetch\("https?:\/\/[^"]+\/ca\/check"/);
    expect(res.text).toContain(`<img class="qr" src="/channels/${ios.channel.slug}/releases/${ipa.id}/qrcode.svg"`);
    // the file name and size on the button
    expect(res.text).toMatch(new RegExp(`<small>${ios.channel.slug}_1\\.0_1_\\d{12}\\.ipa · 184\\.3 KB</small>`));
    expect(Buffer.byteLength(res.text)).toBeLessThan(30_000);
  });

  it('Android: the download link, no trust link, no script, no icon font', async () => {
    const res = await page(`/${android.channel.slug}/${apk.id}`, { 'user-agent': 'Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36' });
    expectPage(res);
    expect(installHref(res.text)).toBe(`/download/releases/${apk.id}`);
    expect(res.text).not.toContain('href="/ca"');
    expect(res.text).not.toContain('<script');
    expect(res.text).not.toContain('fontawesome');
    expect(res.text).toContain('No changes were noted for this build.');
  });

  it("an iOS build's provisioning profile: kind, expiry, devices and the link to check one's device", async () => {
    const tree = await createAppTree(t, t.admin, 'ios');
    const dev = await upload(t.admin, IPA_DEVICES, { channel_key: tree.channel.key });
    const res = await page(`/${tree.channel.slug}/${dev.id}`);
    expectPage(res);
    expect(res.text).toContain('<dt>Kind</dt><dd>Development</dd>');
    expect(res.text).toContain('100 registered devices');
    expect(res.text).toContain('href="/udid"');
    expect(res.text).toMatch(/The profile expired on Jul 2\d, 2017/);
  });

  it('a build for another platform says so on a phone that cannot install it', async () => {
    const res = await page(`/${ios.channel.slug}/${ipa.id}`, { 'user-agent': 'Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36' });
    expect(res.text).toContain('This build is for iOS. To install it, open this page on your iOS device.');
    const safari = await page(`/${ios.channel.slug}/${ipa.id}`);
    expect(safari.text).not.toContain('This build is for');
  });

  it('calls out a newer build when the scheme says so, and not on the newest one', async () => {
    const tree = await createAppTree(t, t.admin, 'ios');
    const older = await upload(t.admin, IPA, { channel_key: tree.channel.key });
    const newer = await upload(t.admin, IPA, { channel_key: tree.channel.key });
    const res = await page(`/${tree.channel.slug}/${older.id}`);
    expect(res.text).toContain('A newer build is available');
    expect(res.text).toContain(`<a href="/${tree.channel.slug}/${newer.id}">Go to the newest build</a>`);
    expect((await page(`/${tree.channel.slug}/${newer.id}`)).text).not.toContain('A newer build is available');
    const off = await t.admin.patch(`/api/schemes/${tree.scheme.id}`, { new_build_callout: false });
    expect(off.status, off.text).toBe(200);
    expect((await page(`/${tree.channel.slug}/${older.id}`)).text).not.toContain('A newer build is available');
  });

  it("in an app's built-in browser: the hint with the page URL from the public base, never from Host", async () => {
    const res = await page(`/${ios.channel.slug}/${ipa.id}`, { 'user-agent': WECHAT, host: 'evil.example' });
    expectPage(res);
    expect(res.text).toContain('WeChat&#39;s built-in browser cannot install apps.');
    expect(res.text).toContain(`<input readonly value="${BASE}/${ios.channel.slug}/${ipa.id}"`);
    expect(res.text).not.toContain('evil.example');
    expect((await page(`/${ios.channel.slug}/${ipa.id}`)).text).not.toContain('built-in browser');
  });
});

describe.skipIf(fixturesMissing !== null)('404s', () => {
  it('unknown channels and releases, a release of another channel, a non-numeric id: the 404 page', async () => {
    for (const path of ['/nosuchchannel', `/nosuchchannel/${ipa.id}`, `/${ios.channel.slug}/987654`, `/${android.channel.slug}/${ipa.id}`, `/${ios.channel.slug}/abc`, `/${ios.channel.slug}/0`, `/${'x'.repeat(80)}`]) {
      const res = await page(path);
      expectPage(res, 404);
      expect(res.text, path).toContain('Page not found');
    }
  });

  it('another unknown path: the 404 page for a browser, JSON for others; unknown /api paths stay JSON', async () => {
    const browser = await page(`/${ios.channel.slug}/${ipa.id}/more`);
    expectPage(browser, 404);
    const script = await fetch(`${t.url}/${ios.channel.slug}/${ipa.id}/more`);
    expect(script.status).toBe(404);
    expect(await script.json()).toEqual({ error: 'Not found' });
    for (const path of ['/api', '/api/nope', '/api/apps/1/nope/2']) {
      const api = await page(path);
      expect(api.status).toBe(404);
      expect(api.headers.get('content-type')).toMatch(/^application\/json/);
      expect(JSON.parse(api.text)).toEqual({ error: 'API not found' });
    }
  });

  it('the server routes keep winning over channel slugs', async () => {
    const version = await fetch(`${t.url}/api/version`);
    expect(version.status).toBe(200);
    await version.arrayBuffer();
    const download = await fetch(`${t.url}/download/releases/${apk.id}`, { redirect: 'manual' });
    expect(download.status).toBe(302);
  });
});

describe.skipIf(fixturesMissing !== null)('visit password (R14)', () => {
  let tree: AppTree;
  let locked: any;

  beforeAll(async () => {
    if (fixturesMissing) return;
    tree = await createAppTree(t, t.admin, 'ios');
    locked = await upload(t.admin, IPA, { channel_key: tree.channel.key });
    await setPassword(tree, PASSWORD);
  });

  it('without the cookie: 401 and the password form, which says nothing of the app', async () => {
    for (const path of [`/${tree.channel.slug}`, `/${tree.channel.slug}/${locked.id}`, `/${tree.channel.slug}/987654`]) {
      const res = await page(path);
      expectPage(res, 401);
      expect(res.text).toContain(`<form class="card" method="post" action="/channels/${tree.channel.slug}/password">`);
      expect(res.text).toContain(`<input type="hidden" name="return_to" value="${path}">`);
      expect(res.text).not.toContain(tree.app.name);
      expect(res.text).not.toContain('itms-services');
    }
  });

  it('a wrong password: the form again with the error (401); the right one: 303 back with the cookie, then the page', async () => {
    const path = `/${tree.channel.slug}/${locked.id}`;
    const wrong = await enter(tree.channel.slug, 'not it', path);
    const wrongText = await wrong.text();
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(wrong.headers.get('set-cookie')).toBeNull();
    expect(wrongText).toContain('That password is not correct.');
    expect(wrongText).toContain(`value="${path}"`);

    const right = await enter(tree.channel.slug, PASSWORD, path);
    expect(right.status).toBe(303);
    expect(right.headers.get('location')).toBe(path);
    const cookie = right.headers.get('set-cookie')!.split(';')[0]!;
    expect(cookie.startsWith(`hangar_visit_${tree.channel.id}=`)).toBe(true);
    const res = await page(path, { cookie });
    expectPage(res);
    expect(res.text).toContain(locked.app_name);
  });

  it("the install link carries a signed manifest URL, percent-encoded, that iOS can fetch without the cookie", async () => {
    const right = await enter(tree.channel.slug, PASSWORD, '/');
    const cookie = right.headers.get('set-cookie')!.split(';')[0]!;
    const href = installHref((await page(`/${tree.channel.slug}/${locked.id}`, { cookie })).text);
    const prefix = 'itms-services://?action=download-manifest&url=';
    expect(href.startsWith(prefix)).toBe(true);
    const encoded = href.slice(prefix.length);
    expect(encoded).not.toMatch(/[?&=:/]/);
    const manifestUrl = new URL(decodeURIComponent(encoded));
    const expected = new URL(locked.install_url.slice(prefix.length));
    expect(manifestUrl.origin + manifestUrl.pathname).toBe(expected.origin + expected.pathname);
    expect(manifestUrl.searchParams.get('exp')).toMatch(/^\d+$/);
    expect(manifestUrl.searchParams.get('sig')).toBeTruthy();
    const manifest = await fetch(`${t.url}${manifestUrl.pathname}${manifestUrl.search}`);
    expect(manifest.status).toBe(200);
    expect(await manifest.text()).toContain('software-package');
    const unsigned = await fetch(`${t.url}${manifestUrl.pathname}`);
    expect(unsigned.status).toBe(401);
    await unsigned.arrayBuffer();
  });

  it('JSON clients keep their JSON answers', async () => {
    const res = await fetch(`${t.url}/channels/${tree.channel.slug}/password`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: 'nope' }) });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 'Wrong password' });
  });

  it(`${PASSWORD_ATTEMPTS.max} wrong passwords, then 429 with Retry-After for this client and channel only, even for the right one`, async () => {
    const guarded = await createAppTree(t, t.admin, 'ios');
    await setPassword(guarded, PASSWORD);
    await setPassword(tree, PASSWORD);
    for (let i = 0; i < PASSWORD_ATTEMPTS.max; i++) {
      const res = await enter(guarded.channel.slug, `guess ${i}`, '/', false);
      expect(res.status, `attempt ${i + 1}`).toBe(401);
      await res.arrayBuffer();
    }
    const warnings = (await readFile(join(t.dataDir, 'logs', 'hangar.log'), 'utf8'))
      .split('\n')
      .filter((line) => line.includes('too many wrong visit passwords'))
      .map((line) => JSON.parse(line));
    expect(warnings).toEqual([expect.objectContaining({ level: 40, channel: guarded.channel.id, client: '127.0.0.1' })]);
    expect(JSON.stringify(warnings)).not.toContain('guess');
    const json = await enter(guarded.channel.slug, PASSWORD, '/', false);
    expect(json.status).toBe(429);
    expect(Number(json.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(json.headers.get('retry-after'))).toBeLessThanOrEqual(PASSWORD_ATTEMPTS.timeWindow / 1000);
    expect((await json.json()).error).toMatch(/^Too many wrong passwords; try again in \d+ seconds$/);
    const browser = await enter(guarded.channel.slug, PASSWORD, `/${guarded.channel.slug}`);
    expect(browser.status).toBe(429);
    expect(browser.headers.get('retry-after')).toBeTruthy();
    expect(browser.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await browser.text()).toMatch(/Too many wrong passwords\. Try again in \d+ seconds\./);
    // another channel is not affected
    const other = await enter(tree.channel.slug, PASSWORD, '/');
    expect(other.status).toBe(303);
  });
});

describe.skipIf(fixturesMissing !== null)('language', () => {
  it('Accept-Language zh-CN: the page in Simplified Chinese; zh-TW and others: English', async () => {
    const zh = await page(`/${ios.channel.slug}/${ipa.id}`, { 'accept-language': 'zh-CN,zh;q=0.9,en;q=0.8' });
    expectPage(zh);
    expect(zh.text).toContain('<html lang="zh-CN">');
    expect(zh.text).toContain('更新内容');
    expect(zh.text).toMatch(/\d{4}年\d{1,2}月\d{1,2}日/);
    const tw = await page(`/${ios.channel.slug}/${ipa.id}`, { 'accept-language': 'zh-TW' });
    expect(tw.text).toContain('<html lang="en">');
    expect(tw.text).toContain('Changes');
  });
});

describe('trust and UDID pages', () => {
  it('/ca: the CA name and fingerprint, the three downloads, the steps; over plain HTTP', async () => {
    const pem = await fetch(`${t.url}/ca.pem`);
    expect(pem.status).toBe(200);
    const ca = new X509Certificate(await pem.text());
    const res = await page('/ca');
    expectPage(res);
    expect(t.url.startsWith('http://')).toBe(true);
    expect(res.text).toContain(`<code>${ca.fingerprint256}</code>`);
    for (const href of ['/ca.mobileconfig', '/ca.crt', '/ca.pem']) expect(res.text).toContain(`href="${href}"`);
    expect(res.text).toContain('Certificate Trust Settings');
    expect(res.text).toContain('Trusted Root Certification Authorities');
    // an iPhone sees its guide first and open
    expect(res.text.indexOf('<details class="card" open>\n<summary>iPhone and iPad</summary>')).toBeGreaterThan(0);
  });

  it('/udid: the explanation and the profile button', async () => {
    const res = await page('/udid');
    expectPage(res);
    expect(res.text).toContain('<a class="button" href="/udid.mobileconfig">Install profile</a>');
  });

  it.skipIf(fixturesMissing !== null)('/udid/device/<token>: the device and the builds provisioned for it; a forged token is the 404 page', async () => {
    const tree = await createAppTree(t, t.admin, 'ios');
    const dev = await upload(t.admin, IPA_DEVICES, { channel_key: tree.channel.key });
    const metadata = JSON.parse((t.sql.prepare('SELECT metadata FROM releases WHERE id = ?').get(dev.id) as { metadata: string }).metadata);
    const udid = String(metadata.provisioning.devices[0]).toUpperCase();
    const put = await t.admin.put(`/api/devices/${udid}`, { name: 'Test iPhone <b>', model: 'iPhone14,5' });
    expect(put.status, put.text).toBe(200);
    const secret = await readFile(join(t.dataDir, SECRET_FILE));
    const token = `${udid}.${createHmac('sha256', secret).update(`udid-page:${udid}`).digest('base64url')}`;

    const res = await page(`/udid/device/${token}`);
    expectPage(res);
    expect(res.text).toContain(`<code>${udid}</code>`);
    expect(res.text).toContain('Test iPhone &lt;b&gt;');
    expect(res.text).toContain('iPhone14,5');
    expect(res.text).toContain(`href="/${tree.channel.slug}/${dev.id}"`);
    expect(res.text).not.toContain(`href="/${ios.channel.slug}/${ipa.id}"`); // an App Store profile lists no device

    for (const forged of [`${udid}.AAAA`, token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A'), 'nonsense']) {
      expectPage(await page(`/udid/device/${forged}`), 404);
    }

    // a channel with a visit password lists its builds only to a browser that gave the password
    const patched = await t.admin.patch(`/api/channels/${tree.channel.id}`, { password: 'udid page secret' });
    expect(patched.status, patched.text).toBe(200);
    const locked = await page(`/udid/device/${token}`);
    expectPage(locked);
    expect(locked.text).not.toContain(`href="/${tree.channel.slug}/${dev.id}"`);
    const entered = await fetch(`${t.url}/channels/${tree.channel.slug}/password`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ password: 'udid page secret' }),
    });
    expect(entered.status).toBe(204);
    const cookie = entered.headers.get('set-cookie')!.split(';')[0]!;
    const unlocked = await page(`/udid/device/${token}`, { cookie });
    expect(unlocked.text).toContain(`href="/${tree.channel.slug}/${dev.id}"`);
  });
});

describe('Font Awesome assets', () => {
  it('serves the stylesheet and its fonts, cached long; nothing else of the package', async () => {
    const css = await fetch(`${t.url}/assets/fontawesome/css/all.min.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(css.headers.get('cache-control')).toMatch(/max-age=(\d{7,})/);
    expect(await css.text()).toContain('../webfonts/fa-solid-900.woff2');
    const font = await fetch(`${t.url}/assets/fontawesome/webfonts/fa-solid-900.woff2`);
    expect(font.status).toBe(200);
    expect(font.headers.get('content-type')).toBe('font/woff2');
    expect((await font.arrayBuffer()).byteLength).toBeGreaterThan(10_000);
    for (const path of ['/assets/fontawesome/webfonts/..%2F..%2Fpackage.json', '/assets/fontawesome/webfonts/fa-nothing.woff2', '/assets/fontawesome/css/all.css', '/assets/fontawesome/../package.json']) {
      const res = await fetch(`${t.url}${path}`);
      expect(res.status, path).toBeGreaterThanOrEqual(400);
      expect(await res.text(), path).not.toContain('"name": "@fortawesome');
    }
  });
});
