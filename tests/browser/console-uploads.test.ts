/**
 * The console's main flow in a browser, signed in with a session: creating an app, a scheme and
 * channels; real builds from ../shared/fixtures dragged onto a channel and onto the window (real
 * drag-and-drop events carrying the files' bytes) and picked with the file button, with progress,
 * speed, cancel and the metadata the server read; a refused build; the release page and its
 * full-screen QR code, decoded from a screenshot; deleting the release. Screenshots in
 * test-results/screenshots/console/.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Browser, CDPSession, JSHandle, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserMissing, launchChromium } from '../helpers/browser.ts';
import { buildConsole, decodeQr, openConsole, screenshot, signIn, type OpenConsole } from '../helpers/console.ts';
import { fixture, fixturesMissing } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, unique } from '../helpers/world.ts';

const IPA = fixture('ios', 'bundle-1.0-b1-ipad-cgbi-icons.ipa');
const APK = fixture('android', 'appinfodemo-2.1.0-vc10-r8-v2signed.apk'); // 4 MB: slow enough to watch when throttled

/** A DataTransfer in the page holding these files, as the OS hands one to a drop. */
async function filesInPage(page: Page, paths: { path: string; name?: string; data?: Buffer }[]): Promise<JSHandle<DataTransfer>> {
  const files = await Promise.all(paths.map(async (f) => ({ name: f.name ?? basename(f.path), base64: (f.data ?? (await readFile(f.path))).toString('base64') })));
  return page.evaluateHandle((list) => {
    const transfer = new DataTransfer();
    for (const { name, base64 } of list) transfer.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], name));
    return transfer;
  }, files);
}

/** Drags the files over `target` and drops them there, event by event as a browser fires them. */
async function dragAndDrop(target: Locator, dataTransfer: JSHandle<DataTransfer>): Promise<void> {
  await target.dispatchEvent('dragenter', { dataTransfer });
  await target.dispatchEvent('dragover', { dataTransfer });
  await target.dispatchEvent('drop', { dataTransfer });
}

/** Limits the page's upload speed (bytes/s); null lifts the limit. */
async function throttleUploads(cdp: CDPSession, bytesPerSecond: number | null): Promise<void> {
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: bytesPerSecond ?? -1 });
}

