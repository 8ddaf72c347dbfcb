// The plain modules behind the Electron main process (src-main/), tested without Electron: settings
// and their migration, the mapping to the server's config, the operator token against a real data
// directory, the tray menu, the CSP, and the desktop log.
import { EventEmitter } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_HTTPS_PORT } from '../../src-server/config/config.ts';
import { UnauthorizedError } from '../../src-server/domain/errors.ts';
import { openHangar, type Hangar } from '../../src-server/server.ts';
import { contentSecurityPolicy } from '../../src-main/csp.ts';
import type { DesktopSettings } from '../../src-main/hangar-api.ts';
import { desktopLogFile, logCrashes, openDesktopLog } from '../../src-main/logging.ts';
import { mintOperatorToken, OPERATOR_TOKEN_NAME, OPERATOR_TOKEN_TTL_MS } from '../../src-main/operator-token.ts';
import { defaultSettings, migrateSettings, openSettings, serverConfig, SETTINGS_VERSION } from '../../src-main/settings.ts';
import { checkSettings, needsRestart } from '../../src-main/settings-rules.ts';
import { QR_ROUTE, trayMenu, type TrayActions } from '../../src-main/tray.ts';

const USER_DATA = '/home/tester/.config/Hangar';
const defaults = defaultSettings(USER_DATA);

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'hangar-desktop-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('settings defaults', () => {
  it('keep the data in the user-data folder and serve HTTP and HTTPS on the CLI ports', () => {
    expect(defaults).toEqual({
      port: 7700,
      httpsPort: DEFAULT_HTTPS_PORT,
      dataDir: join(USER_DATA, 'data'),
      baseUrl: null,
      apiShape: 'extended',
      networkInterface: null,
      mdns: true,
      startAtLogin: false,
      minimizeToTray: true,
    });
    expect(checkSettings(defaults)).toEqual({});
  });
});

describe('settings migration', () => {
  it('takes an unversioned store (port as text, no HTTPS port) to the current layout', () => {
    const old = { port: '8080', dataDir: '/srv/hangar', mdns: false };
    const { settings, from, reset } = migrateSettings(old, defaults);
    expect(from).toBe(1);
    expect(reset).toEqual([]);
    expect(settings).toEqual({ ...defaults, port: 8080, httpsPort: DEFAULT_HTTPS_PORT, dataDir: '/srv/hangar', mdns: false });
  });

  it('gives a version-1 store on a free port a free HTTPS port too, as resolveConfig does', () => {
    expect(migrateSettings({ version: 1, port: '0' }, defaults).settings).toMatchObject({ port: 0, httpsPort: 0 });
  });

  it('keeps a version-1 HTTPS port that was already there', () => {
    expect(migrateSettings({ version: 1, port: 9000, httpsPort: null }, defaults).settings).toMatchObject({ port: 9000, httpsPort: null });
  });

  it('resets unusable values to their defaults and says which', () => {
    const { settings, reset } = migrateSettings({ version: SETTINGS_VERSION, port: 'eighty', apiShape: 'v3', dataDir: 'relative/path', startAtLogin: true }, defaults);
    expect(reset.sort()).toEqual(['apiShape', 'dataDir', 'port']);
    expect(settings).toEqual({ ...defaults, startAtLogin: true });
  });

  it('starts an empty store from the defaults without calling it a migration', () => {
    expect(migrateSettings({}, defaults)).toEqual({ settings: defaults, from: 0, reset: [] });
  });

  it('rewrites the store in the current layout when opened, and reports the migration', () => {
    const store = { store: { port: '8080' } as Record<string, unknown> };
    const settings = openSettings(store, USER_DATA);
    expect(settings.migrated).toMatchObject({ from: 1 });
    expect(store.store).toEqual({ version: SETTINGS_VERSION, ...defaults, port: 8080 });
    // opened again: nothing left to migrate
    expect(openSettings(store, USER_DATA).migrated).toBeNull();
  });
});

describe('settings changes (from the renderer: untrusted)', () => {
  const open = () => {
    const store = { store: { version: SETTINGS_VERSION, ...defaults } as Record<string, unknown> };
    return { store, settings: openSettings(store, USER_DATA) };
  };

  it('saves a valid change', () => {
    const { store, settings } = open();
    expect(settings.update({ port: 8000, baseUrl: 'https://hangar.lab.example/' })).toMatchObject({ port: 8000, baseUrl: 'https://hangar.lab.example/' });
    expect(store.store).toMatchObject({ version: SETTINGS_VERSION, port: 8000 });
    expect(settings.get().port).toBe(8000);
  });

  it.each([
    ['a non-object', 'port=1', /must be an object/],
    ['an array', [1], /must be an object/],
    ['an unknown field', { port: 8000, admin: true }, /unknown setting "admin"/],
    ['a prototype key', JSON.parse('{"__proto__": {"port": 1}}'), /unknown setting "__proto__"/],
    ['a port out of range', { port: 70000 }, /"port"/],
    ['a port as text', { port: '8000' }, /"port"/],
    ['a relative data folder', { dataDir: 'data' }, /"dataDir"/],
    ['a wrong type', { mdns: 'yes' }, /"mdns"/],
    ['an unknown API shape', { apiShape: 'zealot' }, /"apiShape"/],
    // the server's own rules (resolveConfig), not repeated in the desktop app
    ['the same port twice', { port: 8000, httpsPort: 8000 }, /HTTPS port must differ/],
    ['a base URL with a query', { baseUrl: 'http://lab.example/?a=1' }, /base URL must not carry/],
    ['a base URL that is no URL', { baseUrl: 'lab server' }, /base URL must be an absolute/],
  ])('refuses %s and keeps what was saved', (_name, change, message) => {
    const { store, settings } = open();
    expect(() => settings.update(change)).toThrow(message);
    expect(settings.get()).toEqual(defaults);
    expect(store.store).toEqual({ version: SETTINGS_VERSION, ...defaults });
  });

  it('needs a restart for what the server reads at start only', () => {
    expect(needsRestart(defaults, { ...defaults, port: 8000 })).toBe(true);
    expect(needsRestart(defaults, { ...defaults, mdns: false })).toBe(true);
    expect(needsRestart(defaults, { ...defaults, minimizeToTray: false, startAtLogin: true })).toBe(false);
  });
});

