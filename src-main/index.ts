// Electron main process: wiring only. There is no runnable Electron on the build machines, so every
// decision lives in plain modules tested under Node (settings, server-host, operator-token,
// notifications, bridge, tray, csp, logging); this file connects them to Electron's objects.
//
// Order: single-instance lock; when ready, settings and log, the bridge and the CSP, then the server
// (before any window loads), the tray, the window. On quit: the operator token is revoked, the
// server closed (requests in flight finish), then the process exits.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { app, BrowserWindow, clipboard, dialog, ipcMain, Menu, nativeImage, Notification, session, shell, Tray } from 'electron';
import Store from 'electron-store';
import { bridgeHandlers, isAppPage, registerBridge } from './bridge.ts';
import { CHANNELS } from './bridge-channels.ts';
import { contentSecurityPolicy } from './csp.ts';
import type { DesktopSettings } from './hangar-api.ts';
import { logCrashes, openDesktopLog } from './logging.ts';
import type { BuildNotice } from './notifications.ts';
import { createServerHost } from './server-host.ts';
import { openSettings } from './settings.ts';
import { QR_ROUTE, trayMenu } from './tray.ts';

// Built layout (electron-vite): out/main/index.js, out/preload/index.cjs, out/renderer/index.html;
// resources/ is shipped beside out/ (build/electron-builder.yml).
const preloadPath = join(import.meta.dirname, '../preload/index.cjs');
const rendererHtml = join(import.meta.dirname, '../renderer/index.html');
const trayIcon = join(import.meta.dirname, '../../resources/tray.png');

/** The dev server URL, honoured only when running unpackaged (electron-vite dev). */
function devServerUrl(): string | null {
  const url = process.env.ELECTRON_RENDERER_URL;
  return !app.isPackaged && url ? url : null;
}

