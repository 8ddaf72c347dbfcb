/**
 * The machine's LAN addresses, and the primary one that absolute URLs use when no base URL is
 * configured (R11). Loopback, link-local, container and VPN interfaces are skipped.
 * (The LAN issue extends this: changes of address, a choice of interface, HTTPS.)
 */
import { networkInterfaces } from 'node:os';

/** Interfaces that are not the LAN a phone on the lab's Wi-Fi can reach. */
const VIRTUAL = /^(docker|br-|veth|virbr|vmnet|vboxnet|cni|flannel|cali|kube|tun|tap|utun|wg|zt|tailscale|ham|llw|awdl|anpi|bridge)/i;

export interface LanAddress {
  interface: string;
  address: string;
  family: 'IPv4' | 'IPv6';
}

export function lanAddresses(interfaces = networkInterfaces()): LanAddress[] {
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

/** The address devices should use: the first LAN IPv4 address, else loopback. */
export function primaryAddress(interfaces = networkInterfaces()): string {
  return lanAddresses(interfaces).find((a) => a.family === 'IPv4')?.address ?? '127.0.0.1';
}
