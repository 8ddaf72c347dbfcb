// Unit test of the Electron main process (src-main/index.ts) with `electron` mocked: there is no
// runnable Electron binary on the build machines. The module does its work at import time, so every
// test resets the module registry and imports it afresh.
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserWindowConstructorOptions } from 'electron';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

type Handler = (...args: unknown[]) => unknown;

const fake = vi.hoisted(() => {
  const state = {
    lockGranted: true,
    isPackaged: true,
    ready: Promise.resolve(),
    appHandlers: new Map<string, Handler>(),
  };

  class FakeWindow {
    static instances: FakeWindow[] = [];
    static getAllWindows = (): FakeWindow[] => FakeWindow.instances.filter((w) => !w.destroyed);

    readonly options: BrowserWindowConstructorOptions | undefined;
    readonly handlers = new Map<string, Handler>();
    destroyed = false;
    minimized = false;
    openHandler: ((details: { url: string }) => { action: string }) | undefined;

    loadURL = vi.fn(async (_url: string) => {});
    loadFile = vi.fn(async (_file: string) => {});
    show = vi.fn();
    focus = vi.fn();
    restore = vi.fn();
    isMinimized = vi.fn(() => this.minimized);
    on = vi.fn((event: string, handler: Handler) => {
      this.handlers.set(event, handler);
      return this;
    });
    once = vi.fn((event: string, handler: Handler) => {
      this.handlers.set(event, handler);
      return this;
    });
    webContents = {
      setWindowOpenHandler: vi.fn((handler: (details: { url: string }) => { action: string }) => {
        this.openHandler = handler;
      }),
    };

    constructor(options?: BrowserWindowConstructorOptions) {
      this.options = options;
      FakeWindow.instances.push(this);
    }
  }

  const app = {
    requestSingleInstanceLock: vi.fn(() => state.lockGranted),
    quit: vi.fn(),
    on: vi.fn((event: string, handler: Handler) => {
      state.appHandlers.set(event, handler);
      return app;
    }),
    whenReady: vi.fn(() => state.ready),
    get isPackaged() {
      return state.isPackaged;
    },
  };

  const shell = { openExternal: vi.fn(async (_url: string) => {}) };

  return { state, FakeWindow, app, shell };
});

vi.mock('electron', () => {
  const electron = { app: fake.app, BrowserWindow: fake.FakeWindow, shell: fake.shell };
  return { ...electron, default: electron };
});

const srcMain = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../src-main');
// electron-vite writes out/main/index.js and out/preload/index.cjs (see electron.vite.config.ts),
// so the main process looks for the preload next to its own folder.
const expectedPreload = resolve(srcMain, '../preload/index.cjs');
const expectedHtml = resolve(srcMain, '../renderer/index.html');

async function loadMain(): Promise<void> {
  await import('../../src-main/index.ts');
  // let app.whenReady().then(...) run
  await new Promise((done) => setImmediate(done));
}

function onlyWindow(): InstanceType<typeof fake.FakeWindow> {
  expect(fake.FakeWindow.instances).toHaveLength(1);
  const win = fake.FakeWindow.instances[0];
  if (!win) throw new Error('no window');
  return win;
}

function appHandler(event: string): Handler {
  const handler = fake.state.appHandlers.get(event);
  if (!handler) throw new Error(`no app.on('${event}') handler`);
  return handler;
}

const realPlatform = Object.getOwnPropertyDescriptor(process, 'platform');
function setPlatform(platform: NodeJS.Platform): void {
  Object.defineProperty(process, 'platform', { value: platform, configurable: true });
}

beforeEach(() => {
  vi.resetModules();
  vi.clearAllMocks();
  fake.state.lockGranted = true;
  fake.state.isPackaged = true;
  fake.state.ready = Promise.resolve();
  fake.state.appHandlers.clear();
  fake.FakeWindow.instances.length = 0;
  vi.stubEnv('ELECTRON_RENDERER_URL', undefined);
});

afterEach(() => {
  vi.unstubAllEnvs();
  if (realPlatform) Object.defineProperty(process, 'platform', realPlatform);
});

describe('single-instance lock', () => {
  it('asks for the lock once and carries on when it is granted', async () => {
    await loadMain();
    expect(fake.app.requestSingleInstanceLock).toHaveBeenCalledTimes(1);
    expect(fake.app.quit).not.toHaveBeenCalled();
    onlyWindow();
  });

  it('quits without opening a window when another instance holds the lock', async () => {
    fake.state.lockGranted = false;
    await loadMain();
    expect(fake.app.requestSingleInstanceLock).toHaveBeenCalledTimes(1);
    expect(fake.app.quit).toHaveBeenCalledTimes(1);
    expect(fake.FakeWindow.instances).toHaveLength(0);
    expect(fake.app.whenReady).not.toHaveBeenCalled();
  });

  it('brings the existing window back when a second instance starts', async () => {
    await loadMain();
    const win = onlyWindow();
    win.minimized = true;
    appHandler('second-instance')();
    expect(win.restore).toHaveBeenCalledTimes(1);
    expect(win.focus).toHaveBeenCalledTimes(1);
    expect(fake.FakeWindow.instances).toHaveLength(1);
  });
});

