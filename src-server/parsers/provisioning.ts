/**
 * Provisioning profiles (iOS `embedded.mobileprovision`, macOS `embedded.provisionprofile`): a
 * CMS (PKCS#7) signed message whose content is an XML property list. We do not verify the
 * signature (the device does that); we take the plist out of the DER bytes, where it is stored
 * contiguously as the signed content, and read it.
 */
import { parsePlist, plistString, type PlistDict, type PlistValue } from './plist.ts';
import { ParseError, type IosReleaseType, type ProvisioningProfile } from './types.ts';

/** Profiles are tens of kilobytes; a megabyte-sized one is not a profile. */
export const MAX_PROFILE_BYTES = 4 * 1024 * 1024;

/**
 * What kind of profile it is, the way Xcode names them. R10's release type is coarser (a
 * development profile, having devices, counts as `adhoc` there); this tells them apart.
 */
export type ProvisioningKind = 'development' | 'adhoc' | 'enterprise' | 'app-store';

export interface ReadProfile {
  profile: ProvisioningProfile;
  kind: ProvisioningKind;
  /** Platform (e.g. ['iOS'], ['OSX']), when the profile says */
  platforms: string[];
  /** the whole property list, for callers that need more */
  plist: PlistDict;
}

/** The XML property list inside a CMS-wrapped profile (or the profile itself, if it is a bare plist). */
export function profilePlistBytes(data: Buffer): Buffer | null {
  if (data.subarray(0, 6).toString('latin1') === 'bplist') return data;
  let start = data.indexOf('<?xml', 0, 'latin1');
  if (start < 0) start = data.indexOf('<plist', 0, 'latin1');
  if (start < 0) return null;
  const close = data.indexOf('</plist>', start, 'latin1');
  if (close < 0) return null;
  return data.subarray(start, close + '</plist>'.length);
}

function isoDate(value: PlistValue | undefined): string | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (typeof value === 'string') {
    const date = new Date(value);
    return Number.isNaN(date.getTime()) ? null : date.toISOString();
  }
  return null;
}

function strings(value: PlistValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function dict(value: PlistValue | undefined): PlistDict | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Uint8Array) && !(value instanceof Date)
    ? (value as PlistDict)
    : null;
}

/** Reads a provisioning profile; `what` names it in errors. Throws ParseError when it is unreadable. */
export function readProvisioningProfile(data: Buffer, what: string): ReadProfile {
  const bytes = profilePlistBytes(data);
  if (!bytes) throw new ParseError(`${what} is not a provisioning profile: it holds no property list`);
  const plist = parsePlist(bytes, what);
  const entitlements = dict(plist['Entitlements']) ?? {};
  const devices = strings(plist['ProvisionedDevices']);
  const provisionsAllDevices = plist['ProvisionsAllDevices'] === true;
  const debuggable = entitlements['get-task-allow'] === true;
  const profile: ProvisioningProfile = {
    name: plistString(plist, 'Name'),
    uuid: plistString(plist, 'UUID'),
    teamId: strings(plist['TeamIdentifier'])[0] ?? plistString(entitlements, 'com.apple.developer.team-identifier'),
    teamName: plistString(plist, 'TeamName'),
    createdAt: isoDate(plist['CreationDate']),
    expiresAt: isoDate(plist['ExpirationDate']),
    devices,
    provisionsAllDevices,
    debuggable,
  };
  return { profile, kind: provisioningKind(profile), platforms: strings(plist['Platform']), plist };
}

export function provisioningKind(profile: ProvisioningProfile): ProvisioningKind {
  if (profile.provisionsAllDevices) return 'enterprise';
  if (profile.debuggable) return 'development';
  if (profile.devices.length > 0) return 'adhoc';
  return 'app-store';
}

/**
 * The iOS release type of R10, applied as written: no profile: debug; ProvisionsAllDevices:
 * enterprise; a profile with devices: adhoc (a development profile too: callers that need to
 * tell the two apart use `provisioning.debuggable` or the provisioning kind); else release.
 */
export function releaseTypeOf(profile: ProvisioningProfile | null): IosReleaseType {
  if (!profile) return 'debug';
  if (profile.provisionsAllDevices) return 'enterprise';
  if (profile.devices.length > 0) return 'adhoc';
  return 'release';
}
