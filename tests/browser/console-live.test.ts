/**
 * The console's dashboard and its manners, as the desktop app shows it: the address for devices and
 * a QR code that reads as it, a build posted by a CI script (raw multipart HTTP, as curl sends it)
 * appearing live without a reload, Simplified Chinese and the dark appearance from the user's
 * settings, a flow done with the keyboard alone, and an API error shown where it happened.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { browserMissing, launchChromium } from '../helpers/browser.ts';
import { buildConsole, decodeQr, openConsole, screenshot, type OpenConsole } from '../helpers/console.ts';
import { fixture, fixturesMissing } from '../helpers/fixtures.ts';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.ts';
import { upload } from '../helpers/upload.ts';
import { createAppTree, unique, type AppTree } from '../helpers/world.ts';

const APK = fixture('android', 'contactmanager-1.0-vc1-minsdk5-v1signed.apk');

describe.skipIf(browserMissing !== null || fixturesMissing !== null)('console dashboard, live updates, language, appearance, keyboard', () => {
  let t: TestServer;
  let browser: Browser;
  let android: AppTree;
  let adminId: number;
  const opened: OpenConsole[] = [];

  /** The admin's own settings, as the console reads them at start. */
  const settle = (settings: Record<string, string>) => t.admin.patch(`/api/users/${adminId}`, settings);

  async function open(options: Parameters<typeof openConsole>[2] = {}): Promise<Page> {
    const console = await openConsole(browser, t, { desktop: { token: ADMIN_TOKEN }, ...options });
    opened.push(console);
    await console.page.getByRole('navigation').first().waitFor();
    return console.page;
  }

  beforeAll(async () => {
    await buildConsole();
    t = await startTestServer();
    browser = await launchChromium();
    android = await createAppTree(t, t.admin, 'android');
    adminId = (await t.admin.get('/api/users/me')).body.id;
  });
  beforeEach(async () => {
    await settle({ locale: 'en', appearance: 'light' });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows the address devices open, with a QR code that reads as it (also full screen), and the disk in use', async () => {
    const page = await open();
    const base = t.server.urls().base;
    await page.getByRole('link', { name: base }).waitFor();
    const qr = page.getByRole('img', { name: `QR code of ${base}` });
    expect(decodeQr(await qr.screenshot())).toBe(base);
    expect(await page.locator('.disk').innerText()).toMatch(/Builds and symbols: [\d.]+ (B|KB|MB)\n+[\d.]+ (GB|TB|MB) free of [\d.]+ (GB|TB)/);
    expect(await page.getByRole('status').filter({ hasText: 'Live' }).count()).toBe(1);

    // the desktop app's tray asks for #/?qr=1 ("Show QR"): the address, full screen
    await page.goto(`${t.url}/console/#/?qr=1`);
    const full = page.locator('dialog.qr-fullscreen');
    await full.waitFor();
    expect(decodeQr(await page.screenshot())).toBe(base);
    await page.keyboard.press('Escape');
    await full.waitFor({ state: 'detached' });
    expect(new URL(page.url()).hash).toBe('#/');
  });

  it('shows a build that CI posts (raw multipart, as curl sends it) as it arrives, without a reload', async () => {
    const page = await open();
    await page.getByText('No builds yet').waitFor();
    await expect.poll(() => page.locator('.live-indicator').innerText()).toBe('Live');
    const released = await upload(t.admin, APK, {
      channel_key: android.channel.key,
      changelog: 'Sync fixed\nFaster start',
      custom_fields: JSON.stringify([{ name: 'Tester', value: 'Li Lei', icon: 'fas fa-user' }]),
      branch: 'origin/release/2.1',
    });
    const item = page.locator(`.release-list li[data-release-id="${released.id}"]`);
    await item.waitFor({ timeout: 10_000 });
    expect(await item.innerText()).toContain('Contact Manager 1.0 (1)');
    expect(await item.innerText()).toContain(`${android.app.name} · Main · Android`);
    await screenshot(page, 'dashboard-live-upload');

    // and the channel's page follows too
    await item.getByRole('link').click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toBe('Contact Manager 1.0 (1)');
    expect(await page.locator('.changelog li').allInnerTexts()).toEqual(['Sync fixed', 'Faster start']);
    expect(await page.getByRole('region', { name: 'Custom fields' }).innerText()).toMatch(/Tester\s+Li Lei/);
    expect(await page.getByRole('region', { name: 'Details' }).innerText()).toMatch(/Branch\s+release\/2\.1/);
    await page.getByRole('link', { name: 'Main' }).click();
    await page.locator(`tr[data-release-id="${released.id}"]`).waitFor();
    const second = await upload(t.admin, APK, { channel_key: android.channel.key });
    await page.locator(`tr[data-release-id="${second.id}"]`).waitFor({ timeout: 10_000 });
  });

  it("speaks Simplified Chinese when that is the user's language", async () => {
    await settle({ locale: 'zh-CN' });
    const page = await open();
    const nav = page.getByRole('navigation', { name: '主导航' });
    expect(await nav.getByRole('link').allInnerTexts()).toEqual(['概览', '应用', '设备', '用户', '访问令牌', '设置']);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('概览');
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('zh-CN');
    await page.getByText('最近上传').waitFor();
    await screenshot(page, 'dashboard-zh-CN');
    await page.goto(`${t.url}/console/#/apps/${android.app.id}`);
    await page.getByRole('button', { name: '新建方案' }).waitFor();
    await screenshot(page, 'app-zh-CN');
  });

  it("is dark when the user's appearance is dark, or when it is auto and the system is dark", async () => {
    const luminance = (rgb: string) => {
      const [r, g, b] = rgb.match(/\d+/g)!.map(Number);
      return (0.2126 * r! + 0.7152 * g! + 0.0722 * b!) / 255;
    };
    await settle({ appearance: 'dark' });
    const dark = await open();
    await expect.poll(() => dark.evaluate(() => document.documentElement.dataset.appearance)).toBe('dark');
    expect(luminance(await dark.evaluate(() => getComputedStyle(document.documentElement).backgroundColor))).toBeLessThan(0.2);
    expect(luminance(await dark.evaluate(() => getComputedStyle(document.querySelector('h1')!).color))).toBeGreaterThan(0.8);
    // the QR code stays dark on light, as scanners need
    expect(await dark.locator('svg.qr rect').getAttribute('fill')).toBe('#fff');
    await screenshot(dark, 'dashboard-dark');

    await settle({ appearance: 'auto' });
    const auto = await open({ colorScheme: 'dark' });
    await expect.poll(() => auto.evaluate(() => document.documentElement.dataset.appearance)).toBe('auto');
    expect(luminance(await auto.evaluate(() => getComputedStyle(document.documentElement).backgroundColor))).toBeLessThan(0.2);
    const light = await open({ colorScheme: 'light' });
    expect(luminance(await light.evaluate(() => getComputedStyle(document.documentElement).backgroundColor))).toBeGreaterThan(0.8);
  });

  it('changes language and appearance from Preferences, saved to the account', async () => {
    const page = await open();
    await page.getByRole('button', { name: 'Preferences' }).click();
    const dialog = page.getByRole('dialog', { name: 'Preferences' });
    await dialog.getByLabel('Language').selectOption('zh-CN');
    await dialog.getByLabel('Appearance').selectOption('dark');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('link', { name: '概览' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.dataset.appearance)).toBe('dark');
    expect((await t.admin.get('/api/users/me')).body).toMatchObject({ locale: 'zh-CN', appearance: 'dark' });
  });

  it('can be used with the keyboard alone: to Apps, a new app through its dialog, Escape out of another', async () => {
    const page = await open();
    const focused = () => page.evaluate(() => `${document.activeElement?.tagName} ${document.activeElement?.textContent?.trim() ?? ''}`);
    // Tab along the page until the Apps link has the focus (every stop is a real control)
    for (let i = 0; i < 10 && (await focused()) !== 'A Apps'; i += 1) await page.keyboard.press('Tab');
    expect(await focused()).toBe('A Apps');
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
    expect(outline).not.toBe('none'); // the focus can be seen
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toBe('Apps');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main'); // the new page has the focus

    await page.keyboard.press('Tab');
    expect(await focused()).toBe('BUTTON New app');
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'New app' });
    await dialog.waitFor();
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('INPUT'); // the dialog's first field
    const name = unique('Keyboard App ');
    await page.keyboard.type(name);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toBe(name);
    await screenshot(page, 'keyboard-new-app');

    // Shift+Tab cannot leave an open dialog for the page behind it; Escape closes it and gives the focus back
    await page.getByRole('button', { name: 'Rename' }).focus();
    await page.keyboard.press('Enter');
    const rename = page.getByRole('dialog', { name: 'Rename the app' });
    await rename.waitFor();
    for (let i = 0; i < 6; i += 1) {
      await page.keyboard.press('Shift+Tab');
      expect(await page.evaluate(() => !!document.activeElement?.closest('dialog') || document.activeElement === document.body)).toBe(true);
    }
    await page.keyboard.press('Escape');
    await rename.waitFor({ state: 'detached' });
    expect(await focused()).toBe('BUTTON Rename');
  });

  it('shows an API error where it happened, with the field it names, and keeps the form to correct it', async () => {
    const page = await open();
    const taken = (await t.admin.get(`/api/channels/${android.channel.id}`)).body.slug as string;
    await page.goto(`${t.url}/console/#/apps/${android.app.id}`);
    await page.getByRole('button', { name: 'New channel' }).click();
    const dialog = page.getByRole('dialog', { name: 'New channel in Beta' });
    await dialog.getByLabel('Name', { exact: true }).fill('Tablets');
    await dialog.getByLabel('Slug').fill(taken.toUpperCase());
    await dialog.getByRole('button', { name: 'Create' }).click();
    const alert = dialog.getByRole('alert');
    await expect.poll(() => alert.innerText()).toContain('Please check what you entered:');
    expect(await alert.innerText()).toContain('slug has already been taken');
    await screenshot(page, 'api-error');
    await dialog.getByLabel('Slug').fill(unique('tablets-'));
    await dialog.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('link', { name: 'Tablets' }).waitFor();
  });

  it('in the desktop app, says why when its server could not start, with the settings to fix it', async () => {
    const failed = await openConsole(browser, t, { desktop: { error: 'listen EADDRINUSE: address already in use 0.0.0.0:7700' } });
    opened.push(failed);
    const page = failed.page;
    await page.getByRole('heading', { name: 'The console could not start' }).waitFor();
    expect(await page.getByRole('alert').first().innerText()).toContain("Hangar's server could not start. Change its settings below, then retry.");
    await page.getByText('listen EADDRINUSE: address already in use 0.0.0.0:7700', { exact: false }).first().waitFor(); // the settings page says why
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    await screenshot(page, 'desktop-start-failed');
  });

  it('reported no script errors and no Content-Security-Policy violations', () => {
    expect(opened.flatMap((o) => o.problems)).toEqual([]);
  });
});
