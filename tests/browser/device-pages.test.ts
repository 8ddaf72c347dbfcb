/**
 * The device pages in real Chromium, emulating the phones testers hold (iPhone 13, Pixel 7): from a
 * channel's page to a release and its install link, an Android download, the password gate, the
 * newer-build banner, Chinese, dark mode, a 320 px screen and WeChat's in-app browser. Screenshots
 * of each land in test-results/screenshots/device-pages/.
 */
import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { devices, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserMissing, launchChromium } from '../helpers/browser.ts';
import { fixture, fixturesMissing } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { upload } from '../helpers/upload.ts';
import { createAppTree, type AppTree } from '../helpers/world.ts';

const IPA = fixture('ios', 'bundle-1.0-b1-ipad-cgbi-icons.ipa');
const APK = fixture('android', 'contactmanager-1.0-vc1-minsdk5-v1signed.apk');
const SCREENSHOTS = 'test-results/screenshots/device-pages';
const WECHAT = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 MicroMessenger/8.0.49(0x18003137) NetType/WIFI Language/zh_CN';
const ITMS = 'itms-services://?action=download-manifest&url=';

describe.skipIf(browserMissing !== null || fixturesMissing !== null)('device pages in Chromium', () => {
  let t: TestServer;
  let browser: Browser;
  let ios: AppTree;
  let ipa: any;
  /** Content-Security-Policy violations any page reported */
  const violations: string[] = [];

  async function open(options: BrowserContextOptions, path: string): Promise<Page> {
    const context = await browser.newContext(options);
    const page = await context.newPage();
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(`${path}: ${message.text()}`);
    });
    await page.goto(`${t.url}${path}`);
    return page;
  }

  const iphone = (extra: BrowserContextOptions = {}) => ({ ...devices['iPhone 13'], locale: 'en-US', ...extra });
  const pixel = (extra: BrowserContextOptions = {}) => ({ ...devices['Pixel 7'], locale: 'en-US', ...extra });
  const shot = (page: Page, name: string) => page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true });

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    t = await startTestServer();
    browser = await launchChromium();
    ios = await createAppTree(t, t.admin, 'ios');
    ipa = await upload(t.admin, IPA, { channel_key: ios.channel.key, changelog: 'Fixed the crash on start\nFaster sync', custom_fields: JSON.stringify([{ name: 'Branch', value: 'main', icon: 'fas fa-code-branch' }]) });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('iPhone: scan to the channel, tap the newest release, the install link is itms-services with the HTTPS manifest URL', async () => {
    const page = await open(iphone(), `/${ios.channel.slug}`);
    await expect.poll(() => page.locator('h1').innerText()).toBe(ios.app.name);
    await shot(page, 'channel-iphone');
    await page.locator(`a[href="/${ios.channel.slug}/${ipa.id}"]`).first().tap();
    await page.waitForURL(`${t.url}/${ios.channel.slug}/${ipa.id}`);
    await expect.poll(() => page.locator('.changelog li').allInnerTexts()).toEqual(['Fixed the crash on start', 'Faster sync']);
    // the custom field's icon font loaded from this server (Font Awesome renders a ::before glyph)
    const glyph = await page.locator('i.fa-code-branch').evaluate((i) => getComputedStyle(i, '::before').content);
    expect(glyph).not.toBe('none');
    await shot(page, 'release-iphone');

    const href = await page.locator('a.install').getAttribute('href');
    expect(href).toBe(ipa.install_url);
    const manifest = href!.slice(ITMS.length);
    expect(href!.startsWith(ITMS)).toBe(true);
    expect(manifest).toBe(t.server.urls().manifest(ios.channel.slug, ipa.id));
    expect(manifest.startsWith('https://'), manifest).toBe(true);
    expect(await page.locator('a[href="/ca"]').count()).toBe(1);
    expect(await page.locator('a.install small').innerText()).toMatch(/\.ipa · 184\.3 KB$/);
  });

  it('Pixel 7: tapping install downloads the .apk, byte for byte', async () => {
    const android = await createAppTree(t, t.admin, 'android');
    const apk = await upload(t.admin, APK, { channel_key: android.channel.key });
    const page = await open(pixel({ acceptDownloads: true }), `/${android.channel.slug}/${apk.id}`);
    await shot(page, 'release-pixel');
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('a.install').tap()]);
    expect(download.suggestedFilename()).toMatch(new RegExp(`^${android.channel.slug}_1\\.0_1_\\d{12}\\.apk$`));
    const received = await readFile((await download.path())!);
    expect(received.equals(await readFile(APK))).toBe(true);
  });

  it('password gate: the form, a wrong password, then the right one opens the release page', async () => {
    const tree = await createAppTree(t, t.admin, 'ios');
    const locked = await upload(t.admin, IPA, { channel_key: tree.channel.key });
    const patched = await t.admin.patch(`/api/channels/${tree.channel.id}`, { password: 'open sesame 42' });
    expect(patched.status, patched.text).toBe(200);

    const page = await open(iphone(), `/${tree.channel.slug}/${locked.id}`);
    await page.locator('#password').fill('not it');
    await Promise.all([page.waitForLoadState('load'), page.locator('button[type=submit]').tap()]);
    await expect.poll(() => page.locator('[role=alert]').innerText()).toBe('That password is not correct.');
    await shot(page, 'password-wrong');
    await page.locator('#password').fill('open sesame 42');
    await Promise.all([page.waitForURL(`${t.url}/${tree.channel.slug}/${locked.id}`), page.locator('button[type=submit]').tap()]);
    await expect.poll(() => page.locator('a.install').count()).toBe(1);
    const href = (await page.locator('a.install').getAttribute('href'))!;
    // a protected channel's manifest URL carries a signed query, so it is percent-encoded whole
    const manifest = new URL(decodeURIComponent(href.slice(ITMS.length)));
    expect(manifest.href.startsWith(t.server.urls().manifest(tree.channel.slug, locked.id))).toBe(true);
    expect(manifest.searchParams.get('sig')).toBeTruthy();
  });

  it('newer-build banner: the older release links to the newest', async () => {
    const tree = await createAppTree(t, t.admin, 'ios');
    const scheme = await t.admin.get(`/api/schemes/${tree.scheme.id}`);
    expect(scheme.body.new_build_callout).toBe(true);
    const older = await upload(t.admin, IPA, { channel_key: tree.channel.key });
    const newer = await upload(t.admin, IPA, { channel_key: tree.channel.key });
    const page = await open(iphone(), `/${tree.channel.slug}/${older.id}`);
    await expect.poll(() => page.locator('.newer').isVisible()).toBe(true);
    await shot(page, 'newer-build');
    await Promise.all([page.waitForURL(`${t.url}/${tree.channel.slug}/${newer.id}`), page.locator('.newer a').tap()]);
    expect(await page.locator('.newer').count()).toBe(0);
  });

  it('zh-CN: the release page in Simplified Chinese', async () => {
    const page = await open(iphone({ locale: 'zh-CN' }), `/${ios.channel.slug}/${ipa.id}`);
    expect(await page.locator('html').getAttribute('lang')).toBe('zh-CN');
    expect(await page.locator('a.install').innerText()).toMatch(/^安装/);
    expect(await page.locator('h2').allInnerTexts()).toContain('更新内容');
    await shot(page, 'release-zh-cn');
  });

  it('dark mode changes the background and the text', async () => {
    const colors = async (colorScheme: 'light' | 'dark') => {
      const page = await open(iphone({ colorScheme }), `/${ios.channel.slug}/${ipa.id}`);
      await shot(page, `release-${colorScheme}`);
      return page.evaluate(() => ({ background: getComputedStyle(document.body).backgroundColor, text: getComputedStyle(document.body).color }));
    };
    const light = await colors('light');
    const dark = await colors('dark');
    expect(dark.background).not.toBe(light.background);
    expect(dark.text).not.toBe(light.text);
    const luminance = (rgb: string) => rgb.match(/\d+/g)!.slice(0, 3).reduce((sum, v) => sum + Number(v), 0);
    expect(luminance(dark.background)).toBeLessThan(luminance(light.background));
  });

  it('a 320 px wide screen: nothing overflows sideways, the install button is a large target', async () => {
    const page = await open({ viewport: { width: 320, height: 640 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2, userAgent: devices['iPhone SE'].userAgent, locale: 'zh-CN' }, `/${ios.channel.slug}/${ipa.id}`);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
    const box = (await page.locator('a.install').boundingBox())!;
    expect(box.height).toBeGreaterThanOrEqual(44);
    expect(box.width).toBeGreaterThan(250);
    await shot(page, 'release-320px');
  });

  it("WeChat's in-app browser: the hint to open the page in Safari, with its URL", async () => {
    const page = await open(iphone({ userAgent: WECHAT }), `/${ios.channel.slug}/${ipa.id}`);
    await expect.poll(() => page.locator('.in-app').isVisible()).toBe(true);
    expect(await page.locator('.in-app').innerText()).toContain("WeChat's built-in browser cannot install apps.");
    expect(await page.locator('.in-app input').inputValue()).toBe(ipa.release_url);
    await shot(page, 'in-app-wechat');
  });

  it('the trust page, and no page broke its Content-Security-Policy', async () => {
    const page = await open(iphone(), '/ca');
    expect(await page.locator('details[open] summary').first().innerText()).toBe('iPhone and iPad');
    await shot(page, 'trust');
    expect(violations).toEqual([]);
  });
});
