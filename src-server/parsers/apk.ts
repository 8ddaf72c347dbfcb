/**
 * Reader of .apk (Android): the binary AndroidManifest.xml and resources.arsc at the root of the zip
 * (android-binary.ts), the icon from res/ (android-icon.ts).
 */
import { ArscTable, parseBinaryXml } from './android-binary.ts';
import type { IconOptions } from './android-icon.ts';
import { readAndroidPackage, type AndroidLayout } from './android-package.ts';
import type { AppMetadata, BinaryReader } from './types.ts';

const APK: AndroidLayout = {
  format: 'apk',
  what: 'an .apk',
  manifestPath: 'AndroidManifest.xml',
  resourcesPath: 'resources.arsc',
  root: '',
  libPattern: /^lib\/([^/]+)\//,
  parseXml: parseBinaryXml,
  parseTable: (data) => new ArscTable(data),
  wrongFormatHint: (zip) =>
    zip.has('base/manifest/AndroidManifest.xml') ? 'this is an Android App Bundle: upload it as .aab' : null,
};

/** Reads an .apk; `options` are for tests of the icon drawing. */
export function readApk(path: string, options: IconOptions = {}): Promise<AppMetadata> {
  return readAndroidPackage(path, APK, options);
}

export const apkReader: BinaryReader = {
  format: 'apk',
  extensions: ['.apk'],
  read: (path) => readApk(path),
};
