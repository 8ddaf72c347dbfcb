/**
 * Zipped dSYM bundles (R15): any number of `<Name>.dSYM/` bundles at any depth of the zip (Xcode
 * archives nest them; `ditto` puts them at the root).
 *
 * Each bundle's DWARF file (`Contents/Resources/DWARF/<object>`) gives one entry per Mach-O slice:
 * architecture, UUID, size (macho.ts reads only the headers, however large the file). Its
 * `Contents/Info.plist` gives the bundle id (after Xcode's `com.apple.xcode.dsym.` prefix) and the
 * versions of the build the symbols belong to.
 */
import type { Readable } from 'node:stream';
import { readPlistEntry } from './apple.ts';
import { readMachOSlices, type MachOSlice } from './macho.ts';
import { plistString } from './plist.ts';
import type { ZipArchive, ZipEntryInfo } from './zip.ts';

/** Xcode writes a dSYM's CFBundleIdentifier as this prefix and the bundle id of its binary. */
const DSYM_ID_PREFIX = 'com.apple.xcode.dsym.';
/** `<bundle>.dSYM/Contents/Resources/DWARF/<object>`; the suffix in any case (`ios.DSYM` exists). */
const DWARF_ENTRY = /^(.*\.dsym)\/Contents\/Resources\/DWARF\/[^/]+$/i;

export interface DsymObject {
  /** the binary's name: the DWARF file's name */
  name: string;
  slices: MachOSlice[];
}

export interface DsymBundle {
  /** the bundle's path in the zip, e.g. "AppInfo.app.dSYM" */
  path: string;
  /** the binary's bundle id; null when the bundle has no Info.plist or it names none */
  bundleId: string | null;
  releaseVersion: string | null;
  buildVersion: string | null;
  objects: DsymObject[];
}

/** The dSYM bundles among a zip's file names: bundle path -> its DWARF entries, in archive order. */
export function findDsymBundles(files: ZipEntryInfo[]): Map<string, ZipEntryInfo[]> {
  const bundles = new Map<string, ZipEntryInfo[]>();
  for (const file of files) {
    const match = DWARF_ENTRY.exec(file.name);
    if (!match) continue;
    const entries = bundles.get(match[1]!) ?? [];
    entries.push(file);
    bundles.set(match[1]!, entries);
  }
  return bundles;
}

function nonEmpty(value: string | null): string | null {
  return value?.trim() || null;
}

async function readObject(zip: ZipArchive, entry: ZipEntryInfo): Promise<DsymObject> {
  const stream = (await zip.stream(entry.name)) as Readable;
  try {
    return { name: entry.name.slice(entry.name.lastIndexOf('/') + 1), slices: await readMachOSlices(stream, entry.uncompressedSize, entry.name) };
  } finally {
    stream.destroy(); // the rest of the DWARF data is never inflated
  }
}

async function readBundle(zip: ZipArchive, path: string, dwarfEntries: ZipEntryInfo[]): Promise<DsymBundle> {
  const plistPath = `${path}/Contents/Info.plist`;
  const info = zip.has(plistPath) ? await readPlistEntry(zip, plistPath, path) : {};
  const identifier = nonEmpty(plistString(info, 'CFBundleIdentifier'));
  const objects: DsymObject[] = [];
  for (const entry of dwarfEntries) objects.push(await readObject(zip, entry));
  return {
    path,
    bundleId: identifier?.startsWith(DSYM_ID_PREFIX) ? identifier.slice(DSYM_ID_PREFIX.length) : identifier,
    releaseVersion: nonEmpty(plistString(info, 'CFBundleShortVersionString')),
    buildVersion: nonEmpty(plistString(info, 'CFBundleVersion')),
    objects,
  };
}

/** Reads the bundles `findDsymBundles` found, in archive order. */
export async function readDsymBundles(zip: ZipArchive, bundles: Map<string, ZipEntryInfo[]>): Promise<DsymBundle[]> {
  const result: DsymBundle[] = [];
  for (const [path, entries] of bundles) result.push(await readBundle(zip, path, entries));
  return result;
}

/**
 * The bundle of the app itself, whose versions are the debug file's and whose slices are "main"
 * (the others are extensions and frameworks): the one with `bundleId` when given, else the first
 * `.app.dSYM`, else the first bundle. Null when `bundleId` is given and no bundle has it.
 */
export function mainBundle(bundles: DsymBundle[], bundleId: string | null): DsymBundle | null {
  if (bundleId !== null) return bundles.find((b) => b.bundleId === bundleId) ?? null;
  return bundles.find((b) => /\.app\.dsym$/i.test(b.path)) ?? bundles[0] ?? null;
}
