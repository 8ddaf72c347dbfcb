// Unit test of the Electron main process (src-main/index.ts) and its preload bridge with `electron`
// and `electron-store` mocked: there is no runnable Electron binary on the build machines. The
// server behind it is real: each test starts the app on a temporary data folder, talks to the
// server over HTTP as the console would, and quits it. The module does its work at import time, so
// every test resets the module registry and imports it afresh.
import Database from 'better-sqlite3';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BrowserWindowConstructorOptions, MenuItemConstructorOptions } from 'electron';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { HangarApi, ServerConnection } from '../../src-main/hangar-api.ts';
import { OPERATOR_TOKEN_NAME } from '../../src-main/operator-token.ts';
import { SETTINGS_VERSION } from '../../src-main/settings.ts';
import { QR_ROUTE } from '../../src-main/tray.ts';
import { DATABASE_FILE } from '../../src-server/server.ts';
import { multipartBody, syntheticIpa } from '../helpers/builds.ts';
import { ApiClient } from '../helpers/client.ts';

type Handler = (...args: unknown[]) => unknown;

const fake = vi.hoisted(() => {
  const state = {
    lockGranted: true,
    isPackaged: true,
    ready: Promise.resolve(),
    userData: '',
    /** what the mocked electron-store holds */
    stored: {} as Record<string, unknown>,
    /** start and stop steps, in the order they happened */
    timeline: [] as string[],
    appHandlers: new Map<string, Handler>(),
    ipcHandlers: new Map<string, Handler>(),
    rendererListeners: new Map<string, Handler[]>(),
    exposed: new Map<string, unknown>(),
    headersListener: null as Handler | null,
    /** file:// URL of the console page (set below, once the paths are known) */
    pageUrl: '',
  };

  /** Listeners by event, with an `emit` for the test to play the OS or the user. */
  class Emitter {
    readonly handlers = new Map<string, Handler[]>();
    on = vi.fn((event: string, handler: Handler) => {
      this.handlers.set(event, [...(this.handlers.get(event) ?? []), handler]);
      return this;
    });
    once = this.on;
    emit(event: string, ...args: unknown[]): void {
      for (const handler of this.handlers.get(event) ?? []) handler(...args);
    }
  }

  class FakeWindow extends Emitter {
    static instances: FakeWindow[] = [];
    static getAllWindows = (): FakeWindow[] => FakeWindow.instances.filter((w) => !w.destroyed);

    readonly options: BrowserWindowConstructorOptions | undefined;
    destroyed = false;
    minimized = false;
    openHandler: ((details: { url: string }) => { action: string }) | undefined;

    loadURL = vi.fn(async (url: string) => {
      this.shownUrl = url;
      state.timeline.push('window loads');
    });
    loadFile = vi.fn(async (file: string, options?: { hash?: string }) => {
      this.shownUrl = `file://${file}${options?.hash ? `#${options.hash}` : ''}`;
      state.timeline.push('window loads');
    });
    show = vi.fn();
    hide = vi.fn();
    focus = vi.fn();
    restore = vi.fn();
    isMinimized = vi.fn(() => this.minimized);
    /** what the window shows: the last URL or file it was told to load */
    shownUrl = '';
    webContents = {
      send: vi.fn(),
      getURL: vi.fn(() => this.shownUrl),
      setWindowOpenHandler: vi.fn((handler: (details: { url: string }) => { action: string }) => {
        this.openHandler = handler;
      }),
    };

    constructor(options?: BrowserWindowConstructorOptions) {
      super();
      this.options = options;
      FakeWindow.instances.push(this);
    }
  }

  class FakeTray extends Emitter {
    static instances: FakeTray[] = [];
    menu: MenuItemConstructorOptions[] = [];
    setToolTip = vi.fn();
    setContextMenu = vi.fn((menu: MenuItemConstructorOptions[]) => {
      this.menu = menu;
    });
    readonly image: unknown;
    constructor(image: unknown) {
      super();
      this.image = image;
      FakeTray.instances.push(this);
    }
  }

  class FakeNotification extends Emitter {
    static instances: FakeNotification[] = [];
    static isSupported = () => true;
    show = vi.fn();
    readonly options: { title: string; body: string };
    constructor(options: { title: string; body: string }) {
      super();
      this.options = options;
      FakeNotification.instances.push(this);
    }
  }

  const app = {
    requestSingleInstanceLock: vi.fn(() => state.lockGranted),
    quit: vi.fn(),
    exit: vi.fn((_code?: number) => {
      state.timeline.push('exit');
    }),
    on: vi.fn((event: string, handler: Handler) => {
      state.appHandlers.set(event, handler);
      return app;
    }),
    whenReady: vi.fn(() => state.ready),
    getPath: vi.fn((name: string) => {
      if (name !== 'userData') throw new Error(`unexpected getPath(${name})`);
      return state.userData;
    }),
    getVersion: () => '0.1.0',
    setLoginItemSettings: vi.fn(),
    setAppUserModelId: vi.fn(),
    get isPackaged() {
      return state.isPackaged;
    },
  };

  /** What Electron makes of an error thrown by an ipcMain.handle handler. */
  const remoteError = (channel: string, error: Error) => new Error(`Error invoking remote method '${channel}': ${error.name}: ${error.message}`);

  /** The console page calling the bridge: the app's window, on the app's page. */
  const trustedEvent = () => {
    const win = FakeWindow.getAllWindows().at(-1);
    return { sender: win?.webContents, senderFrame: { url: state.pageUrl + '#/settings' } };
  };

  const electron = {
    app,
    BrowserWindow: FakeWindow,
    Tray: FakeTray,
    Notification: FakeNotification,
    Menu: { buildFromTemplate: (template: MenuItemConstructorOptions[]) => template },
    nativeImage: { createFromPath: (path: string) => ({ path }) },
    clipboard: { writeText: vi.fn() },
    shell: { openExternal: vi.fn(async (_url: string) => {}), openPath: vi.fn(async (_path: string) => '') },
    dialog: {
      showOpenDialog: vi.fn(async (..._args: unknown[]) => ({ canceled: false, filePaths: ['/picked/folder'] })),
      showErrorBox: vi.fn(),
    },
    session: {
      defaultSession: {
        webRequest: {
          onHeadersReceived: (listener: Handler) => {
            state.headersListener = listener;
          },
        },
      },
    },
    ipcMain: {
      handle: vi.fn((channel: string, handler: Handler) => {
        state.ipcHandlers.set(channel, handler);
      }),
    },
    ipcRenderer: {
      async invoke(channel: string, ...args: unknown[]) {
        const handler = state.ipcHandlers.get(channel);
        if (!handler) throw new Error(`No handler registered for '${channel}'`);
        try {
          return await handler(trustedEvent(), ...args);
        } catch (error) {
          throw remoteError(channel, error as Error);
        }
      },
      on(channel: string, listener: Handler) {
        state.rendererListeners.set(channel, [...(state.rendererListeners.get(channel) ?? []), listener]);
      },
      removeListener(channel: string, listener: Handler) {
        state.rendererListeners.set(channel, (state.rendererListeners.get(channel) ?? []).filter((l) => l !== listener));
      },
    },
    contextBridge: {
      exposeInMainWorld: (name: string, api: unknown) => {
        state.exposed.set(name, api);
      },
    },
  };

  class FakeStore {
    get store() {
      return structuredClone(state.stored);
    }
    set store(value: Record<string, unknown>) {
      state.stored = structuredClone(value);
    }
  }

  return { state, electron, FakeWindow, FakeTray, FakeNotification, FakeStore };
});

