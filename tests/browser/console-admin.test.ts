/**
 * Running the lab from the console, as the desktop app shows it (a stand-in for the preload gives it
 * the server and an operator token): users (create, role, lock, unlock), collaborators added by
 * email, a personal access token minted (shown once, copied) and revoked, test devices, a channel's
 * settings and key, webhooks with their deliveries, and debug files. Every change is checked
 * through the API, not only on screen.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserMissing, launchChromium } from '../helpers/browser.ts';
import { buildConsole, openConsole, screenshot, type OpenConsole } from '../helpers/console.ts';
import { fixture, fixturesMissing } from '../helpers/fixtures.ts';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.ts';
import { postDebugFile } from '../helpers/symbols.ts';
import { createAppTree, createUser, unique, type AppTree } from '../helpers/world.ts';

describe.skipIf(browserMissing !== null || fixturesMissing !== null)('console administration in Chromium (desktop app)', () => {
  let t: TestServer;
  let browser: Browser;
  let opened: OpenConsole;
  let page: Page;
  let tree: AppTree;
  let hooks: Server;
  let hooksUrl: string;

  const heading = () => page.getByRole('heading', { level: 1 }).innerText();
  const visit = async (route: string, title: string) => {
    await page.goto(`${t.url}/console/#${route}`);
    await expect.poll(heading).toBe(title);
  };

  beforeAll(async () => {
    await buildConsole();
    t = await startTestServer();
    browser = await launchChromium();
    tree = await createAppTree(t, t.admin, 'ios');
    hooks = createServer((_request, response) => response.writeHead(204).end());
    await new Promise<void>((listening) => hooks.listen(0, '127.0.0.1', listening));
    hooksUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hangar`;
    opened = await openConsole(browser, t, { desktop: { token: ADMIN_TOKEN }, permissions: ['clipboard-read', 'clipboard-write'] });
    page = opened.page;
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    hooks?.close();
  });

  it('creates a user, changes their role, locks and unlocks them', async () => {
    const username = unique('tester');
    await visit('/users', 'Users');
    await page.getByRole('button', { name: 'New user' }).click();
    const dialog = page.getByRole('dialog', { name: 'New user' });
    await dialog.getByLabel('Username').fill(username);
    await dialog.getByLabel('Email').fill(`${username}@lab.test`);
    await dialog.getByLabel('Password').fill('a long enough password');
    await dialog.getByLabel('Role').selectOption('developer');
    await dialog.getByLabel('Language').selectOption('zh-CN');
    await dialog.getByRole('button', { name: 'Create' }).click();
    const row = page.locator(`tr[data-user="${username}"]`);
    await row.waitFor();
    const user = async () => (await t.admin.get('/api/users')).body.find((u: any) => u.username === username);
    expect(await user()).toMatchObject({ email: `${username}@lab.test`, role: 'developer', locale: 'zh-CN', locked: false });

    await row.getByRole('combobox', { name: `Role of ${username}` }).selectOption('member');
    await expect.poll(async () => (await user()).role).toBe('member');
    await row.getByRole('button', { name: 'Lock' }).click();
    await row.getByText('Locked').waitFor();
    expect((await user()).locked).toBe(true);
    await screenshot(page, 'users');
    await row.getByRole('button', { name: 'Unlock' }).click();
    await row.getByText('Active').waitFor();
    expect((await user()).locked).toBe(false);
  });

  it('adds a collaborator found by email, changes their role, removes them', async () => {
    const tester = await createUser(t, 'member');
    await visit(`/apps/${tree.app.id}/collaborators`, tree.app.name);
    await page.getByRole('button', { name: 'Add collaborator' }).click();
    let dialog = page.getByRole('dialog', { name: `Add a collaborator to ${tree.app.name}` });
    // an address nobody has: said so, and the dialog stays open to correct it
    await dialog.getByLabel('Email').fill('nobody@lab.test');
    await dialog.getByRole('button', { name: 'Add collaborator' }).click();
    await expect.poll(() => dialog.getByRole('alert').innerText()).toContain('No user has the email address nobody@lab.test');
    await dialog.getByLabel('Email').fill(tester.email.toUpperCase());
    await dialog.getByLabel('Role').selectOption('developer');
    await dialog.getByRole('button', { name: 'Add collaborator' }).click();
    await dialog.waitFor({ state: 'detached' });

    const row = page.locator('tr', { hasText: tester.username });
    await row.waitFor();
    const collaborator = async () => t.admin.get(`/api/apps/${tree.app.id}/collaborators/${tester.id}`);
    expect((await collaborator()).body.role).toBe('developer');
    await screenshot(page, 'collaborators');

    await row.getByRole('combobox', { name: `Role of ${tester.username}` }).selectOption('member');
    await expect.poll(async () => (await collaborator()).body.role).toBe('member');

    await row.getByRole('button', { name: 'Remove' }).click();
    dialog = page.getByRole('dialog', { name: `Remove ${tester.username}?` });
    await dialog.getByRole('button', { name: 'Remove' }).click();
    await row.waitFor({ state: 'detached' });
    expect((await collaborator()).status).toBe(404);
  });

  it('mints a token, shows its value once with a copy button, and revokes it', async () => {
    await visit('/tokens', 'Access tokens');
    await page.getByRole('button', { name: 'New token' }).first().click();
    const form = page.getByRole('dialog', { name: 'New token' });
    await form.getByLabel('Name').fill('Jenkins iOS');
    await form.getByLabel('Expires after (days)').fill('30');
    await form.getByRole('button', { name: 'Create' }).click();

    const shown = page.getByRole('dialog', { name: 'Token "Jenkins iOS" created' });
    const value = await shown.locator('code').innerText();
    await shown.getByRole('button', { name: 'Copy the token' }).click();
    await shown.getByText('Copied').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(value);
    await screenshot(page, 'token-created');
    // the value works, as the one shown
    expect((await t.client(value).get('/api/users/me')).status).toBe(200);
    await shown.getByRole('button', { name: 'Done' }).click();

    const row = page.locator('tr[data-token="Jenkins iOS"]');
    await row.waitFor();
    expect(await page.content()).not.toContain(value); // never shown again
    expect(await row.innerText()).toContain(value.slice(0, 8));

    await row.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog', { name: 'Revoke the token Jenkins iOS?' }).getByRole('button', { name: 'Revoke' }).click();
    await row.waitFor({ state: 'detached' });
    expect((await t.client(value).get('/api/users/me')).status).toBe(401);
  });

  it('lists test devices and forgets one', async () => {
    const udid = '00008030-001A2B3C4D5E6F70';
    expect((await t.admin.put(`/api/devices/${udid}`, { name: 'QA iPhone 15', model: 'iPhone16,1' })).status).toBe(200);
    await visit('/devices', 'Devices');
    const row = page.locator('tr', { hasText: 'QA iPhone 15' });
    expect(await row.innerText()).toContain(udid);
    expect(await row.innerText()).toContain('iPhone16,1');
    await row.getByRole('button', { name: 'Forget' }).click();
    await page.getByRole('dialog', { name: 'Forget QA iPhone 15?' }).getByRole('button', { name: 'Forget' }).click();
    await page.getByText('No devices yet').waitFor();
    expect((await t.admin.get('/api/devices')).body).toEqual([]);
  });

  it("changes a channel's settings, and regenerates its key after asking", async () => {
    await visit(`/channels/${tree.channel.id}/settings`, 'Main');
    const slug = unique('field-notes-');
    await page.getByLabel('Slug').fill(slug);
    await page.getByLabel('Visit password').fill('lab-secret');
    await page.getByLabel('Download file names').selectOption('original_filename');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    const channel = (await t.admin.get(`/api/channels/${tree.channel.id}`)).body;
    expect(channel).toMatchObject({ slug, has_password: true, download_filename_type: 'original_filename' });
    await page.getByText('This channel has a visit password.', { exact: false }).waitFor();

    const keyBox = page.locator('.copy-value code');
    expect(await keyBox.innerText()).toBe(tree.channel.key);
    await page.getByRole('button', { name: 'Regenerate the key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Regenerate the channel key?' });
    expect(await dialog.innerText()).toContain('stops working at once');
    await dialog.getByRole('button', { name: 'Regenerate the key' }).click();
    await expect.poll(() => keyBox.innerText()).not.toBe(tree.channel.key);
    const key = await keyBox.innerText();
    expect((await t.admin.get(`/api/channels/${tree.channel.id}/key`)).body.key).toBe(key);
    expect((await t.anon.get('/api/apps/versions', { query: { channel_key: tree.channel.key } })).status).toBe(422);
    await screenshot(page, 'channel-settings');
    tree.channel.key = key;
  });

  it('creates a webhook (its secret shown once), sends a test and shows the delivery', async () => {
    await visit(`/channels/${tree.channel.id}/webhooks`, 'Main');
    await page.getByText('No webhooks').waitFor();
    await page.getByRole('button', { name: 'New webhook' }).first().click();
    const form = page.getByRole('dialog', { name: 'New webhook' });
    await form.getByLabel('URL').fill(hooksUrl);
    await form.getByLabel('Download').check();
    await form.getByRole('button', { name: 'Create' }).click();
    const secret = page.getByRole('dialog', { name: "The webhook's secret" });
    expect((await secret.locator('code').innerText()).length).toBeGreaterThan(16);
    await secret.getByRole('button', { name: 'Done' }).click();

    const card = page.getByRole('region', { name: hooksUrl });
    expect(await card.locator('.chips').innerText()).toMatch(/Upload\s+Download/);
    const [webhook] = (await t.admin.get(`/api/channels/${tree.channel.id}/webhooks`)).body;
    expect(webhook).toMatchObject({ url: hooksUrl, events: ['upload', 'download'], enabled: true });

    await card.getByRole('button', { name: 'Send a test' }).click();
    await card.getByText('Latest deliveries').click();
    await expect.poll(() => card.locator('tbody tr').first().innerText(), { timeout: 15_000 }).toMatch(/Upload\s+Delivered.*\s+204/s);
    await screenshot(page, 'webhooks');

    await card.getByRole('button', { name: 'Turn off' }).click();
    await card.getByText('Off', { exact: true }).waitFor();
    expect((await t.admin.get(`/api/webhooks/${webhook.id}`)).body.enabled).toBe(false);
  });

  it("lists an app's debug files, downloads and deletes one", async () => {
    const zip = await readFile(fixture('symbols', 'apple', 'dsym-ios-single-arm64.zip'));
    const posted = await postDebugFile(t.admin, zip, { channel_key: tree.channel.key });
    expect(posted.status, posted.text).toBe(201);
    await visit(`/apps/${tree.app.id}/debug-files`, tree.app.name);
    const row = page.locator('tbody tr').first();
    const uuid = posted.body.metadata[0].uuid as string;
    expect(await row.innerText()).toContain(uuid);
    expect(await row.innerText()).toContain(`${posted.body.release_version} (${posted.body.build_version})`);
    await screenshot(page, 'debug-files');

    const href = await row.getByRole('link', { name: 'Download' }).getAttribute('href');
    const download = await page.request.get(href!);
    expect(download.status()).toBe(200);
    expect(Buffer.compare(await download.body(), zip)).toBe(0);

    await row.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog', { name: /^Delete the debug files of/ }).getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No debug files yet').waitFor();
    expect((await t.anon.get('/api/debug_files', { query: { channel_key: tree.channel.key } })).body).toEqual([]);
  });

  it('renames, archives, unarchives and deletes an app; edits a scheme; deletes a channel and a scheme, each after asking', async () => {
    const other = await createAppTree(t, t.admin, 'android');
    await visit(`/apps/${other.app.id}`, other.app.name);
    const renamed = unique('Renamed ');
    await page.getByRole('button', { name: 'Rename' }).click();
    const rename = page.getByRole('dialog', { name: 'Rename the app' });
    await rename.getByLabel('Name').fill(renamed);
    await rename.getByRole('button', { name: 'Save' }).click();
    await expect.poll(heading).toBe(renamed);

    await page.getByRole('button', { name: 'Archive' }).click();
    await page.getByText('This app is archived').waitFor();
    expect(await page.getByRole('button', { name: 'New scheme' }).isDisabled()).toBe(true);
    expect((await t.admin.get(`/api/apps/${other.app.id}`)).body).toMatchObject({ name: renamed, archived: true });
    await visit('/apps?scope=archived', 'Apps');
    await page.getByRole('link', { name: renamed }).click();
    await page.getByRole('button', { name: 'Unarchive' }).click();
    await page.getByRole('button', { name: 'Archive' }).waitFor();
    expect((await t.admin.get(`/api/apps/${other.app.id}`)).body.archived).toBe(false);

    await page.getByRole('button', { name: 'Edit' }).click();
    const scheme = page.getByRole('dialog', { name: 'Edit the scheme' });
    await scheme.getByLabel('Announce new builds').uncheck();
    await scheme.getByRole('button', { name: 'Save' }).click();
    await page.getByText('New builds not announced').waitFor();
    expect((await t.admin.get(`/api/schemes/${other.scheme.id}`)).body.new_build_callout).toBe(false);

    await page.getByRole('link', { name: 'Main' }).click();
    // the app page (with its own Delete buttons) stays until the channel page replaces it
    await expect.poll(heading).toBe('Main');
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog', { name: 'Delete the channel Main?' }).getByRole('button', { name: 'Delete' }).click();
    await expect.poll(heading).toBe(renamed);
    expect((await t.admin.get(`/api/channels/${other.channel.id}`)).status).toBe(404);
    await page.getByText('No channels yet').waitFor();

    await page.locator('.scheme').getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog', { name: 'Delete the scheme Beta?' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No schemes yet').waitFor();

    await page.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: `Delete ${renamed}?` });
    expect(await confirm.innerText()).toContain('This cannot be undone.');
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(heading).toBe('Apps');
    expect((await t.admin.get(`/api/apps/${other.app.id}`)).status).toBe(404);
  });

  it('reported no script errors and no Content-Security-Policy violations', () => {
    expect(opened.problems).toEqual([]);
  });
});
