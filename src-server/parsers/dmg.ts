/**
 * Reader of .dmg (macOS disk image): refuses them with advice.
 *
 * Reading the app's Info.plist out of a .dmg needs two layers: the UDIF container (a koly trailer,
 * an XML blkx table, and zlib/bzip2/LZFSE/LZMA-compressed blocks) and, inside it, the file system of
 * the volume (HFS+ or, since macOS 10.13's tools, APFS). On npm, `udif` / `@balena/udif` handle only
 * the first layer (and not LZFSE); there is no maintained HFS+ or APFS reader, and the packages named
 * "dmg" mount the image with hdiutil, which exists only on macOS. So a .dmg cannot be read here.
 */
import { ParseError, type BinaryReader } from './types.ts';

export const DMG_UNSUPPORTED = 'disk images (.dmg) cannot be read; upload the zipped .app instead';

export const dmgReader: BinaryReader = {
  format: 'dmg',
  extensions: ['.dmg'],
  async read() {
    throw new ParseError(DMG_UNSUPPORTED);
  },
};