describe('server config from the settings (resolveConfig)', () => {
  const settings: DesktopSettings = { ...defaults, port: 8000, httpsPort: null, dataDir: '/srv/hangar', baseUrl: 'http://hangar.lab/', mdns: false, networkInterface: 'en0', apiShape: 'base' };

  it('maps every field', () => {
    expect(serverConfig(settings, {})).toMatchObject({
      host: '0.0.0.0',
      port: 8000,
      httpsPort: null,
      dataDir: '/srv/hangar',
      baseUrl: 'http://hangar.lab',
      mdns: false,
      networkInterface: 'en0',
      apiShape: 'base',
      logToStdout: false,
    });
    expect(serverConfig(defaults, {})).toMatchObject({ httpsPort: DEFAULT_HTTPS_PORT, mdns: true, baseUrl: null, networkInterface: null });
  });

  it('lets the settings win over the environment, and keeps what they do not cover', () => {
    const env = { HANGAR_PORT: '1234', HANGAR_DATA_DIR: '/tmp/elsewhere', HANGAR_MDNS: '1', HANGAR_BASE_URL: 'http://other', HANGAR_LOG_LEVEL: 'debug', HANGAR_LOG_STDOUT: '1' };
    expect(serverConfig(settings, env)).toMatchObject({ port: 8000, dataDir: '/srv/hangar', mdns: false, baseUrl: 'http://hangar.lab', logLevel: 'debug', logToStdout: true });
    expect(serverConfig({ ...settings, baseUrl: null }, env).baseUrl).toBeNull();
  });
});

describe('operator token', () => {
  let hangar: Hangar;
  let now = Date.UTC(2026, 10, 21, 8, 0, 0);
  beforeAll(async () => {
    hangar = await openHangar({ dataDir: join(scratch, 'token-data'), initialAdminToken: null }, { now: () => now });
  });
  afterAll(() => hangar.close());

  const operatorRows = (userId: number) => hangar.domain.tokens.list(userId).filter((t) => t.name === OPERATOR_TOKEN_NAME);
  const works = (value: string) => {
    try {
      return hangar.domain.tokens.authenticate(value).user.username === 'admin';
    } catch {
      return false;
    }
  };

  it('belongs to the first admin, expires in a day, and is renewed with the same value when half of that is left', () => {
    const token = mintOperatorToken(hangar.domain);
    const value = token.current();
    expect(hangar.domain.tokens.authenticate(value).user).toMatchObject({ username: 'admin', role: 'admin' });
    const mintedAt = now;
    expect(operatorRows(token.userId).map((t) => t.expiresAt)).toEqual([mintedAt + OPERATOR_TOKEN_TTL_MS]);

    now += 11 * 3600 * 1000;
    expect(token.current()).toBe(value);
    expect(operatorRows(token.userId).map((t) => t.expiresAt)).toEqual([mintedAt + OPERATOR_TOKEN_TTL_MS]); // not due yet

    now += 2 * 3600 * 1000; // 13 h after minting: 11 h left
    expect(token.current()).toBe(value);
    expect(operatorRows(token.userId).map((t) => t.expiresAt)).toEqual([now + OPERATOR_TOKEN_TTL_MS]);
    expect(works(value)).toBe(true);

    token.revoke();
    expect(() => hangar.domain.tokens.authenticate(value)).toThrow(UnauthorizedError);
    expect(operatorRows(token.userId)).toEqual([]);
    token.revoke(); // twice is harmless
  });

  it('stops working on its own a day after the app last renewed it (a crash)', () => {
    const token = mintOperatorToken(hangar.domain);
    const value = token.current();
    now += OPERATOR_TOKEN_TTL_MS;
    expect(() => hangar.domain.tokens.authenticate(value)).toThrow(/expired/i);
    token.revoke();
  });

  it('revokes what a crashed run left behind when the next one mints its own', () => {
    const crashed = mintOperatorToken(hangar.domain).current();
    const next = mintOperatorToken(hangar.domain);
    expect(works(crashed)).toBe(false);
    expect(works(next.current())).toBe(true);
    expect(operatorRows(next.userId)).toHaveLength(1);
    next.revoke();
  });

  it('stays revoked when someone revokes it from the token list: the console gets a new value', () => {
    const token = mintOperatorToken(hangar.domain);
    const first = token.current();
    hangar.domain.tokens.revoke(token.userId, operatorRows(token.userId)[0]!.id);
    const second = token.current();
    expect(second).not.toBe(first);
    expect(works(first)).toBe(false);
    expect(works(second)).toBe(true);
    token.revoke();
    expect(works(second)).toBe(false);
  });
});

