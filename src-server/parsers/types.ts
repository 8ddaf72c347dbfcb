/**
 * What every binary reader returns, and the contract they share. One module per format
 * (ipa.ts, apk.ts, ...) implements BinaryReader; index.ts picks the reader for a file.
 */
import type { DeviceType } from '../storage/schema.ts';

export type BinaryFormat =
  | 'ipa'
  | 'apk'
  | 'aab'
  | 'macos-app' // a zipped .app bundle
  | 'dmg'
  | 'hap'
  | 'harmony-app' // HarmonyOS .app: a zip of .hap modules and pack.info
  | 'exe'
  | 'msi'
  | 'appimage'
  | 'deb'
  | 'rpm';

/** iOS release type (R10): from the provisioning profile. */
export type IosReleaseType = 'debug' | 'adhoc' | 'enterprise' | 'release';

export interface ProvisioningProfile {
  name: string | null;
  uuid: string | null;
  teamId: string | null;
  teamName: string | null;
  /** ISO 8601 */
  createdAt: string | null;
  /** ISO 8601 */
  expiresAt: string | null;
  /** ProvisionedDevices: device UDIDs an ad hoc or development profile allows */
  devices: string[];
  /** ProvisionsAllDevices: an enterprise (in-house) profile */
  provisionsAllDevices: boolean;
  /** get-task-allow of the profile's entitlements: a development (debug) profile */
  debuggable: boolean;
}

export interface AppMetadata {
  format: BinaryFormat;
  /** the platform, which is also the device type of the channel it belongs in */
  platform: DeviceType;
  /** bundle identifier, package name, or (Linux/Windows) the package or product name */
  bundleId: string;
  /** user-facing version (CFBundleShortVersionString, versionName, ...) */
  releaseVersion: string;
  /** build number (CFBundleVersion, versionCode, ...) */
  buildVersion: string;
  displayName: string;
  /** e.g. ['iphone', 'ipad'], ['phone', 'tablet'], ['desktop']; empty when unknown */
  deviceFamily: string[];
  /** minimum OS version or API level, as the format writes it; null when unknown */
  minOsVersion: string | null;
  /** the largest icon found, as PNG bytes; null when there is none */
  icon: Buffer | null;
  /** iOS: from the provisioning profile (no profile: debug); null for other platforms */
  releaseType: IosReleaseType | null;
  /** iOS and macOS: the embedded provisioning profile, when there is one */
  provisioning: ProvisioningProfile | null;
  /** facts particular to a format (target SDK, architectures, permissions, vendor, ...) */
  extra: Record<string, unknown>;
}

export interface BinaryReader {
  format: BinaryFormat;
  /** file name extensions (lower case, with the dot) that name this format */
  extensions: string[];
  /**
   * Reads the file at `path` (a temporary file; `fileName` is the name its uploader gave it, for
   * formats whose files may carry no version but their name). Throws ParseError when it cannot be
   * read as this format. Never loads a whole file into memory: uploads may be gigabytes.
   */
  read(path: string, fileName: string): Promise<AppMetadata>;
}

/**
 * The file cannot be read as the format it claims. The message is shown to the uploader (422), so
 * it says what is wrong in their terms: "not a valid .ipa: Payload/*.app/Info.plist is missing".
 */
export class ParseError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ParseError';
  }
}
