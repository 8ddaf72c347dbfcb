/**
 * Follows the machine's LAN addresses while the server runs. A lab machine gets its address from
 * DHCP and a laptop moves between networks: links, QR codes, the HTTPS certificate and the mDNS
 * advertisement must follow, so this checks every few seconds and tells its listeners what changed
 * (server.ts logs it, raises an event, reissues the certificate and updates the advertisement).
 */
import { networkInterfaces } from 'node:os';
import { lanAddresses, primaryAddress, type Interfaces, type LanAddress } from './addresses.ts';

export interface NetworkState {
  addresses: LanAddress[];
  /** the address absolute URLs use (see primaryAddress) */
  primary: string;
}

export interface NetworkWatcherOptions {
  /** where interfaces come from (tests replace it to change addresses) */
  interfaces?: () => Interfaces;
  /** the operator's choice of interface or address, or null for automatic */
  preferred?: string | null;
  /** how often to look, in milliseconds */
  pollMs?: number;
}

export interface NetworkWatcher {
  current(): NetworkState;
  /** Looks now; true when something changed (listeners have then been told). */
  check(): boolean;
  onChange(listener: (next: NetworkState, previous: NetworkState) => void): void;
  stop(): void;
}

export const DEFAULT_POLL_MS = 5_000;

function sameState(a: NetworkState, b: NetworkState): boolean {
  const key = (s: NetworkState) => `${s.primary}|${s.addresses.map((x) => `${x.interface}=${x.address}`).sort().join(',')}`;
  return key(a) === key(b);
}

export function watchNetwork(options: NetworkWatcherOptions = {}): NetworkWatcher {
  const read = options.interfaces ?? networkInterfaces;
  const preferred = options.preferred ?? null;
  const look = (): NetworkState => {
    const addresses = lanAddresses(read());
    return { addresses, primary: primaryAddress(addresses, preferred) };
  };
  let state = look();
  const listeners: ((next: NetworkState, previous: NetworkState) => void)[] = [];

  function check(): boolean {
    let next: NetworkState;
    try {
      next = look();
    } catch {
      return false; // an interface vanishing mid-read: look again next time
    }
    if (sameState(next, state)) return false;
    const previous = state;
    state = next;
    for (const listener of listeners) listener(next, previous);
    return true;
  }

  const timer = setInterval(check, options.pollMs ?? DEFAULT_POLL_MS);
  timer.unref();
  return {
    current: () => state,
    check,
    onChange: (listener) => void listeners.push(listener),
    stop: () => clearInterval(timer),
  };
}