describe('tray menu', () => {
  const actions = (): TrayActions => ({ openConsole: vi.fn(), copyLanUrl: vi.fn(), showQr: vi.fn(), pause: vi.fn(), resume: vi.fn(), quit: vi.fn() });
  const item = (menu: ReturnType<typeof trayMenu>, label: string) => {
    const found = menu.find((i) => i.label === label);
    if (!found) throw new Error(`no "${label}" in ${JSON.stringify(menu.map((i) => i.label))}`);
    return found;
  };
  const click = (menu: ReturnType<typeof trayMenu>, label: string) => (item(menu, label).click as () => void)();

  it('offers the console, the LAN URL, its QR code, pause and quit while serving', () => {
    const a = actions();
    const menu = trayMenu('http://192.168.1.20:7700', a);
    expect(item(menu, 'Serving on http://192.168.1.20:7700').enabled).toBe(false);
    for (const [label, action] of [['Open Hangar', a.openConsole], ['Copy LAN URL', a.copyLanUrl], ['Show QR Code', a.showQr], ['Pause Server', a.pause], ['Quit Hangar', a.quit]] as const) {
      click(menu, label);
      expect(action).toHaveBeenCalledTimes(1);
    }
    expect(menu.some((i) => i.label === 'Resume Server')).toBe(false);
  });

  it('offers resume, and no LAN URL, while paused', () => {
    const a = actions();
    const menu = trayMenu(null, a);
    expect(item(menu, 'Server paused').enabled).toBe(false);
    expect(item(menu, 'Copy LAN URL').enabled).toBe(false);
    expect(item(menu, 'Show QR Code').enabled).toBe(false);
    click(menu, 'Resume Server');
    expect(a.resume).toHaveBeenCalledTimes(1);
    expect(menu.some((i) => i.label === 'Pause Server')).toBe(false);
  });

  it('shows the QR code on a console route', () => {
    expect(QR_ROUTE).toMatch(/^#\//);
  });
});

describe('content security policy', () => {
  const directives = (policy: string) => new Map(policy.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]));

  it('lets the console reach the server it runs and nothing else', () => {
    const policy = directives(contentSecurityPolicy('http://127.0.0.1:7700'));
    expect(policy.get('default-src')).toEqual(["'none'"]);
    expect(policy.get('connect-src')).toEqual(['http://127.0.0.1:7700']);
    expect(policy.get('img-src')).toEqual(["'self'", 'data:', 'blob:', 'http://127.0.0.1:7700']);
    expect(policy.get('script-src')).toEqual(["'self'"]);
    expect(policy.get('object-src')).toEqual(["'none'"]);
  });

  it('allows no connection at all while the server is paused', () => {
    expect(directives(contentSecurityPolicy(null)).get('connect-src')).toEqual(["'none'"]);
  });
});

describe('desktop log', () => {
  it('writes JSON lines to <data>/logs/desktop.log, follows the data folder, and redacts tokens', async () => {
    const first = join(scratch, 'log-a');
    const log = openDesktopLog(first);
    expect(log.file).toBe(desktopLogFile(first));
    log.info('server started', { url: 'http://127.0.0.1:7700', token: 'hgr_secret-value' });
    log.moveTo(join(scratch, 'log-b'));
    log.warn('after the move');
    const a = (await readFile(desktopLogFile(first), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    expect(a).toHaveLength(1);
    expect(a[0]).toMatchObject({ msg: 'server started', url: 'http://127.0.0.1:7700', token: '[REDACTED]', process: 'desktop' });
    expect(await readFile(desktopLogFile(join(scratch, 'log-b')), 'utf8')).toContain('after the move');
  });

  it('logs uncaught exceptions (then lets the app decide) and unhandled rejections', async () => {
    const dir = join(scratch, 'log-crash');
    const target = new EventEmitter();
    const onFatal = vi.fn();
    logCrashes(openDesktopLog(dir), onFatal, target);
    const boom = new Error('boom');
    target.emit('uncaughtException', boom);
    target.emit('unhandledRejection', new Error('nobody caught me'));
    expect(onFatal).toHaveBeenCalledWith(boom);
    const lines = (await readFile(desktopLogFile(dir), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toMatchObject([
      { level: 50, msg: 'uncaught exception', err: { message: 'boom' } },
      { level: 50, msg: 'unhandled rejection', err: { message: 'nobody caught me' } },
    ]);
    expect(lines[0].err.stack).toContain('main-process-modules.test.ts');
  });
});
