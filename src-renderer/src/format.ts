/** Names and links the pages share. */
import type { DeviceType } from './api/types.ts';

/** Platform names are brands: the same in every language. */
const DEVICE_TYPE_NAMES: Record<DeviceType, string> = {
  ios: 'iOS',
  android: 'Android',
  harmonyos: 'HarmonyOS',
  macos: 'macOS',
  windows: 'Windows',
  linux: 'Linux',
};

export function deviceTypeName(type: string): string {
  return DEVICE_TYPE_NAMES[type as DeviceType] ?? type;
}

/**
 * The console's page of a release. The channel rides along in the query when the linking page knows
 * it, for servers whose release bodies do not name their channel.
 */
export function releasePath(releaseId: number, channelId?: number): string {
  return channelId === undefined ? `/releases/${releaseId}` : `/releases/${releaseId}?channel=${channelId}`;
}