describe('main window', () => {
  it('is created only once the app is ready', async () => {
    let becomeReady = (): void => {};
    fake.state.ready = new Promise<void>((done) => {
      becomeReady = done;
    });
    await loadMain();
    expect(fake.app.whenReady).toHaveBeenCalledTimes(1);
    expect(fake.FakeWindow.instances).toHaveLength(0);
    becomeReady();
    await new Promise((done) => setImmediate(done));
    onlyWindow();
  });

  it('isolates the renderer: contextIsolation, sandbox, no Node integration, and the built preload', async () => {
    await loadMain();
    const prefs = onlyWindow().options?.webPreferences;
    expect(prefs?.contextIsolation).toBe(true);
    expect(prefs?.sandbox).toBe(true);
    expect(prefs?.nodeIntegration).toBe(false);
    expect(prefs?.preload).toBe(expectedPreload);
    // nothing that would undo the isolation
    expect(prefs?.nodeIntegrationInWorker).not.toBe(true);
    expect(prefs?.nodeIntegrationInSubFrames).not.toBe(true);
    expect(prefs?.webSecurity).not.toBe(false);
  });

  it('loads the built index.html when packaged, even if ELECTRON_RENDERER_URL is set', async () => {
    vi.stubEnv('ELECTRON_RENDERER_URL', 'http://localhost:5173/');
    await loadMain();
    const win = onlyWindow();
    expect(win.loadFile).toHaveBeenCalledWith(expectedHtml);
    expect(win.loadURL).not.toHaveBeenCalled();
  });

  it('loads the built index.html when unpackaged without a dev server', async () => {
    fake.state.isPackaged = false;
    await loadMain();
    const win = onlyWindow();
    expect(win.loadFile).toHaveBeenCalledWith(expectedHtml);
    expect(win.loadURL).not.toHaveBeenCalled();
  });

  it('loads the dev server URL when unpackaged and ELECTRON_RENDERER_URL is set', async () => {
    fake.state.isPackaged = false;
    vi.stubEnv('ELECTRON_RENDERER_URL', 'http://localhost:5173/');
    await loadMain();
    const win = onlyWindow();
    expect(win.loadURL).toHaveBeenCalledWith('http://localhost:5173/');
    expect(win.loadFile).not.toHaveBeenCalled();
  });

  it('denies new windows and sends only http(s) links to the system browser', async () => {
    await loadMain();
    const open = onlyWindow().openHandler;
    if (!open) throw new Error('setWindowOpenHandler was not called');
    expect(open({ url: 'https://example.com/' })).toEqual({ action: 'deny' });
    expect(fake.shell.openExternal).toHaveBeenCalledWith('https://example.com/');
    fake.shell.openExternal.mockClear();
    expect(open({ url: 'file:///etc/passwd' })).toEqual({ action: 'deny' });
    expect(fake.shell.openExternal).not.toHaveBeenCalled();
  });
});

describe('build layout', () => {
  it('agrees with electron.vite.config.ts and package.json "main"', async () => {
    const { default: config } = await import('../../electron.vite.config.ts');
    const root = resolve(srcMain, '..');
    // main: out/main/index.js, as package.json "main" says
    expect(config.main?.build?.outDir).toBe(resolve(root, 'out/main'));
    expect(config.main?.build?.rolldownOptions).toMatchObject({
      input: { index: resolve(srcMain, 'index.ts') },
      output: { entryFileNames: '[name].js' },
    });
    const pkg: unknown = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'));
    expect(pkg).toMatchObject({ main: relative(root, resolve(root, 'out/main/index.js')) });
    // preload: out/preload/index.cjs, CommonJS because the renderer is sandboxed
    expect(config.preload?.build?.outDir).toBe(resolve(root, 'out/preload'));
    expect(config.preload?.build?.rolldownOptions).toMatchObject({
      input: { index: resolve(srcMain, 'preload.ts') },
      output: { format: 'cjs', entryFileNames: '[name].cjs' },
    });
    expect(config.renderer?.build?.outDir).toBe(resolve(root, 'out/renderer'));
  });
});

describe('window-all-closed', () => {
  it.each(['linux', 'win32'] as const)('quits on %s', async (platform) => {
    setPlatform(platform);
    await loadMain();
    appHandler('window-all-closed')();
    expect(fake.app.quit).toHaveBeenCalledTimes(1);
  });

  it('keeps running on macOS and reopens a window on activate', async () => {
    setPlatform('darwin');
    await loadMain();
    const first = onlyWindow();
    appHandler('window-all-closed')();
    expect(fake.app.quit).not.toHaveBeenCalled();
    first.destroyed = true;
    appHandler('activate')();
    expect(fake.FakeWindow.instances).toHaveLength(2);
  });
});
