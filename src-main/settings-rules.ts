// What a valid DesktopSettings value looks like, field by field, and which fields need a server
// restart. Pure and free of Node imports: the main process checks what the renderer sends with it
// (never trusting the renderer), and the Settings page uses it for messages as the user types.
// Cross-field and URL rules are the server's own (resolveConfig in src-server/config/config.ts,
// applied by src-main/settings.ts), so they are not repeated here.
import type { DesktopSettings } from './hangar-api.ts';

/** Why a field was refused; the Settings page turns these into sentences in the user's language. */
export type SettingsProblem = 'port' | 'dataDir' | 'text' | 'apiShape' | 'boolean';
export type SettingsProblems = Partial<Record<keyof DesktopSettings, SettingsProblem>>;

type FieldRule = (value: unknown) => SettingsProblem | null;

const isPort = (value: unknown): boolean => Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 65535;
/** POSIX (/...), Windows drive (C:\...) or UNC (\\server\...) absolute paths. */
const isAbsolutePath = (value: unknown): boolean => typeof value === 'string' && /^(\/|[A-Za-z]:[\\/]|\\\\[^\\])/.test(value) && !value.includes('\0');
const isShortText = (value: unknown): boolean => typeof value === 'string' && value.trim() !== '' && value.length <= 2048 && !value.includes('\0');

const RULES: Record<keyof DesktopSettings, FieldRule> = {
  port: (v) => (isPort(v) ? null : 'port'),
  httpsPort: (v) => (v === null || isPort(v) ? null : 'port'),
  dataDir: (v) => (isAbsolutePath(v) ? null : 'dataDir'),
  baseUrl: (v) => (v === null || isShortText(v) ? null : 'text'),
  apiShape: (v) => (v === 'base' || v === 'extended' ? null : 'apiShape'),
  networkInterface: (v) => (v === null || isShortText(v) ? null : 'text'),
  mdns: (v) => (typeof v === 'boolean' ? null : 'boolean'),
  startAtLogin: (v) => (typeof v === 'boolean' ? null : 'boolean'),
  minimizeToTray: (v) => (typeof v === 'boolean' ? null : 'boolean'),
};

export const SETTINGS_FIELDS = Object.keys(RULES) as (keyof DesktopSettings)[];

/** Fields the running server read at start: changing one takes a restart. The others apply at once. */
export const RESTART_FIELDS: readonly (keyof DesktopSettings)[] = ['port', 'httpsPort', 'dataDir', 'baseUrl', 'apiShape', 'networkInterface', 'mdns'];

export function isSettingsField(name: string): name is keyof DesktopSettings {
  return Object.hasOwn(RULES, name);
}

/** The problem with one field's value, or null when it is fine. */
export function checkField(name: keyof DesktopSettings, value: unknown): SettingsProblem | null {
  return RULES[name](value);
}

/** Every field's problem (an empty object: all fine). */
export function checkSettings(settings: Record<keyof DesktopSettings, unknown>): SettingsProblems {
  const problems: SettingsProblems = {};
  for (const name of SETTINGS_FIELDS) {
    const problem = checkField(name, settings[name]);
    if (problem) problems[name] = problem;
  }
  return problems;
}

/** Whether a server started with `before` must restart to apply `after`. */
export function needsRestart(before: DesktopSettings, after: DesktopSettings): boolean {
  return RESTART_FIELDS.some((name) => before[name] !== after[name]);
}