vi.mock('electron', () => ({ ...fake.electron, default: fake.electron }));
vi.mock('electron-store', () => ({ default: fake.FakeStore }));
// The real server, with its start, stop and token revocations written into the timeline.
vi.mock('../../src-server/server.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src-server/server.ts')>();
  return {
    ...real,
    async startServer(...args: Parameters<typeof real.startServer>) {
      const server = await real.startServer(...args);
      fake.state.timeline.push('server listening');
      const { revoke } = server.domain.tokens;
      server.domain.tokens.revoke = (...revokeArgs) => {
        fake.state.timeline.push('token revoked');
        return revoke(...revokeArgs);
      };
      const close = server.close;
      server.close = async () => {
        fake.state.timeline.push('server closing');
        await close();
        fake.state.timeline.push('server closed');
      };
      return server;
    },
  };
});

const { app } = fake.electron;
const srcMain = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../src-main');
// electron-vite writes out/main/index.js and out/preload/index.cjs (see electron.vite.config.ts),
// so the main process looks for the preload next to its own folder.
const expectedPreload = resolve(srcMain, '../preload/index.cjs');
const expectedHtml = resolve(srcMain, '../renderer/index.html');
fake.state.pageUrl = pathToFileURL(expectedHtml).href;

let dataDir: string;
beforeAll(async () => {
  fake.state.userData = await mkdtemp(join(tmpdir(), 'hangar-desktop-'));
  dataDir = join(fake.state.userData, 'data');
});
afterAll(async () => {
  await rm(fake.state.userData, { recursive: true, force: true });
});

