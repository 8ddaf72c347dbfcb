// Preload for a sandboxed renderer: only `electron` (contextBridge, ipcRenderer) and a reduced
// `process` are available here, and the bundle must be CommonJS (see electron.vite.config.ts).
import { contextBridge } from 'electron';
import type { HangarApi } from './hangar-api.ts';

const hangar: HangarApi = {
  platform: process.platform,
  versions: {
    electron: process.versions.electron,
    chrome: process.versions.chrome,
    node: process.versions.node,
  },
};

contextBridge.exposeInMainWorld('hangar', hangar);
