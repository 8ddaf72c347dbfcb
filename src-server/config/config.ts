/**
 * Server settings, resolved once from (highest first) command-line flags, environment variables and
 * defaults. The CLI and the desktop app both build a ServerConfig here; nothing else reads the
 * environment for settings.
 */
import { resolve } from 'node:path';

export const API_SHAPES = ['base', 'extended'] as const;
export type ApiShape = (typeof API_SHAPES)[number];

export const DEFAULT_PORT = 7700;
export const DEFAULT_HTTPS_PORT = 7701;
export const DEFAULT_HOST = '0.0.0.0';
/** A first admin token given through HANGAR_ADMIN_TOKEN must be at least this long. */
export const MIN_ADMIN_TOKEN_LENGTH = 16;

export interface ServerConfig {
  /** interface to listen on; 0.0.0.0 = every IPv4 interface */
  host: string;
  /** HTTP port; 0 picks a free one */
  port: number;
  /** HTTPS port (certificate from the installation's own CA, for iOS installs); 0 picks a free one (the default when `port` is 0); null: no HTTPS */
  httpsPort: number | null;
  /** the network interface (name such as en0, or one of its addresses) whose address devices use; null: automatic */
  networkInterface: string | null;
  /** advertise the server on the LAN with DNS-SD/mDNS (_hangar._tcp) */
  mdns: boolean;
  /** absolute path of the data directory (database, files, logs) */
  dataDir: string;
  /** the public base URL used in absolute links, without a trailing slash; null = derive from the LAN address */
  baseUrl: string | null;
  /** default shape of API responses; a request may override it with `X-Api-Shape` */
  apiShape: ApiShape;
  /** IANA zone for timestamps in responses (R7) */
  timezone: string;
  /** server-wide defaults for users who have not chosen their own */
  userDefaults: { locale: 'en' | 'zh-CN'; appearance: 'light' | 'dark' | 'auto' };
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** also write logs to stdout (the log file in the data directory is always written) */
  logToStdout: boolean;
  /** R17: the first token of the admin user created on an empty data directory */
  initialAdminToken: string | null;
  /** how long a graceful stop may take before open connections are cut */
  shutdownTimeoutMs: number;
  /** largest binary an upload may carry, in bytes; null: no limit (R10) */
  maxUploadBytes: number | null;
  /** what a debug-symbol zip may hold (zip-bomb guards): its entries inflated together, and how many */
  symbolLimits: { maxUncompressedBytes: number; maxEntries: number };
  /**
   * Time limits for slow or stalled clients. `idleMs`: a connection on which no byte moves either way
   * for this long is closed (a stalled upload or download frees its slot; a slow one that keeps moving
   * is never cut). `headersMs`: the request line and headers must have arrived within this (slowloris).
   */
  timeouts: { idleMs: number; headersMs: number };
}

export interface ConfigFlags {
  host?: string;
  port?: string | number;
  httpsPort?: string | number;
  networkInterface?: string;
  /** false turns mDNS off (`--no-mdns`) */
  mdns?: boolean;
  data?: string;
  baseUrl?: string;
  apiShape?: string;
  timezone?: string;
  logLevel?: string;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

function pick(flag: string | number | undefined, env: string | undefined): string | undefined {
  if (flag !== undefined && String(flag) !== '') return String(flag);
  if (env !== undefined && env !== '') return env;
  return undefined;
}

function parsePort(value: string, name: string): number {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) throw new ConfigError(`${name} must be a port number (0-65535), got "${value}"`);
  return Number(value);
}

/** A positive whole number from the environment, or `fallback` when it is not set. */
function wholeNumber(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  if (!/^[1-9]\d{0,7}$/.test(value)) throw new ConfigError(`${name} must be a positive whole number, got "${value}"`);
  return Number(value);
}