/** Settings for a test: a free port on the loopback interface, no HTTPS, no mDNS. */
function storeSettings(settings: Record<string, unknown> = {}): void {
  fake.state.stored = { version: SETTINGS_VERSION, port: 0, httpsPort: null, mdns: false, ...settings };
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const { port } = probe.address() as { port: number };
  await new Promise((done) => probe.close(done));
  return port;
}

function onlyWindow(): InstanceType<typeof fake.FakeWindow> {
  expect(fake.FakeWindow.instances).toHaveLength(1);
  return fake.FakeWindow.instances[0]!;
}

function appHandler(event: string): Handler {
  const handler = fake.state.appHandlers.get(event);
  if (!handler) throw new Error(`no app.on('${event}') handler`);
  return handler;
}

let processListeners: { uncaught: Function[]; rejections: Function[] };

/** Imports the main process and waits until it has opened its window (the server runs by then). */
async function loadMain(): Promise<void> {
  processListeners = { uncaught: process.listeners('uncaughtException'), rejections: process.listeners('unhandledRejection') };
  await import('../../src-main/index.ts');
  await vi.waitFor(() => expect(fake.FakeWindow.instances.length).toBeGreaterThan(0), { timeout: 20_000 });
}

/** The bridge as the console sees it: window.hangar from the real preload script. */
async function bridge(): Promise<HangarApi> {
  await import('../../src-main/preload.ts');
  return fake.state.exposed.get('hangar') as HangarApi;
}

