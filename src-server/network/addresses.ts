/**
 * The machine's LAN addresses, and the primary one that absolute URLs use when no base URL is
 * configured (R11). Loopback, link-local, container and VPN interfaces are skipped. An operator may
 * name the interface (or address) devices should use: `--interface` / HANGAR_INTERFACE.
 */
import { networkInterfaces } from 'node:os';

/** Interfaces that are not the LAN a phone on the lab's Wi-Fi can reach. */
const VIRTUAL = /^(docker|br-|veth|virbr|vmnet|vboxnet|cni|flannel|cali|kube|tun|tap|utun|wg|zt|tailscale|ham|llw|awdl|anpi|bridge)/i;

export interface LanAddress {
  interface: string;
  address: string;
  family: 'IPv4' | 'IPv6';
}

export type Interfaces = ReturnType<typeof networkInterfaces>;

export function lanAddresses(interfaces: Interfaces = networkInterfaces()): LanAddress[] {
  const found: LanAddress[] = [];
  for (const [name, entries] of Object.entries(interfaces)) {
    if (!entries || VIRTUAL.test(name)) continue;
    for (const entry of entries) {
      if (entry.internal) continue;
      if (entry.family === 'IPv4' && entry.address.startsWith('169.254.')) continue; // link-local
      if (entry.family === 'IPv6' && (entry.address.toLowerCase().startsWith('fe80:') || entry.scopeid)) continue;
      found.push({ interface: name, address: entry.address, family: entry.family });
    }
  }
  return found;
}

/**
 * The address devices should use: on the chosen interface (by name, or one of its addresses) when
 * there is a choice and it is up, else the first LAN address; IPv4 before IPv6 (phones on lab Wi-Fi
 * rarely have IPv6 routes); loopback when there is no LAN at all.
 */
export function primaryAddress(addresses: LanAddress[], preferred: string | null = null): string {
  const chosen = preferred === null ? addresses : addresses.filter((a) => a.interface === preferred || a.address === preferred);
  const pool = chosen.length > 0 ? chosen : addresses;
  return (pool.find((a) => a.family === 'IPv4') ?? pool[0])?.address ?? '127.0.0.1';
}

/** A host for a URL: IPv6 addresses in brackets. */
export function urlHost(address: string): string {
  return address.includes(':') ? `[${address}]` : address;
}
