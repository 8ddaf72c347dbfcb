/**
 * Debug-symbol archives (R15): which kind a zip is (dSYM bundles, or Android mapping files), read by
 * dsym.ts or proguard.ts.
 *
 * These zips come from CI and are read by the server, so they are guarded before anything inflates:
 * a zip holding more entries, or inflating to more bytes in all, than the limits allow is refused (a
 * zip bomb); yauzl checks that no entry inflates beyond the size the directory gives it, and refuses
 * entry names that are absolute or climb out with `..` (nothing is ever extracted to disk anyway).
 */
import { findDsymBundles, readDsymBundles, type DsymBundle } from './dsym.ts';
import { findAndroidEntries, readProguardArchive, type ProguardArchive } from './proguard.ts';
import { ParseError } from './types.ts';
import { isMacOsJunk, withZip, type ZipEntryInfo } from './zip.ts';

export interface ArchiveLimits {
  /** the most the entries may inflate to, together */
  maxUncompressedBytes: number;
  maxEntries: number;
}

export type DebugArchive = { kind: 'dsym'; bundles: DsymBundle[] } | ({ kind: 'proguard' } & ProguardArchive);

const WHAT = 'a debug-symbol zip';
const NEITHER =
  'not a debug-symbol archive: it holds neither a dSYM bundle (<name>.dSYM/Contents/Resources/DWARF/<binary>) ' +
  'nor Android mapping files (mapping.txt, R.txt or AndroidManifest.xml)';

function assertWithinLimits(entries: ZipEntryInfo[], limits: ArchiveLimits): void {
  if (entries.length > limits.maxEntries) {
    throw new ParseError(`the archive holds ${entries.length} entries; this server takes at most ${limits.maxEntries}`);
  }
  const inflated = entries.reduce((sum, e) => sum + e.uncompressedSize, 0);
  if (inflated > limits.maxUncompressedBytes) {
    throw new ParseError(`the archive inflates to ${inflated} bytes; this server takes at most ${limits.maxUncompressedBytes}`);
  }
}

/** Reads the debug-symbol zip at `path`. Throws ParseError when it is refused or cannot be read. */
export async function readDebugArchive(path: string, limits: ArchiveLimits): Promise<DebugArchive> {
  try {
    return await withZip(path, WHAT, async (zip) => {
      assertWithinLimits(zip.entries, limits);
      const files = zip.entries.filter((e) => !e.name.endsWith('/') && !isMacOsJunk(e.name));
      const dsyms = findDsymBundles(files);
      const android = findAndroidEntries(files.map((f) => f.name));
      const isAndroid = android.mapping !== null || android.symbols !== null || android.manifest !== null;
      if (dsyms.size > 0 && isAndroid) throw new ParseError('the archive holds both dSYM bundles and Android mapping files: upload them separately');
      if (dsyms.size > 0) return { kind: 'dsym', bundles: await readDsymBundles(zip, dsyms) };
      if (isAndroid) return { kind: 'proguard', ...(await readProguardArchive(zip, android, files)) };
      throw new ParseError(NEITHER);
    });
  } catch (error) {
    if (error instanceof ParseError) throw error;
    // an entry whose data is damaged (a bad deflate stream, a size that lies) fails while it inflates
    throw new ParseError(`not a readable debug-symbol zip: ${(error as Error).message}`, { cause: error });
  }
}
