/**
 * The public base URL of a running server (R11): the configured one, or derived from the primary
 * LAN address and the port actually listened on. Looked up again every few seconds, so links follow
 * the machine to a new address (DHCP) without a restart.
 */
import type { ServerConfig } from '../config/config.ts';
import { primaryAddress } from './addresses.ts';
import { createUrls, type Urls } from './urls.ts';

const RECHECK_MS = 5_000;

export function publicUrls(config: Pick<ServerConfig, 'baseUrl'>, port: () => number, address: () => string = primaryAddress): () => Urls {
  if (config.baseUrl) {
    const fixed = createUrls(config.baseUrl);
    return () => fixed;
  }
  let current: Urls | null = null;
  let checkedAt = 0;
  return () => {
    const now = Date.now();
    if (current && now - checkedAt < RECHECK_MS) return current;
    checkedAt = now;
    const host = address();
    const base = `http://${host.includes(':') ? `[${host}]` : host}:${port()}`;
    if (current?.base !== base) current = createUrls(base);
    return current;
  };
}