async function startDesktop(): Promise<void> {
  const settings = openSettings(new Store({ name: 'settings' }), app.getPath('userData'));
  const log = openDesktopLog(settings.get().dataDir);
  logCrashes(log, () => app.quit());
  log.info('starting', { version: app.getVersion(), electron: process.versions.electron });
  if (settings.migrated) log.info('settings migrated', { from: settings.migrated.from, reset: settings.migrated.reset });
  app.on('render-process-gone', (_event, _contents, details) => log.error('the console window crashed', { reason: details.reason, exitCode: details.exitCode }));
  app.on('child-process-gone', (_event, details) => log.error('a helper process ended', { type: details.type, reason: details.reason, exitCode: details.exitCode }));
  if (process.platform === 'win32') app.setAppUserModelId('dev.hangar.app'); // notifications need it

  let mainWindow: BrowserWindow | null = null;
  let tray: Tray | null = null;
  let quitting = false;
  const devUrl = devServerUrl();
  const filePage = pathToFileURL(rendererHtml).href;
  /**
   * Where the console comes from: the server this app runs (/console/, the same origin as the API,
   * so its calls need no CORS), or the bundled page while the server is not running (it says why and
   * offers Settings). The dev server when developing.
   */
  const consolePage = (): string => {
    const running = host.running();
    return devUrl ?? (running ? `${running.localUrl}/console/` : filePage);
  };
  const isConsolePage = (url: string | undefined) => isAppPage(url, consolePage()) || isAppPage(url, filePage);

  const host = createServerHost({
    settings: settings.get,
    log,
    onNewBuild: notify,
    onStateChange: () => {
      refreshTray();
      followServer();
    },
  });

  function createWindow(route: string | null): BrowserWindow {
    const win = new BrowserWindow({
      width: 1200,
      height: 800,
      minWidth: 800,
      minHeight: 560,
      title: 'Hangar',
      show: false,
      autoHideMenuBar: true,
      webPreferences: { preload: preloadPath, contextIsolation: true, sandbox: true, nodeIntegration: false },
    });
    win.once('ready-to-show', () => win.show());
    // No in-app popups: http(s) links open in the system browser, everything else is dropped.
    win.webContents.setWindowOpenHandler(({ url }) => {
      if (url.startsWith('https:') || url.startsWith('http:')) void shell.openExternal(url);
      return { action: 'deny' };
    });
    // Closing hides the window while Hangar keeps serving from the tray, when the user wants that.
    win.on('close', (event) => {
      if (quitting || !tray || !settings.get().minimizeToTray) return;
      event.preventDefault();
      win.hide();
    });
    win.on('closed', () => {
      if (mainWindow === win) mainWindow = null;
    });
    load(win, route);
    return win;
  }

  function load(win: BrowserWindow, route: string | null): void {
    const page = consolePage();
    if (page !== filePage) void win.loadURL(page + (route ?? ''));
    else if (route) void win.loadFile(rendererHtml, { hash: route.replace(/^#/, '') });
    else void win.loadFile(rendererHtml);
  }

  /** After a pause, resume or restart on another port, the window follows the server. */
  function followServer(): void {
    if (devUrl || !mainWindow || quitting) return;
    const shown = mainWindow.webContents.getURL();
    const hash = shown.includes('#') ? shown.slice(shown.indexOf('#')) : null;
    if (!isAppPage(shown, consolePage())) load(mainWindow, hash);
  }

  /** Brings the console to the front (making it when there is none), on `route` if given. */
  function showWindow(route: string | null = null): void {
    if (!mainWindow) {
      mainWindow = createWindow(route);
      return;
    }
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.show();
    mainWindow.focus();
    if (route) mainWindow.webContents.send(CHANNELS.navigate, route);
  }

  // Shown notifications stay referenced until they are done: one that is garbage-collected loses its click.
  const shown = new Set<Notification>();
  function notify(notice: BuildNotice): void {
    if (!Notification.isSupported()) return;
    const notification = new Notification({ title: notice.title, body: notice.body });
    shown.add(notification);
    notification.on('click', () => {
      shown.delete(notification);
      showWindow(notice.route);
    });
    notification.on('close', () => shown.delete(notification));
    notification.show();
  }

  function refreshTray(): void {
    if (!tray) return;
    const running = host.running();
    const menu = trayMenu(running ? running.urls().base : null, {
      openConsole: () => showWindow(),
      copyLanUrl: () => clipboard.writeText(host.connection().lanUrl),
      showQr: () => showWindow(QR_ROUTE),
      pause: () => void host.stop(),
      resume: () => void host.start(),
      quit: () => app.quit(),
    });
    tray.setContextMenu(Menu.buildFromTemplate(menu));
  }

  function applySettings(saved: DesktopSettings): void {
    // Only a packaged app registers itself: an unpackaged one would register the bare Electron binary.
    if (app.isPackaged) app.setLoginItemSettings({ openAtLogin: saved.startAtLogin });
  }

  registerBridge(
    ipcMain,
    bridgeHandlers({
      host,
      settings,
      applySettings,
      openPath: (path) => shell.openPath(path),
      async pickFolder(title) {
        const options = { title, properties: ['openDirectory', 'createDirectory'] as ('openDirectory' | 'createDirectory')[] };
        const picked = mainWindow ? await dialog.showOpenDialog(mainWindow, options) : await dialog.showOpenDialog(options);
        return picked.canceled ? null : (picked.filePaths[0] ?? null);
      },
    }),
    (event) => mainWindow !== null && event.sender === mainWindow.webContents && isConsolePage(event.senderFrame?.url),
  );
  // The console's page may reach the server it runs and nothing else (the dev server needs more).
  if (!devUrl) {
    session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
      if (!isConsolePage(details.url)) return callback({});
      const policy = contentSecurityPolicy(host.running()?.localUrl ?? null);
      callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [policy] } });
    });
  }

  // Quitting stops the server once, whoever asks (tray, menu, OS) and however often.
  let stopping: Promise<void> | null = null;
  app.on('before-quit', (event) => {
    quitting = true;
    event.preventDefault();
    stopping ??= host
      .stop()
      .catch((error: unknown) => log.error('stopping the server failed', { err: error }))
      .finally(() => {
        log.info('quit');
        app.exit(0);
      });
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });

  applySettings(settings.get());
  await host.start();
  tray = new Tray(nativeImage.createFromPath(trayIcon));
  tray.setToolTip('Hangar');
  tray.on('click', () => showWindow());
  refreshTray();
  showWindow();
  // From now on a window may open at any time (never before the server runs).
  app.on('second-instance', () => showWindow()); // its command line and folder are ignored on purpose
  app.on('activate', () => showWindow());
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  void app
    .whenReady()
    .then(startDesktop)
    .catch((error: unknown) => {
      // Nothing to log to yet (no settings, so no data folder): say it, and stop.
      dialog.showErrorBox('Hangar could not start', (error as Error).message);
      app.exit(1);
    });
}
