/**
 * Picks the reader for an uploaded file by its name, and runs it. Each format lives in its own
 * module; this is the only list of them.
 */
import { extname } from 'node:path';
import { appImageReader } from './appimage.ts';
import { aabReader } from './aab.ts';
import { apkReader } from './apk.ts';
import { debReader } from './deb.ts';
import { dmgReader } from './dmg.ts';
import { exeReader } from './exe.ts';
import { hapReader, harmonyAppReader } from './harmony.ts';
import { ipaReader } from './ipa.ts';
import { macosAppReader } from './macos.ts';
import { msiReader } from './msi.ts';
import { rpmReader } from './rpm.ts';
import { ParseError, type AppMetadata, type BinaryReader } from './types.ts';

export type { AppMetadata, BinaryFormat, BinaryReader, IosReleaseType, ProvisioningProfile } from './types.ts';
export { ParseError } from './types.ts';

export const READERS: readonly BinaryReader[] = [
  ipaReader,
  apkReader,
  aabReader,
  macosAppReader,
  dmgReader,
  hapReader,
  harmonyAppReader,
  exeReader,
  msiReader,
  appImageReader,
  debReader,
  rpmReader,
];

/** The extension a file name claims, lower case, with compound ones (".app.zip") kept whole. */
export function claimedExtension(fileName: string): string {
  const lower = fileName.toLowerCase();
  if (lower.endsWith('.app.zip')) return '.app.zip';
  return extname(lower);
}

export function readerFor(fileName: string): BinaryReader {
  const extension = claimedExtension(fileName);
  const reader = READERS.find((r) => r.extensions.includes(extension));
  if (!reader) {
    const known = [...new Set(READERS.flatMap((r) => r.extensions))].join(', ');
    throw new ParseError(`unsupported file type "${extension || fileName}": Hangar reads ${known}`);
  }
  return reader;
}

/** Reads the metadata of the file at `path`, named `fileName` by its uploader. Throws ParseError. */
export async function readBinary(path: string, fileName: string): Promise<AppMetadata> {
  const reader = readerFor(fileName);
  try {
    return await reader.read(path, fileName);
  } catch (error) {
    if (error instanceof ParseError) throw error;
    // A reader that fails in a way it did not foresee still means: this file cannot be read.
    throw new ParseError(`not a readable ${reader.extensions[0]} file: ${(error as Error).message}`, { cause: error });
  }
}
