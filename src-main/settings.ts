// The desktop app's settings: kept in electron-store (one JSON file in the user-data folder), with
// defaults, a versioned migration of what older builds wrote, and the mapping to the server's
// ServerConfig through resolveConfig, the one config module the CLI and the desktop share.
// No Electron import: the store is passed in, so all of this runs under plain Node in the tests.
import { join } from 'node:path';
import { DEFAULT_HTTPS_PORT, DEFAULT_PORT, resolveConfig, type ConfigFlags, type ServerConfig } from '../src-server/config/config.ts';
import type { DesktopSettings } from './hangar-api.ts';
import { checkField, isSettingsField, SETTINGS_FIELDS } from './settings-rules.ts';

/** The layout version written with the settings; bump it and add a step to MIGRATIONS on a change. */
export const SETTINGS_VERSION = 2;

type Stored = Record<string, unknown>;

/** Steps from one layout version to the next, keyed by the version they read. */
const MIGRATIONS: Record<number, (old: Stored) => Stored> = {
  // Version 1 (written without a version key) kept the port as typed, as text, and had no HTTPS
  // port: iOS installs over HTTPS came with LAN serving, and are on by default since (on a free port
  // when the HTTP port is a free one, as resolveConfig does).
  1: (old) => ({
    httpsPort: Number(old.port) === 0 ? 0 : DEFAULT_HTTPS_PORT,
    ...old,
    ...(typeof old.port === 'string' && /^\s*\d{1,5}\s*$/.test(old.port) && { port: Number(old.port) }),
  }),
};

export function defaultSettings(userDataDir: string): DesktopSettings {
  return {
    port: DEFAULT_PORT,
    httpsPort: DEFAULT_HTTPS_PORT,
    dataDir: join(userDataDir, 'data'),
    baseUrl: null,
    apiShape: 'extended',
    networkInterface: null,
    mdns: true,
    startAtLogin: false,
    minimizeToTray: true,
  };
}

export interface Migrated {
  settings: DesktopSettings;
  /** the layout version the store had (SETTINGS_VERSION when nothing was migrated; 0: empty store) */
  from: number;
  /** fields whose stored value was unusable and fell back to the default */
  reset: (keyof DesktopSettings)[];
}

function storedVersion(stored: Stored): number {
  if (Number.isInteger(stored.version)) return stored.version as number;
  return Object.keys(stored).length === 0 ? 0 : 1;
}

/**
 * Brings what the store holds to the current layout. Never throws: a field that is still unusable
 * afterwards (hand-edited file, a newer build's value) takes its default, and is reported.
 */
export function migrateSettings(stored: Stored, defaults: DesktopSettings): Migrated {
  const from = storedVersion(stored);
  let current = stored;
  for (let version = from === 0 ? SETTINGS_VERSION : from; version < SETTINGS_VERSION; version += 1) {
    const step = MIGRATIONS[version];
    if (step) current = step(current);
  }
  const settings = { ...defaults };
  const reset: (keyof DesktopSettings)[] = [];
  for (const name of SETTINGS_FIELDS) {
    if (!(name in current)) continue;
    if (checkField(name, current[name]) === null) Object.assign(settings, { [name]: current[name] });
    else reset.push(name);
  }
  return { settings, from, reset };
}

/** Environment variables for settings the desktop app owns: its settings win, not the shell's. */
const OWNED_BY_SETTINGS = ['HANGAR_PORT', 'HANGAR_HTTPS_PORT', 'HANGAR_DATA_DIR', 'HANGAR_BASE_URL', 'HANGAR_API_SHAPE', 'HANGAR_INTERFACE', 'HANGAR_MDNS'];

/**
 * The ServerConfig the desktop app starts the server with. Throws resolveConfig's ConfigError for a
 * combination the server refuses (e.g. the same port twice, a base URL with a query).
 */
export function serverConfig(settings: DesktopSettings, env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const flags: ConfigFlags = {
    port: settings.port,
    httpsPort: settings.httpsPort ?? 'off',
    data: settings.dataDir,
    apiShape: settings.apiShape,
    ...(settings.baseUrl !== null && { baseUrl: settings.baseUrl }),
    ...(settings.networkInterface !== null && { networkInterface: settings.networkInterface }),
    ...(!settings.mdns && { mdns: false }),
  };
  const rest = Object.fromEntries(Object.entries(env).filter(([name]) => !OWNED_BY_SETTINGS.includes(name)));
  // The desktop app has its log file and no terminal: server logs go to <data>/logs only, unless asked.
  return resolveConfig(flags, { HANGAR_LOG_STDOUT: '0', ...rest });
}

/** The part of electron-store used here (its whole content, read and replaced at once). */
export interface KeyValueStore {
  store: Stored;
}

export interface SettingsStore {
  /** what opening the store migrated or reset (for the log); null when it was current, or new */
  readonly migrated: Migrated | null;
  get(): DesktopSettings;
  /** Checks a change from the renderer (untrusted) and saves it; throws with a sentence when refused. */
  update(changes: unknown): DesktopSettings;
}

/** Fields of a change from the renderer: a plain object of known fields whose values pass their rule. */
function parseChange(changes: unknown): Partial<DesktopSettings> {
  if (typeof changes !== 'object' || changes === null || Array.isArray(changes) || Object.getPrototypeOf(changes) !== Object.prototype) {
    throw new TypeError('settings change must be an object');
  }
  for (const [name, value] of Object.entries(changes)) {
    if (!isSettingsField(name)) throw new TypeError(`unknown setting "${name}"`);
    const problem = checkField(name, value);
    if (problem) throw new TypeError(`invalid value for setting "${name}" (${problem})`);
  }
  return changes as Partial<DesktopSettings>;
}

/** Opens the settings in `store`, migrating (and rewriting) what an older build left there. */
export function openSettings(store: KeyValueStore, userDataDir: string): SettingsStore {
  const migrated = migrateSettings(store.store, defaultSettings(userDataDir));
  let settings = migrated.settings;
  const save = () => (store.store = { version: SETTINGS_VERSION, ...settings });
  const changed = migrated.from !== SETTINGS_VERSION || migrated.reset.length > 0;
  if (changed) save();
  return {
    migrated: changed && migrated.from !== 0 ? migrated : null,
    get: () => ({ ...settings }),
    update(changes) {
      const next = { ...settings, ...parseChange(changes) };
      serverConfig(next); // the server's own rules for what is left: throws ConfigError
      settings = next;
      save();
      return { ...settings };
    },
  };
}
