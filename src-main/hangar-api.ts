// The object the preload script exposes to the renderer as `window.hangar` (desktop app only; in a
// browser at /console it is absent and the console signs in with a session instead).
// Types only: shared by src-main/preload.ts, src-main/ and src-renderer/, erased at build time.

/** Settings the desktop app keeps with electron-store and gives to the server it starts. */
export interface DesktopSettings {
  /** HTTP port (0: a free one) */
  port: number;
  /** HTTPS port for iOS installs; null: no HTTPS */
  httpsPort: number | null;
  /** absolute path of the data folder */
  dataDir: string;
  /** public base URL; null: derived from the LAN address */
  baseUrl: string | null;
  apiShape: 'base' | 'extended';
  /** network interface (name or address) devices use; null: automatic */
  networkInterface: string | null;
  mdns: boolean;
  startAtLogin: boolean;
  /** closing the window keeps Hangar running in the tray */
  minimizeToTray: boolean;
}

/** Which settings take effect only after the server restarts. */
export type SettingsChange = { saved: DesktopSettings; restartNeeded: boolean };

/** The server and how to reach it; while paused, `url`, `token` and `lanUrl` are empty strings. */
export interface ServerConnection {
  /** where the console reaches the server from this machine, e.g. http://127.0.0.1:7700 */
  url: string;
  /** an operator token minted by the main process for this run; never served on the LAN */
  token: string;
  /** the URL devices on the LAN use (the public base URL) */
  lanUrl: string;
  /** running, or paused from the tray (or after a start that failed: see `error`) */
  state: 'running' | 'paused';
  /** why the last start failed (e.g. the port is taken), when it did */
  error?: string;
}

export interface HangarApi {
  readonly platform: string;
  readonly versions: {
    readonly electron: string;
    readonly chrome: string;
    readonly node: string;
  };
  /** The server this app runs, and how to talk to it. */
  server(): Promise<ServerConnection>;
  settings: {
    get(): Promise<DesktopSettings>;
    /**
     * Validates and saves; says whether the running server needs a restart to apply what is saved
     * (so `set({})` saves nothing and tells whether a restart is pending). Rejects, with the reason
     * as the error's message, a change the main process or the server refuses.
     */
    set(changes: Partial<DesktopSettings>): Promise<SettingsChange>;
  };
  /** Asks the user for a folder (e.g. a new data folder); null when cancelled. */
  pickFolder(title: string): Promise<string | null>;
  /** Opens the data folder or its logs in the system's file manager. */
  openFolder(which: 'data' | 'logs'): Promise<void>;
  /** Restarts the server (after settings that need it). */
  restartServer(): Promise<ServerConnection>;
  /**
   * The main process asks the console to show something (a notification was clicked, the tray's
   * "show QR"): a hash route such as `#/releases/12`. Returns the function that unsubscribes.
   */
  onNavigate(listener: (route: string) => void): () => void;
}