describe.skipIf(browserMissing !== null || fixturesMissing !== null)('console: apps, uploads and releases in Chromium', () => {
  let t: TestServer;
  let browser: Browser;
  let opened: OpenConsole;
  let page: Page;
  let cdp: CDPSession;
  const appName = unique('Field Notes ');
  let appId: number;
  let ipaRelease: { id: number; channelId: number };

  const heading = () => page.getByRole('heading', { level: 1 }).innerText();
  const uploadRow = (name: string) => page.locator('.upload-row', { hasText: name });

  beforeAll(async () => {
    await buildConsole();
    t = await startTestServer();
    browser = await launchChromium();
    const admin = await createUser(t, 'admin');
    opened = await openConsole(browser, t);
    page = opened.page;
    cdp = await opened.context.newCDPSession(page);
    await cdp.send('Network.enable');
    await signIn(page, admin.username, 'correct horse battery');
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('creates an app, a scheme and two channels', async () => {
    await page.getByRole('link', { name: 'Apps' }).click();
    await page.getByText('No apps yet').waitFor();
    await page.getByRole('button', { name: 'New app' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'New app' });
    await dialog.getByLabel('Name').fill(appName);
    await dialog.getByRole('button', { name: 'Create' }).click();
    await expect.poll(heading).toBe(appName);
    appId = Number(/#\/apps\/(\d+)/.exec(page.url())![1]);

    await page.getByRole('button', { name: 'New scheme' }).first().click();
    const schemeDialog = page.getByRole('dialog', { name: 'New scheme' });
    await schemeDialog.getByLabel('Name', { exact: true }).fill('Beta');
    await schemeDialog.getByLabel('Builds kept per channel').fill('5');
    await schemeDialog.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: 'Beta' }).waitFor();

    for (const [name, platform] of [['iPhone', 'iOS'], ['Phones', 'Android']] as const) {
      await page.getByRole('button', { name: 'New channel' }).click();
      const channelDialog = page.getByRole('dialog', { name: 'New channel in Beta' });
      await channelDialog.getByLabel('Name', { exact: true }).fill(name);
      await channelDialog.getByLabel('Platform').selectOption({ label: platform });
      await channelDialog.getByRole('button', { name: 'Create' }).click();
      await page.getByRole('link', { name }).waitFor();
    }
    await screenshot(page, 'app-schemes-channels');

    const app = await t.admin.get(`/api/apps/${appId}`);
    expect(app.body.schemes).toHaveLength(1);
    expect(app.body.schemes[0]).toMatchObject({ name: 'Beta', retained_builds: 5, new_build_callout: true });
    expect(app.body.schemes[0].channels.map((c: any) => [c.name, c.device_type])).toEqual([
      ['iPhone', 'ios'],
      ['Phones', 'android'],
    ]);
  });

  it('uploads an .ipa dropped on a channel (real drag-and-drop events) and shows what the server read', async () => {
    await page.getByRole('link', { name: 'iPhone' }).click();
    await expect.poll(heading).toBe('iPhone');
    await page.getByText('No releases yet').waitFor();

    const transfer = await filesInPage(page, [{ path: IPA }]);
    const zone = page.locator('.drop-zone');
    await zone.dispatchEvent('dragenter', { dataTransfer: transfer });
    await zone.dispatchEvent('dragover', { dataTransfer: transfer });
    // while dragging: the overlay says what a drop does, and the channel under the pointer lights up
    await page.locator('.drop-overlay').waitFor();
    expect(await page.locator('.channel-area').getAttribute('class')).toContain('drop-over');
    await screenshot(page, 'drag-over-channel');
    await zone.dispatchEvent('drop', { dataTransfer: transfer });
    await page.locator('.drop-overlay').waitFor({ state: 'detached' });

    const row = uploadRow(basename(IPA));
    await expect.poll(() => row.locator('.upload-state').innerText(), { timeout: 15_000 }).toBe('Uploaded');
    const facts = await row.locator('.uploaded').innerText();
    for (const fact of ['bundle', '1.0 (1)', 'com.icyleaf.bundle', 'iPhone']) expect(facts).toContain(fact);
    // the icon the server extracted is shown, loaded from the server
    await expect.poll(() => row.locator('img.app-icon').evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
    await screenshot(page, 'upload-ipa-done');

    const href = await row.getByRole('link', { name: 'Open the release' }).getAttribute('href');
    const [, id, channelId] = /#\/releases\/(\d+)\?channel=(\d+)/.exec(href!)!;
    ipaRelease = { id: Number(id), channelId: Number(channelId) };
    // the channel's list follows the upload live
    await page.locator(`tr[data-release-id="${id}"]`).waitFor();
    const release = await t.admin.get(`/api/releases/${id}`);
    expect(release.body).toMatchObject({ app_name: 'bundle', release_version: '1.0', build_version: '1', bundle_id: 'com.icyleaf.bundle' });
  });

  it('uploads an .apk dropped on the window to a new app, showing progress and speed while it is sent', async () => {
    await page.getByRole('link', { name: 'Dashboard' }).click();
    await page.getByRole('button', { name: 'Clear finished' }).click();
    await dragAndDrop(page.getByRole('heading', { name: 'Dashboard' }), await filesInPage(page, [{ path: APK }]));

    const dialog = page.getByRole('dialog', { name: 'Upload 1 build' });
    expect(await dialog.getByLabel('A new app').isChecked()).toBe(true); // not on a channel's page
    await throttleUploads(cdp, 1024 * 1024);
    await dialog.getByRole('button', { name: 'Upload' }).click();

    const row = uploadRow(basename(APK));
    const progress = row.getByRole('progressbar', { name: `Upload progress of ${basename(APK)}` });
    // part of the way: some bytes sent, not all, at a measured speed
    await expect
      .poll(async () => {
        const value = Number(await progress.getAttribute('value'));
        return value > 0 && value < Number(await progress.getAttribute('max'));
      })
      .toBe(true);
    await expect.poll(() => row.locator('.upload-progress').innerText()).toMatch(/of 3\.8 MB · [\d.]+ (KB|MB)\/s/);
    await screenshot(page, 'upload-apk-progress');
    await expect.poll(() => row.locator('.upload-state').innerText(), { timeout: 30_000 }).toBe('Uploaded');
    await throttleUploads(cdp, null);

    expect(await row.locator('.uploaded').innerText()).toContain('com.icyleaf.appinfodemo');
    const apps = await t.admin.get('/api/apps');
    const made = apps.body.find((a: any) => a.name === 'AppInfoDemo');
    expect(made.schemes[0].channels[0].device_type).toBe('android');
  });

  it('cancels an upload while it is sent, and nothing is kept', async () => {
    await throttleUploads(cdp, 128 * 1024);
    // the file button, as a keyboard user would use it, to the Android channel
    await page.locator('.topbar').getByLabel('Upload builds').setInputFiles(APK);
    const dialog = page.getByRole('dialog', { name: 'Upload 1 build' });
    await dialog.getByLabel('Channel', { exact: true }).selectOption({ label: `${appName} › Beta › Phones (Android)` });
    expect(await dialog.getByLabel('A channel').isChecked()).toBe(true);
    await dialog.getByRole('button', { name: 'Upload' }).click();

    const row = uploadRow('→ ' + `${appName} › Beta › Phones`);
    await expect.poll(() => row.locator('.upload-state').innerText()).toBe('Uploading');
    await row.getByRole('button', { name: `Cancel the upload of ${basename(APK)}` }).click();
    await expect.poll(() => row.locator('.upload-state').innerText()).toBe('Cancelled');
    await throttleUploads(cdp, null);

    const app = await t.admin.get(`/api/apps/${appId}`);
    const phones = app.body.schemes[0].channels.find((c: any) => c.name === 'Phones');
    const key = await t.admin.get(`/api/channels/${phones.id}/key`);
    const versions = await t.admin.get('/api/apps/versions', { query: { channel_key: key.body.key } });
    expect(versions.body.releases).toEqual([]);
  });

  it('shows why the server refused a build (an API error, in words the user can act on)', async () => {
    await page.getByRole('button', { name: 'Clear finished' }).click();
    await page.getByRole('link', { name: 'Apps' }).click();
    await page.getByRole('link', { name: appName }).click();
    // dropped on the Android channel's row of the app page
    const phonesRow = page.locator('tr', { has: page.getByRole('link', { name: 'Phones' }) });
    await dragAndDrop(phonesRow, await filesInPage(page, [{ path: 'broken.apk', name: 'broken.apk', data: Buffer.from('this is not an android package') }]));
    const row = uploadRow('broken.apk');
    await expect.poll(() => row.locator('.upload-state').innerText()).toBe('Refused');
    const alert = row.getByRole('alert');
    // the console's headline and advice, and the server's reason (R10: 422 with what is wrong)
    expect(await alert.innerText()).toContain('The server could not use this build:');
    expect(await alert.innerText()).toContain('not a readable zip archive');
    expect(await alert.innerText()).toContain('complete app package');
    await screenshot(page, 'upload-refused');
  });

  it('opens the release; its full-screen QR code reads as the release_url; Escape leaves it', async () => {
    await page.goto(`${t.url}/console/#/releases/${ipaRelease.id}?channel=${ipaRelease.channelId}`);
    await expect.poll(heading).toBe('bundle 1.0 (1)');
    const channel = await t.admin.get(`/api/channels/${ipaRelease.channelId}`);
    const releaseUrl = t.server.urls().release(channel.body.slug, ipaRelease.id);
    expect(await page.locator('.link-row', { hasText: 'Release page' }).getByRole('link').innerText()).toBe(releaseUrl);
    await screenshot(page, 'release');

    const open = page.getByRole('button', { name: 'Full-screen QR code' });
    await open.click();
    const qr = page.locator('dialog.qr-fullscreen');
    await qr.waitFor();
    const box = (await qr.locator('svg').boundingBox())!;
    expect(Math.min(box.width, box.height)).toBeGreaterThan(0.8 * (860 - 110)); // as large as the window allows
    const shot = await page.screenshot();
    await screenshot(page, 'release-qr-fullscreen', { fullPage: false });
    expect(decodeQr(shot)).toBe(releaseUrl);

    await page.keyboard.press('Escape');
    await qr.waitFor({ state: 'detached' });
    expect(await open.evaluate((button) => button === document.activeElement)).toBe(true);
  });

  it('deletes the release after asking', async () => {
    await page.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete bundle 1.0 (1)?' });
    expect(await dialog.innerText()).toContain('its release number is not used again');
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(heading).toBe('iPhone');
    expect((await t.admin.get(`/api/releases/${ipaRelease.id}`)).status).toBe(404);
  });

  it('reported no script errors and no Content-Security-Policy violations', () => {
    expect(opened.problems).toEqual([]);
  });
});
