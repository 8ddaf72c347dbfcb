/**
 * The public base URLs of a running server (R11): the configured one, or derived from the primary
 * LAN address and the ports actually listened on. Asked for on every use, so links follow the
 * machine to a new address (watcher.ts) without a restart.
 *
 * The secure base is where iOS installs go (they need HTTPS the device trusts): the configured base
 * when it is HTTPS already (e.g. behind a proxy with a real certificate), else Hangar's own HTTPS
 * port on the same host; with HTTPS turned off, the base itself.
 */
import type { ServerConfig } from '../config/config.ts';
import { urlHost } from './addresses.ts';
import { createUrls, type Urls } from './urls.ts';

export interface ListeningPorts {
  http: number;
  /** null: HTTPS is off */
  https: number | null;
}

export function publicUrls(config: Pick<ServerConfig, 'baseUrl'>, primary: () => string, ports: () => ListeningPorts): () => Urls {
  let current: Urls | null = null;
  let currentKey = '';
  return () => {
    const { http, https } = ports();
    const host = primary();
    const key = `${host}|${http}|${https}`;
    if (current && key === currentKey) return current;
    const base = config.baseUrl ?? `http://${urlHost(host)}:${http}`;
    const baseHost = new URL(base).host.replace(/:\d+$/, '');
    const secureBase = base.startsWith('https:') ? base : https === null ? base : `https://${baseHost}:${https}`;
    current = createUrls(base, secureBase);
    currentKey = key;
    return current;
  };
}
