/**
 * What iOS and macOS bundles share: the identity fields of Info.plist, app extensions
 * (PlugIns/*.appex), the architectures of the main executable, and the embedded provisioning profile.
 */
import type { Readable } from 'node:stream';
import { parsePlist, plistString, type PlistDict } from './plist.ts';
import { MAX_PROFILE_BYTES, readProvisioningProfile, type ReadProfile } from './provisioning.ts';
import type { ZipArchive } from './zip.ts';
import { ParseError } from './types.ts';

/** Info.plist files are a few kilobytes; anything this large is not one. */
export const MAX_PLIST_BYTES = 8 * 1024 * 1024;

export interface BundleIdentity {
  bundleId: string;
  releaseVersion: string;
  buildVersion: string;
  displayName: string;
}

/** A regular expression that matches `text` literally. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function nonEmpty(value: string | null): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

/** Reads and parses a plist entry; errors say `<what>: <entry> ...`. */
export async function readPlistEntry(zip: ZipArchive, entry: string, what: string): Promise<PlistDict> {
  let data: Buffer;
  try {
    data = await zip.read(entry, MAX_PLIST_BYTES);
  } catch (error) {
    throw new ParseError(`${what}: ${(error as Error).message}`, { cause: error });
  }
  try {
    return parsePlist(data, entry);
  } catch (error) {
    throw new ParseError(`${what}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Bundle id, versions and name from an Info.plist. A missing CFBundleIdentifier is an error; of the
 * two versions one may stand in for the other (old apps lack CFBundleShortVersionString), but not
 * both may be missing. The name falls back from CFBundleDisplayName to CFBundleName to `folderName`.
 */
export function bundleIdentity(info: PlistDict, folderName: string, what: string, plistPath: string): BundleIdentity {
  const bundleId = nonEmpty(plistString(info, 'CFBundleIdentifier'));
  if (!bundleId) throw new ParseError(`${what}: ${plistPath} has no CFBundleIdentifier`);
  const shortVersion = nonEmpty(plistString(info, 'CFBundleShortVersionString'));
  const bundleVersion = nonEmpty(plistString(info, 'CFBundleVersion'));
  if (!shortVersion && !bundleVersion) throw new ParseError(`${what}: ${plistPath} has neither CFBundleShortVersionString nor CFBundleVersion`);
  return {
    bundleId,
    releaseVersion: (shortVersion ?? bundleVersion) as string,
    buildVersion: (bundleVersion ?? shortVersion) as string,
    displayName: nonEmpty(plistString(info, 'CFBundleDisplayName')) ?? nonEmpty(plistString(info, 'CFBundleName')) ?? folderName,
  };
}

export interface AppExtension {
  bundleId: string | null;
  releaseVersion: string | null;
  buildVersion: string | null;
  displayName: string | null;
  /** NSExtension.NSExtensionPointIdentifier, e.g. com.apple.usernotifications.service */
  extensionPoint: string | null;
  path: string;
}

/**
 * The app extensions directly inside a bundle: `plistPattern` matches their Info.plist entries. An
 * extension whose Info.plist cannot be read is listed with null fields rather than failing the app.
 */
export async function appExtensions(zip: ZipArchive, plistPattern: RegExp): Promise<AppExtension[]> {
  const result: AppExtension[] = [];
  for (const entry of zip.find(plistPattern)) {
    const path = entry.replace(/\/(Contents\/)?Info\.plist$/, '');
    let info: PlistDict = {};
    try {
      info = parsePlist(await zip.read(entry, MAX_PLIST_BYTES), entry);
    } catch {
      // listed without its fields
    }
    const extension = info['NSExtension'];
    const point =
      extension && typeof extension === 'object' && !Array.isArray(extension) && !(extension instanceof Uint8Array) && !(extension instanceof Date)
        ? plistString(extension as PlistDict, 'NSExtensionPointIdentifier')
        : null;
    result.push({
      bundleId: plistString(info, 'CFBundleIdentifier'),
      releaseVersion: plistString(info, 'CFBundleShortVersionString'),
      buildVersion: plistString(info, 'CFBundleVersion'),
      displayName: plistString(info, 'CFBundleDisplayName') ?? plistString(info, 'CFBundleName'),
      extensionPoint: point,
      path,
    });
  }
  return result;
}

const CPU_ARCH_ABI64 = 0x01000000;
const CPU_ARCH_ABI64_32 = 0x02000000;

/** The name of a Mach-O CPU type and subtype, as `lipo` prints it. */
export function archName(cpuType: number, cpuSubtype: number): string {
  const sub = cpuSubtype & 0x00ffffff;
  switch (cpuType) {
    case 7:
      return 'i386';
    case 7 | CPU_ARCH_ABI64:
      return sub === 8 ? 'x86_64h' : 'x86_64';
    case 12:
      return ({ 6: 'armv6', 7: 'armv5', 9: 'armv7', 10: 'armv7f', 11: 'armv7s', 12: 'armv7k', 14: 'armv6m', 15: 'armv7m', 16: 'armv7em' } as Record<number, string>)[sub] ?? 'arm';
    case 12 | CPU_ARCH_ABI64:
      return sub === 2 ? 'arm64e' : 'arm64';
    case 12 | CPU_ARCH_ABI64_32:
      return 'arm64_32';
    case 18:
      return 'ppc';
    case 18 | CPU_ARCH_ABI64:
      return 'ppc64';
    default:
      return `cpu${cpuType >>> 0}/${sub}`;
  }
}

/** Architectures named by a Mach-O header (thin or fat); null when `head` is not Mach-O. */
export function machOArchitectures(head: Buffer): string[] | null {
  if (head.length < 8) return null;
  const magic = head.readUInt32BE(0);
  if (magic === 0xcafebabe || magic === 0xcafebabf) {
    const count = head.readUInt32BE(4);
    const size = magic === 0xcafebabe ? 20 : 32;
    // A Java class file shares 0xCAFEBABE; its "count" (the version) is far above any real fat count.
    if (count === 0 || count > 32) return null;
    const archs: string[] = [];
    for (let i = 0; i < count && 8 + (i + 1) * size <= head.length; i++) {
      const at = 8 + i * size;
      archs.push(archName(head.readInt32BE(at), head.readInt32BE(at + 4)));
    }
    return archs;
  }
  // thin: the magic in the file's byte order
  const le = head.readUInt32LE(0);
  if (le === 0xfeedface || le === 0xfeedfacf) return [archName(head.readInt32LE(4), head.readInt32LE(8))];
  if (magic === 0xfeedface || magic === 0xfeedfacf) return [archName(head.readInt32BE(4), head.readInt32BE(8))];
  return null;
}

/** Reads the first `bytes` of an entry, without inflating the rest. */
export async function readHead(zip: ZipArchive, entry: string, bytes: number): Promise<Buffer> {
  const stream = (await zip.stream(entry)) as Readable;
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      total += chunk.length;
      if (total >= bytes) break;
    }
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks, total).subarray(0, bytes);
}

/** Architectures of the executable at `entry`; null when it is missing or not Mach-O. */
export async function executableArchitectures(zip: ZipArchive, entry: string): Promise<string[] | null> {
  if (!zip.has(entry)) return null;
  try {
    return machOArchitectures(await readHead(zip, entry, 4096));
  } catch {
    return null;
  }
}

/**
 * The embedded provisioning profile at `entry`. Absent: null. Present but unreadable: null with the
 * reason, so that a damaged profile does not make the app itself unreadable.
 */
export async function embeddedProfile(zip: ZipArchive, entry: string): Promise<{ read: ReadProfile | null; error: string | null }> {
  if (!zip.has(entry)) return { read: null, error: null };
  try {
    return { read: readProvisioningProfile(await zip.read(entry, MAX_PROFILE_BYTES), entry), error: null };
  } catch (error) {
    return { read: null, error: (error as Error).message };
  }
}
