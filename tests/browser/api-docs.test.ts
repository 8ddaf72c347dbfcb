import { mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserMissing, launchChromium } from '../helpers/browser.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

describe.skipIf(browserMissing !== null)('API documentation page in Chromium', () => {
  let t: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    t = await startTestServer();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('renders /api/docs from the served OpenAPI document, offline, with every tag and operation', async () => {
    const page = await browser.newPage();
    const failed: string[] = [];
    page.on('requestfailed', (request) => failed.push(request.url()));
    const external: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(t.url)) external.push(request.url());
    });
    await page.goto(`${t.url}/api/docs`);
    await page.waitForSelector('.opblock-tag', { timeout: 15_000 });
    const tags = await page.locator('.opblock-tag').allInnerTexts();
    for (const tag of ['System', 'Apps', 'Schemes', 'Channels', 'Collaborators', 'Users', 'Tokens', 'Devices']) {
      expect(tags.some((text) => text.startsWith(tag)), tag).toBe(true);
    }
    const operations = await page.locator('.opblock-summary-path').allInnerTexts();
    expect(operations).toContain('/api/apps/{id}');
    expect(operations).toContain('/api/apps/{app_id}/collaborators/{user_id}');
    expect(await page.locator('.opblock').count()).toBeGreaterThan(40);
    expect(failed).toEqual([]);
    expect(external).toEqual([]);
    mkdirSync('test-results/screenshots', { recursive: true });
    await page.screenshot({ path: 'test-results/screenshots/api-docs.png', fullPage: false });
  });

  it('lets a reader try an operation against the live server', async () => {
    const page = await browser.newPage();
    await page.goto(`${t.url}/api/docs#/System/get_api_version`);
    const block = page.locator('#operations-System-get_api_version');
    await block.locator('.try-out__btn').click(); // the deep link has expanded the operation
    const [response] = await Promise.all([
      page.waitForResponse((r) => new URL(r.url()).pathname === '/api/version'),
      block.locator('button.execute').click(),
    ]);
    expect(response.status()).toBe(200);
    await expect.poll(() => block.locator('.live-responses-table').innerText(), { timeout: 10_000 }).toContain('vcs_ref');
  });
});
