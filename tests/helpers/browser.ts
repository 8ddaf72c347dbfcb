/**
 * Real Chromium for page tests: Debian's build driven by playwright-core (Playwright's own browser
 * download cannot work on these machines). bin/test installs it and exports HANGAR_CHROMIUM.
 * Without it, browser tests skip with a message, except under CI=true where that is a failure.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.HANGAR_CHROMIUM || ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p)) || null;

export const browserMissing = CHROMIUM === null ? 'Chromium is not installed (bin/test installs it with apt-get)' : null;

if (browserMissing && process.env.CI === 'true') {
  throw new Error(`${browserMissing}: browser tests cannot be skipped under CI`);
}
if (browserMissing) console.warn(`SKIPPING browser tests: ${browserMissing}`);

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM!,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
