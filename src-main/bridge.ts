// The main-process side of the preload bridge: one handler per HangarApi call. The renderer is not
// trusted: a call must come from the app's own window showing the app's own page, and every
// argument is checked here (type, size, allowed values) before anything is done with it.
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { IpcMain, IpcMainInvokeEvent } from 'electron';
import type { DesktopSettings, SettingsChange } from './hangar-api.ts';
import { CHANNELS, type InvokeChannel } from './bridge-channels.ts';
import { desktopLogFile } from './logging.ts';
import type { ServerHost } from './server-host.ts';
import type { SettingsStore } from './settings.ts';

export interface BridgeDeps {
  host: ServerHost;
  settings: SettingsStore;
  /** applies the settings that take effect at once (start at login, minimise to tray) */
  applySettings(saved: DesktopSettings): void;
  /** the system's folder picker; null when cancelled */
  pickFolder(title: string): Promise<string | null>;
  /** shows a folder in the system's file manager; resolves to an error message, '' on success */
  openPath(path: string): Promise<string>;
}

type Handler = (...args: unknown[]) => Promise<unknown>;

const MAX_TITLE_LENGTH = 200;

function expectArity(args: unknown[], count: number): void {
  if (args.length !== count) throw new TypeError(`expected ${count} argument(s), got ${args.length}`);
}

function folderTitle(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_TITLE_LENGTH || /\p{Cc}/u.test(value)) {
    throw new TypeError(`a folder picker title must be text of 1 to ${MAX_TITLE_LENGTH} characters`);
  }
  return value;
}

export function bridgeHandlers(deps: BridgeDeps): Record<InvokeChannel, Handler> {
  const { host, settings } = deps;
  return {
    async [CHANNELS.server](...args) {
      expectArity(args, 0);
      return host.connection();
    },
    async [CHANNELS.settingsGet](...args) {
      expectArity(args, 0);
      return settings.get();
    },
    async [CHANNELS.settingsSet](...args): Promise<SettingsChange> {
      expectArity(args, 1);
      const saved = settings.update(args[0]);
      deps.applySettings(saved);
      return { saved, restartNeeded: host.restartNeeded(saved) };
    },
    async [CHANNELS.pickFolder](...args) {
      expectArity(args, 1);
      return deps.pickFolder(folderTitle(args[0]));
    },
    async [CHANNELS.openFolder](...args) {
      expectArity(args, 1);
      const which = args[0];
      if (which !== 'data' && which !== 'logs') throw new TypeError('the folder must be "data" or "logs"');
      const { dataDir } = settings.get();
      const folder = which === 'data' ? dataDir : dirname(desktopLogFile(dataDir));
      await mkdir(folder, { recursive: true });
      const failure = await deps.openPath(folder);
      if (failure) throw new Error(failure);
    },
    async [CHANNELS.restartServer](...args) {
      expectArity(args, 0);
      return host.restart();
    },
  };
}

/** The page the bridge serves: `url` without its fragment (the console's hash route) is `page`. */
export function isAppPage(url: string | undefined, page: string): boolean {
  if (!url) return false;
  const hash = url.indexOf('#');
  return (hash === -1 ? url : url.slice(0, hash)) === page;
}

/** Registers the handlers; calls from anything `isTrusted` refuses are rejected before their arguments are read. */
export function registerBridge(ipcMain: Pick<IpcMain, 'handle'>, handlers: Record<InvokeChannel, Handler>, isTrusted: (event: IpcMainInvokeEvent) => boolean): void {
  for (const [channel, handler] of Object.entries(handlers)) {
    ipcMain.handle(channel, (event, ...args: unknown[]) => {
      if (!isTrusted(event)) throw new Error('refused: not the Hangar console');
      return handler(...args);
    });
  }
}
