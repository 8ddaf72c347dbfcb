/**
 * The operator console (src-renderer) in real Chromium, served by a real server at /console/.
 *
 * buildConsole() builds the renderer into out/renderer, the folder the server serves, when it is
 * missing or older than its sources: the renderer part of `electron-vite build`, from
 * electron.vite.config.ts, in a child process. Test files run in parallel, so one build at a time
 * (a lock directory) and the others wait for it. Call it before starting the server.
 *
 * openConsole() opens the console as a browser on the LAN does (sign-in page, session cookie), or
 * as the desktop app does: a stand-in for the preload's `window.hangar` hands it the server URL and
 * a token, as the main process would.
 *
 * Importing this module gives the test file's expect.poll() 10 s rather than 1 s: a page, its server
 * and other test files' browsers share two cores, and password hashing alone takes a while.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import jsQRModule from 'jsqr';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { vi } from 'vitest';
import type { TestServer } from './server.ts';

vi.setConfig({ expect: { poll: { timeout: 10_000 } } });

const ROOT = resolve(import.meta.dirname, '../..');
const OUT = join(ROOT, 'out/renderer');
const LOCK = join(ROOT, 'out/.renderer-build.lock');
const SOURCES = [join(ROOT, 'src-renderer'), join(ROOT, 'src-main/hangar-api.ts'), join(ROOT, 'electron.vite.config.ts')];
export const SCREENSHOTS = 'test-results/screenshots/console';

/** Newest modification time (ms) of a file or of anything under a folder. */
function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

function upToDate(): boolean {
  try {
    return statSync(join(OUT, 'index.html')).mtimeMs >= Math.max(...SOURCES.map(newest));
  } catch {
    return false;
  }
}

const BUILD_SCRIPT = `
import { resolveConfig } from 'electron-vite';
import { build } from 'vite';
process.env.NODE_ENV_ELECTRON_VITE = 'production';
const { config } = await resolveConfig({ logLevel: 'warn' }, 'build', 'production');
await build(config.renderer);
`;

async function takeLock(): Promise<boolean> {
  try {
    mkdirSync(LOCK, { recursive: false });
    return true;
  } catch {
    // a build that died long ago leaves its lock behind
    if (Date.now() - statSync(LOCK, { throwIfNoEntry: false })!.mtimeMs > 5 * 60_000) rmSync(LOCK, { recursive: true, force: true });
    return false;
  }
}

export async function buildConsole(): Promise<void> {
  mkdirSync(join(ROOT, 'out'), { recursive: true });
  const deadline = Date.now() + 3 * 60_000;
  while (!upToDate()) {
    if (await takeLock()) {
      try {
        if (!upToDate()) await promisify(execFile)(process.execPath, ['--input-type=module', '-e', BUILD_SCRIPT], { cwd: ROOT, timeout: 150_000 });
      } finally {
        rmSync(LOCK, { recursive: true, force: true });
      }
      return;
    }
    if (Date.now() > deadline) throw new Error('waited 3 minutes for another test file to build the console');
    await new Promise((done) => setTimeout(done, 500));
  }
}

export interface ConsoleOptions extends BrowserContextOptions {
  /**
   * Open as the desktop app: a stand-in `window.hangar` gives the console this token for the test
   * server, or says its server is not running because its start failed (`error`).
   */
  desktop?: { token: string } | { error: string };
}

export interface OpenConsole {
  page: Page;
  context: BrowserContext;
  /** uncaught errors and Content-Security-Policy violations the page reported */
  problems: string[];
}

/** What the stand-in's settings answer: the desktop app's defaults. */
const DESKTOP_SETTINGS = {
  port: 7700,
  httpsPort: 7701,
  dataDir: '/home/qa/Hangar',
  baseUrl: null,
  apiShape: 'extended',
  networkInterface: null,
  mdns: true,
  startAtLogin: false,
  minimizeToTray: true,
};

export async function openConsole(browser: Browser, t: TestServer, { desktop, ...options }: ConsoleOptions = {}): Promise<OpenConsole> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'en-US', ...options });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) problems.push(message.text());
  });
  if (desktop) {
    const server =
      'token' in desktop
        ? { url: t.url, token: desktop.token, lanUrl: t.server.urls().base, state: 'running' }
        : { url: '', token: '', lanUrl: '', state: 'paused', error: desktop.error };
    await page.addInitScript(
      ({ server, settings }) => {
        const connection = async () => server;
        const hangar = {
          platform: 'linux',
          versions: { electron: 'test', chrome: 'test', node: 'test' },
          server: connection,
          restartServer: connection,
          settings: { get: async () => settings, set: async () => ({ saved: settings, restartNeeded: false }) },
          pickFolder: async () => null,
          openFolder: async () => {},
          onNavigate: () => () => {},
        };
        Object.defineProperty(window, 'hangar', { value: Object.freeze(hangar) });
      },
      { server, settings: DESKTOP_SETTINGS },
    );
  }
  await page.goto(`${t.url}/console/`);
  return { page, context, problems };
}

/** Signs in on the console's sign-in page and waits for the console (on the page the address names). */
export async function signIn(page: Page, login: string, password: string): Promise<void> {
  await page.getByLabel('Username or email').fill(login);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}

/** Saves test-results/screenshots/console/<name>.png: the whole page, or only what the window shows. */
export async function screenshot(page: Page, name: string, { fullPage = true } = {}): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage });
}

// jsqr is CommonJS with an ES-style `export default` in its types: the import is the function.
const jsQR = jsQRModule as unknown as typeof jsQRModule.default;

/** The text of the QR code in a screenshot (PNG), or null when there is none that reads. */
export function decodeQr(png: Buffer): string | null {
  const image = PNG.sync.read(png);
  return jsQR(new Uint8ClampedArray(image.data.buffer, image.data.byteOffset, image.data.length), image.width, image.height)?.data ?? null;
}
