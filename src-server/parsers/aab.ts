/**
 * Reader of .aab (Android App Bundle): the base module's protobuf manifest
 * (base/manifest/AndroidManifest.xml) and resource table (base/resources.pb), decoded by
 * android-proto.ts; the icon from base/res/ (android-icon.ts).
 */
import type { IconOptions } from './android-icon.ts';
import { readAndroidPackage, type AndroidLayout } from './android-package.ts';
import { parseProtoXml, ProtoResourceTable } from './android-proto.ts';
import type { AppMetadata, BinaryReader } from './types.ts';

const AAB: AndroidLayout = {
  format: 'aab',
  what: 'an .aab',
  manifestPath: 'base/manifest/AndroidManifest.xml',
  resourcesPath: 'base/resources.pb',
  root: 'base/',
  libPattern: /^base\/lib\/([^/]+)\//,
  parseXml: parseProtoXml,
  parseTable: (data) => new ProtoResourceTable(data),
  wrongFormatHint: (zip) => (zip.has('AndroidManifest.xml') ? 'this is an .apk: upload it as .apk' : null),
};

/** Reads an .aab; `options` are for tests of the icon drawing. */
export function readAab(path: string, options: IconOptions = {}): Promise<AppMetadata> {
  return readAndroidPackage(path, AAB, options);
}

export const aabReader: BinaryReader = {
  format: 'aab',
  extensions: ['.aab'],
  read: (path) => readAab(path),
};