async function quit(): Promise<void> {
  appHandler('before-quit')({ preventDefault: vi.fn() });
  await vi.waitFor(() => expect(app.exit).toHaveBeenCalled(), { timeout: 20_000 });
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/api/health`)).status === 200;
  } catch {
    return false;
  }
}

function menuItem(label: string): MenuItemConstructorOptions {
  const tray = fake.FakeTray.instances.at(-1);
  const item = tray?.menu.find((i) => i.label === label);
  if (!item) throw new Error(`no tray menu item "${label}" in ${JSON.stringify(tray?.menu.map((i) => i.label))}`);
  return item;
}
const clickMenu = (label: string) => (menuItem(label).click as () => void)();

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
  fake.state.ipcHandlers.clear();
  fake.state.rendererListeners.clear();
  fake.state.exposed.clear();
  fake.state.headersListener = null;
  fake.state.timeline.length = 0;
  fake.FakeWindow.instances.length = 0;
  fake.FakeTray.instances.length = 0;
  fake.FakeNotification.instances.length = 0;
  storeSettings();
  vi.stubEnv('ELECTRON_RENDERER_URL', undefined);
  vi.stubEnv('HANGAR_HOST', '127.0.0.1'); // tests reach the server on the loopback interface only
});

afterEach(async () => {
  // every app a test started is quit: its server closed
  if (fake.state.appHandlers.has('before-quit') && !app.exit.mock.calls.length) await quit();
  for (const listener of process.listeners('uncaughtException')) {
    if (!processListeners?.uncaught.includes(listener)) process.off('uncaughtException', listener as () => void);
  }
  for (const listener of process.listeners('unhandledRejection')) {
    if (!processListeners?.rejections.includes(listener)) process.off('unhandledRejection', listener as () => void);
  }
  vi.unstubAllEnvs();
  if (realPlatform) Object.defineProperty(process, 'platform', realPlatform);
});

describe('single-instance lock', () => {
  it('asks for the lock once and carries on when it is granted', async () => {
    await loadMain();
    expect(app.requestSingleInstanceLock).toHaveBeenCalledTimes(1);
    expect(app.quit).not.toHaveBeenCalled();
    onlyWindow();
  });

  it('quits without starting anything when another instance holds the lock', async () => {
    fake.state.lockGranted = false;
    await import('../../src-main/index.ts');
    await new Promise((done) => setImmediate(done));
    expect(app.requestSingleInstanceLock).toHaveBeenCalledTimes(1);
    expect(app.quit).toHaveBeenCalledTimes(1);
    expect(fake.FakeWindow.instances).toHaveLength(0);
    expect(app.whenReady).not.toHaveBeenCalled();
    expect(fake.state.timeline).toEqual([]);
  });

  it('brings the existing window back when a second instance starts, and ignores its command line', async () => {
    await loadMain();
    const win = onlyWindow();
    win.minimized = true;
    appHandler('second-instance')({}, ['hangar', '--inspect=9229', '--remote-debugging-port=9222', 'file:///etc/passwd'], '/tmp/elsewhere', { route: '#/users' });
    expect(win.restore).toHaveBeenCalledTimes(1);
    expect(win.show).toHaveBeenCalledTimes(1);
    expect(win.focus).toHaveBeenCalledTimes(1);
    expect(fake.FakeWindow.instances).toHaveLength(1);
    expect(win.loadURL.mock.calls.length + win.loadFile.mock.calls.length).toBe(1); // the first load only
    expect(win.webContents.send).not.toHaveBeenCalled();
    expect(fake.electron.shell.openExternal).not.toHaveBeenCalled();
  });

  it('reopens the window when a second instance starts after it was closed', async () => {
    setPlatform('darwin'); // where closing the last window does not quit
    await loadMain();
    storeSettings({ minimizeToTray: false });
    onlyWindow().destroyed = true;
    onlyWindow().emit('closed');
    appHandler('second-instance')({}, ['hangar'], '/', {});
    expect(fake.FakeWindow.instances).toHaveLength(2);
  });
});

describe('start and stop', () => {
  it('starts the server before the window loads, and on quit revokes the token, closes the server, then exits', async () => {
    await loadMain();
    expect(fake.state.timeline).toEqual(['server listening', 'window loads']);
    const { url, token, state } = await (await bridge()).server();
    expect(state).toBe('running');
    const me = await new ApiClient(url, token).get('/api/users/me');
    expect(me.status, me.text).toBe(200);
    expect(me.body).toMatchObject({ username: 'admin', role: 'admin' });

    // Quitting again while stopping (a second Quit click) neither stops twice nor exits early.
    const first = { preventDefault: vi.fn() };
    const second = { preventDefault: vi.fn() };
    appHandler('before-quit')(first);
    appHandler('before-quit')(second);
    expect(first.preventDefault).toHaveBeenCalled();
    expect(second.preventDefault).toHaveBeenCalled();
    await vi.waitFor(() => expect(app.exit).toHaveBeenCalledWith(0), { timeout: 20_000 });
    expect(fake.state.timeline).toEqual(['server listening', 'window loads', 'token revoked', 'server closing', 'server closed', 'exit']);
    expect(await answers(url)).toBe(false);

    const sql = new Database(join(dataDir, DATABASE_FILE), { readonly: true });
    try {
      expect(sql.prepare('SELECT count(*) AS n FROM api_tokens WHERE name = ?').get(OPERATOR_TOKEN_NAME)).toEqual({ n: 0 });
    } finally {
      sql.close();
    }
    // The token reached no log line.
    for (const file of ['desktop.log', 'hangar.log']) {
      const log = await readFile(join(dataDir, 'logs', file), 'utf8');
      expect(log.length).toBeGreaterThan(0);
      expect(log).not.toContain(token);
    }
  });

  it('opens the window with the reason when the server cannot start, and logs it', async () => {
    const taken = createServer();
    await new Promise<void>((done) => taken.listen(0, '127.0.0.1', done));
    storeSettings({ port: (taken.address() as { port: number }).port });
    try {
      await loadMain();
      // no server to load the console from: the bundled page, which says why and offers Settings
      expect(onlyWindow().loadFile).toHaveBeenCalledWith(expectedHtml);
      const connection = await (await bridge()).server();
      expect(connection).toMatchObject({ state: 'paused', url: '', token: '' });
      expect(connection.error).toMatch(/EADDRINUSE/);
      expect(menuItem('Server paused').enabled).toBe(false);
      const log = await readFile(join(dataDir, 'logs', 'desktop.log'), 'utf8');
      expect(log).toContain('server did not start');
    } finally {
      taken.close();
    }
  });

  it('migrates the settings of an older build before starting the server with them', async () => {
    const port = await freePort();
    fake.state.stored = { port: String(port), dataDir, mdns: false, httpsPort: null };
    await loadMain();
    expect(fake.state.stored).toMatchObject({ version: SETTINGS_VERSION, port, httpsPort: null, minimizeToTray: true });
    const { url } = await (await bridge()).server();
    expect(url).toBe(`http://127.0.0.1:${port}`);
    expect(await answers(url)).toBe(true);
    const log = await readFile(join(dataDir, 'logs', 'desktop.log'), 'utf8');
    expect(log).toMatch(/"from":1.*"msg":"settings migrated"/);
  });

  it('logs an uncaught exception of the main process to the data folder, then quits cleanly', async () => {
    await loadMain();
    const added = process.listeners('uncaughtException').filter((l) => !processListeners.uncaught.includes(l));
    expect(added).toHaveLength(1);
    added[0]!(new Error('the tray exploded'), 'uncaughtException');
    expect(app.quit).toHaveBeenCalledTimes(1);
    const lines = (await readFile(join(dataDir, 'logs', 'desktop.log'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.at(-1)).toMatchObject({ msg: 'uncaught exception', err: { message: 'the tray exploded' } });
  });

  it('registers the app to start at login as the settings say', async () => {
    storeSettings({ startAtLogin: true });
    await loadMain();
    expect(app.setLoginItemSettings).toHaveBeenCalledWith({ openAtLogin: true });
  });
});