export function parseBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`base URL must be an absolute http(s) URL, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`base URL must use http or https, got "${value}"`);
  if (url.search || url.hash || url.username || url.password) throw new ConfigError(`base URL must not carry a query, fragment or credentials: "${value}"`);
  return url.href.replace(/\/+$/, '');
}

export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export function hostTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

export function resolveConfig(flags: ConfigFlags = {}, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): ServerConfig {
  const host = pick(flags.host, env.HANGAR_HOST) ?? DEFAULT_HOST;
  const portText = pick(flags.port, env.HANGAR_PORT);
  const port = portText === undefined ? DEFAULT_PORT : parsePort(portText, 'port');
  const httpsText = pick(flags.httpsPort, env.HANGAR_HTTPS_PORT);
  // With a free HTTP port picked (0), a fixed HTTPS port would be the odd one out: pick one too.
  const httpsPort = httpsText === undefined ? (port === 0 ? 0 : DEFAULT_HTTPS_PORT) : /^(off|false|no|none)$/i.test(httpsText) ? null : parsePort(httpsText, 'HTTPS port');
  if (httpsPort !== null && httpsPort !== 0 && httpsPort === port) throw new ConfigError(`the HTTPS port must differ from the HTTP port (both ${port})`);
  const networkInterface = pick(flags.networkInterface, env.HANGAR_INTERFACE) ?? null;
  const mdnsText = flags.mdns === false ? '0' : (env.HANGAR_MDNS ?? '1');
  if (!/^(0|1|true|false|on|off)$/i.test(mdnsText)) throw new ConfigError(`HANGAR_MDNS must be 1 or 0, got "${mdnsText}"`);
  const mdns = /^(1|true|on)$/i.test(mdnsText);
  const dataDir = resolve(cwd, pick(flags.data, env.HANGAR_DATA_DIR) ?? 'data');
  const baseUrlText = pick(flags.baseUrl, env.HANGAR_BASE_URL);
  const baseUrl = baseUrlText === undefined ? null : parseBaseUrl(baseUrlText);

  const shapeText = (pick(flags.apiShape, env.HANGAR_API_SHAPE) ?? 'extended').toLowerCase();
  if (!API_SHAPES.includes(shapeText as ApiShape)) throw new ConfigError(`API shape must be "base" or "extended", got "${shapeText}"`);

  const timezone = pick(flags.timezone, env.HANGAR_TIMEZONE) ?? hostTimeZone();
  if (!isTimeZone(timezone)) throw new ConfigError(`unknown time zone "${timezone}"`);

  const logLevel = (pick(flags.logLevel, env.HANGAR_LOG_LEVEL) ?? 'info') as ServerConfig['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`log level must be one of ${LOG_LEVELS.join(', ')}`);

  const maxUploadText = pick(undefined, env.HANGAR_MAX_UPLOAD_MB);
  if (maxUploadText !== undefined && !/^[1-9]\d{0,7}$/.test(maxUploadText)) throw new ConfigError(`HANGAR_MAX_UPLOAD_MB must be a whole number of megabytes, got "${maxUploadText}"`);
  const maxUploadBytes = maxUploadText === undefined ? null : Number(maxUploadText) * 1024 * 1024;
  const symbolLimits = {
    maxUncompressedBytes: wholeNumber(env.HANGAR_MAX_SYMBOLS_UNCOMPRESSED_MB, 'HANGAR_MAX_SYMBOLS_UNCOMPRESSED_MB', 4096) * 1024 * 1024,
    maxEntries: wholeNumber(env.HANGAR_MAX_SYMBOLS_ENTRIES, 'HANGAR_MAX_SYMBOLS_ENTRIES', 10_000),
  };
  const timeouts = {
    idleMs: wholeNumber(env.HANGAR_IDLE_TIMEOUT_S, 'HANGAR_IDLE_TIMEOUT_S', 60) * 1000,
    headersMs: wholeNumber(env.HANGAR_HEADERS_TIMEOUT_S, 'HANGAR_HEADERS_TIMEOUT_S', 20) * 1000,
  };

  const initialAdminToken = env.HANGAR_ADMIN_TOKEN || null;
  if (initialAdminToken !== null && initialAdminToken.length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new ConfigError(`HANGAR_ADMIN_TOKEN must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters`);
  }

  return {
    host,
    port,
    httpsPort,
    networkInterface,
    mdns,
    dataDir,
    baseUrl,
    apiShape: shapeText as ApiShape,
    timezone,
    userDefaults: { locale: 'en', appearance: 'auto' },
    logLevel,
    logToStdout: env.HANGAR_LOG_STDOUT !== '0',
    initialAdminToken,
    shutdownTimeoutMs: 4500,
    maxUploadBytes,
    symbolLimits,
    timeouts,
  };
}
