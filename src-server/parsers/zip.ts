/**
 * Reading zip archives (ipa, apk, aab, hap, zipped .app) without loading them whole: yauzl reads
 * the central directory, then only the entries asked for. Every read is capped, so a crafted
 * archive (a zip bomb, an entry that lies about its size) cannot exhaust memory.
 */
import yauzl from 'yauzl';
import { ParseError } from './types.ts';

/** The most a single entry may inflate to when read into memory (manifests, plists, icons). */
export const MAX_ENTRY_BYTES = 32 * 1024 * 1024;

export interface ZipEntryInfo {
  name: string;
  compressedSize: number;
  uncompressedSize: number;
}

export class ZipArchive {
  private readonly zip: yauzl.ZipFile;
  readonly entries: ZipEntryInfo[];
  private readonly byName: Map<string, yauzl.Entry>;

  private constructor(zip: yauzl.ZipFile, entries: yauzl.Entry[]) {
    this.zip = zip;
    this.byName = new Map(entries.map((e) => [e.fileName, e]));
    this.entries = entries.map((e) => ({ name: e.fileName, compressedSize: e.compressedSize, uncompressedSize: e.uncompressedSize }));
  }

  /** Opens a zip; `what` names the format in error messages ("an .ipa"). */
  static async open(path: string, what: string): Promise<ZipArchive> {
    const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
      yauzl.open(path, { lazyEntries: true, autoClose: false, strictFileNames: false, validateEntrySizes: true }, (error, file) =>
        error ? reject(new ParseError(`not ${what}: it is not a readable zip archive (${error.message})`, { cause: error })) : resolve(file),
      ),
    );
    const entries: yauzl.Entry[] = [];
    await new Promise<void>((resolve, reject) => {
      zip.on('entry', (entry: yauzl.Entry) => {
        entries.push(entry);
        zip.readEntry();
      });
      zip.on('end', () => resolve());
      zip.on('error', (error: Error) => reject(new ParseError(`not ${what}: its zip directory is damaged (${error.message})`, { cause: error })));
      zip.readEntry();
    }).catch((error) => {
      zip.close();
      throw error;
    });
    return new ZipArchive(zip, entries);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** Entry names matching a pattern, in archive order. */
  find(pattern: RegExp): string[] {
    return this.entries.filter((e) => pattern.test(e.name)).map((e) => e.name);
  }

  /** Reads one entry into memory, refusing entries that inflate beyond `limit` bytes. */
  async read(name: string, limit = MAX_ENTRY_BYTES): Promise<Buffer> {
    const entry = this.byName.get(name);
    if (!entry) throw new ParseError(`${name} is missing from the archive`);
    if (entry.uncompressedSize > limit) throw new ParseError(`${name} is too large to read (${entry.uncompressedSize} bytes)`);
    const stream = await new Promise<NodeJS.ReadableStream>((resolve, reject) =>
      this.zip.openReadStream(entry, (error, s) => (error ? reject(new ParseError(`${name} cannot be read: ${error.message}`, { cause: error })) : resolve(s))),
    );
    const chunks: Buffer[] = [];
    let total = 0;
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        total += chunk.length;
        if (total > limit) throw new ParseError(`${name} inflates beyond ${limit} bytes`);
        chunks.push(chunk);
      }
    } catch (error) {
      if (error instanceof ParseError) throw error;
      throw new ParseError(`${name} is damaged: ${(error as Error).message}`, { cause: error });
    }
    return Buffer.concat(chunks, total);
  }

  /** Opens one entry as a stream (for nested archives read on disk); capped like read(). */
  async stream(name: string): Promise<NodeJS.ReadableStream> {
    const entry = this.byName.get(name);
    if (!entry) throw new ParseError(`${name} is missing from the archive`);
    return new Promise((resolve, reject) =>
      this.zip.openReadStream(entry, (error, s) => (error ? reject(new ParseError(`${name} cannot be read: ${error.message}`, { cause: error })) : resolve(s))),
    );
  }

  close(): void {
    this.zip.close();
  }
}

/** Opens a zip, runs `use`, always closes it. */
export async function withZip<T>(path: string, what: string, use: (zip: ZipArchive) => Promise<T>): Promise<T> {
  const zip = await ZipArchive.open(path, what);
  try {
    return await use(zip);
  } finally {
    zip.close();
  }
}

/** Entries macOS adds to the zips it makes (resource forks, Finder metadata): never part of what was zipped. */
export function isMacOsJunk(name: string): boolean {
  return name.startsWith('__MACOSX/') || /(^|\/)\._/.test(name) || /(^|\/)\.DS_Store$/.test(name);
}
