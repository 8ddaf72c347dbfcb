// Preload for a sandboxed renderer: only `electron` (contextBridge, ipcRenderer) and a reduced
// `process` are available here, and the bundle must be CommonJS (see electron.vite.config.ts).
// Exposes `window.hangar` (src-main/hangar-api.ts): each call is one IPC invoke on a named channel,
// checked again in the main process (src-main/bridge.ts). Nothing of ipcRenderer itself is exposed.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { CHANNELS } from './bridge-channels.ts';
import type { HangarApi } from './hangar-api.ts';

/** Invokes a channel; a refusal reaches the console as an Error carrying only the main process's reason. */
async function invoke<T>(channel: string, ...args: unknown[]): Promise<T> {
  try {
    return (await ipcRenderer.invoke(channel, ...args)) as T;
  } catch (error) {
    // Electron prefixes "Error invoking remote method '<channel>': <name>: "
    throw new Error(String((error as Error).message).replace(/^Error invoking remote method '[^']*': (?:\w*Error: )?/, ''));
  }
}

const hangar: HangarApi = {
  platform: process.platform,
  versions: {
    electron: process.versions.electron,
    chrome: process.versions.chrome,
    node: process.versions.node,
  },
  server: () => invoke(CHANNELS.server),
  settings: {
    get: () => invoke(CHANNELS.settingsGet),
    set: (changes) => invoke(CHANNELS.settingsSet, changes),
  },
  pickFolder: (title) => invoke(CHANNELS.pickFolder, title),
  openFolder: (which) => invoke(CHANNELS.openFolder, which),
  restartServer: () => invoke(CHANNELS.restartServer),
  onNavigate(listener) {
    const forward = (_event: IpcRendererEvent, route: unknown) => {
      if (typeof route === 'string' && route.startsWith('#/')) listener(route);
    };
    ipcRenderer.on(CHANNELS.navigate, forward);
    return () => void ipcRenderer.removeListener(CHANNELS.navigate, forward);
  },
};

contextBridge.exposeInMainWorld('hangar', hangar);
