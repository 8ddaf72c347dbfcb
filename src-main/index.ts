// Electron main process. Kept thin on purpose: there is no runnable Electron on the build machines,
// so everything of substance lives in plain modules tested under Node.
// The next issue makes this process start the server in-process (startServer from
// src-server/server.ts) before opening the window; the server is not imported yet.
import { join } from 'node:path';
import { app, BrowserWindow, shell } from 'electron';

// Built layout (electron-vite): out/main/index.js, out/preload/index.cjs, out/renderer/index.html.
const preloadPath = join(import.meta.dirname, '../preload/index.cjs');
const rendererHtml = join(import.meta.dirname, '../renderer/index.html');

let mainWindow: BrowserWindow | null = null;

function createWindow(): BrowserWindow {
  const win = new BrowserWindow({
    width: 1200,
    height: 800,
    minWidth: 800,
    minHeight: 560,
    title: 'Hangar',
    show: false,
    autoHideMenuBar: true,
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
    },
  });

  win.once('ready-to-show', () => win.show());

  // No in-app popups: http(s) links open in the system browser, everything else is dropped.
  win.webContents.setWindowOpenHandler(({ url }) => {
    if (url.startsWith('https:') || url.startsWith('http:')) void shell.openExternal(url);
    return { action: 'deny' };
  });

  // The dev server URL is honoured only when running unpackaged (electron-vite dev).
  const devUrl = process.env.ELECTRON_RENDERER_URL;
  if (!app.isPackaged && devUrl) void win.loadURL(devUrl);
  else void win.loadFile(rendererHtml);

  win.on('closed', () => {
    if (mainWindow === win) mainWindow = null;
  });
  return win;
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    if (!mainWindow) return;
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.focus();
  });

  void app.whenReady().then(() => {
    mainWindow = createWindow();
    app.on('activate', () => {
      if (BrowserWindow.getAllWindows().length === 0) mainWindow = createWindow();
    });
  });

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
}
