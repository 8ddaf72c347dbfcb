/**
 * What .apk and .aab readers share: find the manifest and resource table in the zip, decode them
 * with the encoding of the format, and turn what they say into AppMetadata. Only the entries
 * needed are read (the manifest, the resource table, a few icon files), each capped in size.
 */
import { findAndroidIcon, type AndroidResources, type IconOptions } from './android-icon.ts';
import { readAndroidManifest, type AndroidManifestInfo } from './android-manifest.ts';
import type { ResourceTable, XmlElement } from './android-model.ts';
import { ParseError, type AppMetadata, type BinaryFormat } from './types.ts';
import { MAX_ENTRY_BYTES, withZip, type ZipArchive } from './zip.ts';

/** The most an icon file (or an XML drawable) may inflate to. */
const MAX_ICON_FILE_BYTES = 8 * 1024 * 1024;
/** The most a manifest may inflate to (real ones are kilobytes). */
const MAX_MANIFEST_BYTES = 8 * 1024 * 1024;

export interface AndroidLayout {
  format: Extract<BinaryFormat, 'apk' | 'aab'>;
  /** "an .apk": for messages */
  what: string;
  manifestPath: string;
  resourcesPath: string;
  /** what a resource table's file paths (res/...) are relative to: '' or 'base/' */
  root: string;
  /** native libraries: lib/<abi>/ or base/lib/<abi>/ */
  libPattern: RegExp;
  parseXml(data: Buffer): XmlElement;
  parseTable(data: Buffer): ResourceTable;
  /** why a zip without the manifest may have been uploaded under the wrong name */
  wrongFormatHint(zip: ZipArchive): string | null;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A table whose damaged entries (found only when looked up) read as absent. */
function forgiving(table: ResourceTable): ResourceTable {
  return {
    lookup(id) {
      try {
        return table.lookup(id);
      } catch {
        return [];
      }
    },
    idOf(name) {
      try {
        return table.idOf(name);
      } catch {
        return 0;
      }
    },
  };
}

export async function readAndroidPackage(path: string, layout: AndroidLayout, options: IconOptions = {}): Promise<AppMetadata> {
  return withZip(path, layout.what, async (zip) => {
    if (!zip.has(layout.manifestPath)) {
      const hint = layout.wrongFormatHint(zip);
      throw new ParseError(`not ${layout.what}: ${layout.manifestPath} is missing${hint ? ` (${hint})` : ''}`);
    }
    let manifestData: Buffer;
    try {
      manifestData = await zip.read(layout.manifestPath, MAX_MANIFEST_BYTES);
    } catch (error) {
      throw new ParseError(`not ${layout.what}: ${message(error)}`, { cause: error });
    }
    let root: XmlElement;
    try {
      root = layout.parseXml(manifestData);
    } catch (error) {
      throw new ParseError(`not ${layout.what}: ${layout.manifestPath} cannot be decoded (${message(error)})`, { cause: error });
    }

    // A damaged or oversized resource table costs the label and icon, not the upload.
    let table: ResourceTable | null = null;
    if (zip.has(layout.resourcesPath)) {
      try {
        table = forgiving(layout.parseTable(await zip.read(layout.resourcesPath, MAX_ENTRY_BYTES)));
      } catch {
        table = null;
      }
    }

    let info: AndroidManifestInfo;
    try {
      info = readAndroidManifest(root, table);
    } catch (error) {
      throw new ParseError(`not ${layout.what}: ${layout.manifestPath} is not a usable manifest: ${message(error)}`, { cause: error });
    }

    const resources: AndroidResources = {
      table,
      parseXml: layout.parseXml,
      async readFile(file: string): Promise<Buffer | null> {
        const name = layout.root + file;
        if (!zip.has(name)) return null;
        try {
          return await zip.read(name, MAX_ICON_FILE_BYTES);
        } catch {
          return null;
        }
      },
    };
    let icon: Buffer | null = null;
    try {
      icon = await findAndroidIcon(info.icon, resources, options);
    } catch {
      icon = null;
    }

    const abis = new Set<string>();
    for (const entry of zip.entries) {
      const match = layout.libPattern.exec(entry.name);
      if (match?.[1] && entry.name.endsWith('.so')) abis.add(match[1]);
    }

    const buildVersion = info.versionCode ?? '0'; // Android's default versionCode
    const extra: Record<string, unknown> = {
      targetSdkVersion: info.targetSdkVersion,
      permissions: info.permissions,
      debuggable: info.debuggable,
    };
    if (info.compileSdkVersion !== null) extra.compileSdkVersion = info.compileSdkVersion;
    if (Object.keys(info.localizedLabels).length > 0) extra.localizedLabels = info.localizedLabels;
    if (abis.size > 0) extra.abis = [...abis].sort();

    return {
      format: layout.format,
      platform: 'android',
      bundleId: info.package,
      releaseVersion: info.versionName ?? buildVersion,
      buildVersion,
      displayName: info.label ?? info.package,
      deviceFamily: info.deviceFamily,
      minOsVersion: info.minSdkVersion,
      icon,
      releaseType: null,
      provisioning: null,
      extra,
    };
  });
}