describe('main window', () => {
  it('is created only once the app is ready', async () => {
    let becomeReady = (): void => {};
    fake.state.ready = new Promise<void>((done) => {
      becomeReady = done;
    });
    await import('../../src-main/index.ts');
    await new Promise((done) => setTimeout(done, 50));
    expect(app.whenReady).toHaveBeenCalledTimes(1);
    expect(fake.FakeWindow.instances).toHaveLength(0);
    becomeReady();
    await vi.waitFor(() => onlyWindow(), { timeout: 20_000 });
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

  // The console comes from the server (/console/: the API's own origin, so no CORS); the bundled
  // page only while the server is not running.
  it('loads the console from the server it runs when packaged, even if ELECTRON_RENDERER_URL is set', async () => {
    vi.stubEnv('ELECTRON_RENDERER_URL', 'http://localhost:5173/');
    await loadMain();
    const win = onlyWindow();
    expect(win.loadURL).toHaveBeenCalledWith(`${(await (await bridge()).server()).url}/console/`);
    expect(win.loadFile).not.toHaveBeenCalled();
  });

  it('loads the console from the server when unpackaged without a dev server', async () => {
    fake.state.isPackaged = false;
    await loadMain();
    const win = onlyWindow();
    expect(win.loadURL).toHaveBeenCalledWith(`${(await (await bridge()).server()).url}/console/`);
    expect(win.loadFile).not.toHaveBeenCalled();
    expect(app.setLoginItemSettings).not.toHaveBeenCalled(); // an unpackaged app never registers itself
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
    expect(fake.electron.shell.openExternal).toHaveBeenCalledWith('https://example.com/');
    fake.electron.shell.openExternal.mockClear();
    expect(open({ url: 'file:///etc/passwd' })).toEqual({ action: 'deny' });
    expect(fake.electron.shell.openExternal).not.toHaveBeenCalled();
  });

  it('hides instead of closing when minimising to the tray, and closes when not', async () => {
    await loadMain();
    const win = onlyWindow();
    const hidden = { preventDefault: vi.fn() };
    win.emit('close', hidden);
    expect(hidden.preventDefault).toHaveBeenCalled();
    expect(win.hide).toHaveBeenCalledTimes(1);

    await (await bridge()).settings.set({ minimizeToTray: false });
    const closed = { preventDefault: vi.fn() };
    win.emit('close', closed);
    expect(closed.preventDefault).not.toHaveBeenCalled();
  });

  it('gives the console page a CSP that lets it reach its server only', async () => {
    await loadMain();
    const { url } = await (await bridge()).server();
    const listener = fake.state.headersListener;
    if (!listener) throw new Error('no onHeadersReceived listener');
    const callback = vi.fn();
    listener({ url: `${fake.state.pageUrl}#/`, responseHeaders: { 'X-Other': ['1'] } }, callback);
    const headers = callback.mock.calls[0]![0].responseHeaders;
    expect(headers['X-Other']).toEqual(['1']);
    expect(headers['Content-Security-Policy'][0]).toContain(`connect-src ${url};`);
    callback.mockClear();
    listener({ url: `${url}/api/apps`, responseHeaders: {} }, callback);
    expect(callback).toHaveBeenCalledWith({}); // not the console page: left alone
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
    const pkg: unknown = JSON.parse(await readFile(resolve(root, 'package.json'), 'utf8'));
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
    expect(app.quit).toHaveBeenCalledTimes(1);
  });

  it('keeps running on macOS and reopens a window on activate', async () => {
    setPlatform('darwin');
    await loadMain();
    const first = onlyWindow();
    appHandler('window-all-closed')();
    expect(app.quit).not.toHaveBeenCalled();
    first.destroyed = true;
    first.emit('closed');
    appHandler('activate')();
    expect(fake.FakeWindow.instances).toHaveLength(2);
  });
});

/** Uploads a synthetic build with the operator token; answers the release. */
async function uploadBuild(connection: ServerConnection, fields: Record<string, string> = {}): Promise<{ id: number; app_name: string }> {
  const { body, contentType } = multipartBody(fields, { name: 'Notify.ipa', data: syntheticIpa({ name: 'Notify', releaseVersion: '2.1', buildVersion: '210' }) });
  const res = await new ApiClient(connection.url, connection.token).request('POST', '/api/apps/upload', { raw: { body, contentType } });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

describe('notification on a new build', () => {
  it('shows app name and version, and opens the release when clicked', async () => {
    await loadMain();
    const connection = await (await bridge()).server();
    const release = await uploadBuild(connection);
    await vi.waitFor(() => expect(fake.FakeNotification.instances).toHaveLength(1));
    const notification = fake.FakeNotification.instances[0]!;
    expect(notification.options.title).toBe('Notify 2.1 (210)');
    expect(notification.options.body).toMatch(/^New build in \S+ · iOS$/);
    expect(notification.show).toHaveBeenCalledTimes(1);

    const win = onlyWindow();
    notification.emit('click');
    expect(win.show).toHaveBeenCalled();
    expect(win.focus).toHaveBeenCalled();
    expect(win.webContents.send).toHaveBeenCalledWith('hangar:navigate', `#/releases/${release.id}`);
  });

  it('opens a new window on the release when the console was closed', async () => {
    setPlatform('darwin');
    await loadMain();
    const release = await uploadBuild(await (await bridge()).server());
    await vi.waitFor(() => expect(fake.FakeNotification.instances).toHaveLength(1));
    onlyWindow().destroyed = true;
    onlyWindow().emit('closed');
    fake.FakeNotification.instances[0]!.emit('click');
    expect(fake.FakeWindow.instances).toHaveLength(2);
    expect(fake.FakeWindow.instances[1]!.loadURL).toHaveBeenCalledWith(`${(await (await bridge()).server()).url}/console/#/releases/${release.id}`);
  });

  it('stays quiet for a scheme whose new_build_callout is off', async () => {
    await loadMain();
    const connection = await (await bridge()).server();
    const api = new ApiClient(connection.url, connection.token);
    const created = await api.post('/api/apps', { name: 'Quiet' }, { shape: 'extended' });
    expect(created.status, created.text).toBe(201);
    const scheme = await api.post(`/api/apps/${created.body.id}/schemes`, { name: 'Nightly', new_build_callout: false });
    expect(scheme.status, scheme.text).toBe(201);
    const channel = await api.post(`/api/schemes/${scheme.body.id}/channels`, { name: 'Main', device_type: 'ios' }, { shape: 'extended' });
    expect(channel.status, channel.text).toBe(201);
    const key = await api.get(`/api/channels/${channel.body.id}/key`);
    await uploadBuild(connection, { channel_key: key.body.key });
    // build.available is emitted before the upload is answered: none came
    expect(fake.FakeNotification.instances).toHaveLength(0);
  });
});

describe('tray', () => {
  it('pauses and resumes the server on the same port, and the menu follows', async () => {
    const port = await freePort();
    storeSettings({ port });
    await loadMain();
    const hangar = await bridge();
    const running = await hangar.server();
    expect(running.url).toBe(`http://127.0.0.1:${port}`);
    expect(menuItem(`Serving on ${running.lanUrl}`).enabled).toBe(false);

    clickMenu('Pause Server');
    await vi.waitFor(async () => expect(await answers(running.url)).toBe(false));
    await vi.waitFor(() => menuItem('Resume Server'));
    expect(await hangar.server()).toMatchObject({ state: 'paused', url: '', token: '' });
    expect(fake.state.timeline.slice(-4)).toEqual(['token revoked', 'server closing', 'server closed', 'window loads']);
    expect(onlyWindow().loadFile).toHaveBeenLastCalledWith(expectedHtml); // the window follows: the bundled page says it is paused

    clickMenu('Resume Server');
    await vi.waitFor(() => menuItem('Pause Server'), { timeout: 20_000 });
    const resumed = await hangar.server();
    expect(resumed).toMatchObject({ state: 'running', url: running.url });
    expect(await answers(resumed.url)).toBe(true);
    // a new run, a new operator token; the old one is gone
    expect(resumed.token).not.toBe(running.token);
    expect((await new ApiClient(resumed.url, running.token).get('/api/users/me')).status).toBe(401);
    expect((await new ApiClient(resumed.url, resumed.token).get('/api/users/me')).status).toBe(200);
  });

  it('copies the LAN URL, shows the QR code in the console, and quits', async () => {
    await loadMain();
    const { lanUrl } = await (await bridge()).server();
    clickMenu('Copy LAN URL');
    expect(fake.electron.clipboard.writeText).toHaveBeenCalledWith(lanUrl);
    clickMenu('Show QR Code');
    expect(onlyWindow().webContents.send).toHaveBeenCalledWith('hangar:navigate', QR_ROUTE);
    clickMenu('Open Hangar');
    expect(onlyWindow().focus).toHaveBeenCalledTimes(2);
    clickMenu('Quit Hangar');
    expect(app.quit).toHaveBeenCalledTimes(1);
  });
});

describe('bridge (window.hangar)', () => {
  it('answers the console: server, settings, restart', async () => {
    await loadMain();
    const hangar = await bridge();
    expect(hangar.platform).toBe(process.platform);
    const before = await hangar.server();
    expect(await hangar.settings.get()).toMatchObject({ port: 0, httpsPort: null, mdns: false, dataDir, minimizeToTray: true });

    expect(await hangar.settings.set({ minimizeToTray: false })).toMatchObject({ saved: { minimizeToTray: false }, restartNeeded: false });
    expect(await hangar.settings.set({ baseUrl: 'http://hangar.lab.test:7700' })).toMatchObject({ saved: { baseUrl: 'http://hangar.lab.test:7700' }, restartNeeded: true });
    expect(fake.state.stored).toMatchObject({ baseUrl: 'http://hangar.lab.test:7700', minimizeToTray: false });
    expect((await hangar.server()).lanUrl).toBe(before.lanUrl); // not before the restart
    await hangar.settings.set({ startAtLogin: true });
    expect(app.setLoginItemSettings).toHaveBeenLastCalledWith({ openAtLogin: true });

    const after = await hangar.restartServer();
    expect(after.state).toBe('running');
    expect((await new ApiClient(after.url, before.token).get('/api/users/me')).status).toBe(401);
    expect((await new ApiClient(after.url, after.token).get('/api/users/me')).status).toBe(200);
    expect(after.lanUrl).toBe('http://hangar.lab.test:7700');
    expect(await hangar.settings.set({ minimizeToTray: true })).toMatchObject({ restartNeeded: false });
  });

  it('refuses bad arguments with the reason only, and changes nothing', async () => {
    await loadMain();
    const hangar = await bridge();
    const saved = structuredClone(fake.state.stored);
    await expect(hangar.settings.set({ port: 'eighty' } as never)).rejects.toThrow(/^invalid value for setting "port"/);
    await expect(hangar.settings.set({ port: 8000, httpsPort: 8000 })).rejects.toThrow(/^the HTTPS port must differ/);
    await expect(hangar.settings.set({ nodeIntegration: true } as never)).rejects.toThrow(/unknown setting/);
    expect(fake.state.stored).toEqual(saved);

    await expect(hangar.openFolder('../../etc' as never)).rejects.toThrow(/"data" or "logs"/);
    await hangar.openFolder('logs');
    expect(fake.electron.shell.openPath).toHaveBeenCalledWith(join(dataDir, 'logs'));
    fake.electron.shell.openPath.mockResolvedValueOnce('Failed to open path');
    await expect(hangar.openFolder('data')).rejects.toThrow('Failed to open path');

    await expect(hangar.pickFolder(42 as never)).rejects.toThrow(/title/);
    await expect(hangar.pickFolder('x'.repeat(201))).rejects.toThrow(/title/);
    expect(fake.electron.dialog.showOpenDialog).not.toHaveBeenCalled();
    expect(await hangar.pickFolder('Choose the data folder')).toBe('/picked/folder');
    expect(fake.electron.dialog.showOpenDialog).toHaveBeenCalledWith(onlyWindow(), { title: 'Choose the data folder', properties: ['openDirectory', 'createDirectory'] });
  });

  it('refuses calls from anything but the console page of the app window, and extra arguments', async () => {
    await loadMain();
    const handler = fake.state.ipcHandlers.get('hangar:server')!;
    const win = onlyWindow();
    expect(() => handler({ sender: {}, senderFrame: { url: fake.state.pageUrl } })).toThrow(/refused/);
    expect(() => handler({ sender: win.webContents, senderFrame: { url: 'https://evil.example/' } })).toThrow(/refused/);
    expect(() => handler({ sender: win.webContents, senderFrame: null })).toThrow(/refused/);
    await expect(handler({ sender: win.webContents, senderFrame: { url: fake.state.pageUrl } }, 'extra')).rejects.toThrow(/expected 0 argument/);
    await expect(handler({ sender: win.webContents, senderFrame: { url: `${fake.state.pageUrl}#/settings` } })).resolves.toMatchObject({ state: 'running' });
  });

  it('passes navigation requests to the console, and only hash routes', async () => {
    await loadMain();
    const hangar = await bridge();
    const routes: string[] = [];
    const stop = hangar.onNavigate((route) => routes.push(route));
    const send = (payload: unknown) => {
      for (const listener of fake.state.rendererListeners.get('hangar:navigate') ?? []) listener({}, payload);
    };
    send('#/releases/3');
    send('javascript:alert(1)');
    send({ route: '#/users' });
    stop();
    send('#/releases/4');
    expect(routes).toEqual(['#/releases/3']);
  });
});
