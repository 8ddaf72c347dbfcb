/**
 * The console in a browser on the LAN (/console/): signing in with a username or an email, the
 * errors a wrong password and a locked account give, a session that survives a reload, signing
 * out, and a session that ends under the page (back to sign-in, saying so). Real server, real
 * Chromium; screenshots in test-results/screenshots/console/.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserMissing, launchChromium } from '../helpers/browser.ts';
import { buildConsole, openConsole, screenshot, signIn, type OpenConsole } from '../helpers/console.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, type TestUser } from '../helpers/world.ts';

const PASSWORD = 'correct horse battery'; // what createUser() gives every user

describe.skipIf(browserMissing !== null)('console sign-in in Chromium', () => {
  let t: TestServer;
  let browser: Browser;
  let admin: TestUser;
  const opened: OpenConsole[] = [];

  beforeAll(async () => {
    await buildConsole();
    t = await startTestServer();
    browser = await launchChromium();
    admin = await createUser(t, 'admin');
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function open() {
    const console = await openConsole(browser, t);
    opened.push(console);
    await console.page.getByRole('heading', { name: 'Sign in to Hangar' }).waitFor();
    return console;
  }


  it('refuses a wrong password with a message that says what to do', async () => {
    const { page, context } = await open();
    await page.getByLabel('Username or email').fill(admin.username);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.innerText()).toContain('Wrong username, email or password.');
    expect(await alert.innerText()).toContain('case-sensitive');
    await screenshot(page, 'sign-in-wrong-password');
    await context.close();
  });

  it('refuses a locked account, naming it', async () => {
    const locked = await createUser(t, 'member', { locked: true });
    const { page, context } = await open();
    await page.getByLabel('Username or email').fill(locked.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('This account is locked');
    expect(await page.getByRole('alert').innerText()).toContain('An admin of this Hangar can unlock it.');
    await context.close();
  });

  it('signs in by email, keeps the session over a reload, signs out', async () => {
    const { page, context } = await open();
    await screenshot(page, 'sign-in');
    await signIn(page, admin.email, PASSWORD);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toBe('Dashboard');
    expect(await page.locator('.account').innerText()).toContain(admin.username);
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === 'hangar_session')?.httpOnly).toBe(true);

    await page.reload();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toBe('Dashboard');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Hangar' }).waitFor();
    // the server forgot the session: a reload lands on the sign-in page again
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to Hangar' }).waitFor();
    await context.close();
  });

  it('goes back to sign-in, saying so, when the session ends under the page, then on to the page asked for', async () => {
    const { page, context } = await open();
    await signIn(page, admin.username, PASSWORD);
    await context.clearCookies(); // as if the session expired or was signed out elsewhere
    await page.getByRole('link', { name: 'Apps' }).click();
    await page.getByRole('heading', { name: 'Sign in to Hangar' }).waitFor();
    expect(await page.getByRole('status').first().innerText()).toBe('Your session ended. Sign in again to continue.');
    await signIn(page, admin.username, PASSWORD);
    // back where they were going
    await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toBe('Apps');
    await context.close();
  });

  it('works for a member: no Users page for them', async () => {
    const member = await createUser(t, 'member');
    const { page, context } = await open();
    await signIn(page, member.username, PASSWORD);
    const nav = page.getByRole('navigation', { name: 'Main' });
    expect(await nav.getByRole('link').allInnerTexts()).toEqual(['Dashboard', 'Apps', 'Devices', 'Access tokens']);
    await page.goto(`${t.url}/console/#/users`);
    await page.getByText('Only admins manage users').waitFor();
    await context.close();
  });

  it('reported no script errors and no Content-Security-Policy violations', () => {
    expect(opened.flatMap((o) => o.problems)).toEqual([]);
  });
});
