/**
 * Reading parts of a file at offsets (PE headers, compound-file sectors, squashfs blocks, ar and RPM
 * headers) without loading it whole. Every read is bounded: sizes taken from a file's own headers
 * are untrusted, so no single read may exceed MAX_READ_BYTES, and a read past the end of the file
 * is a ParseError saying the file is truncated.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { ParseError } from './types.ts';

/** The most one read may load into memory (a table, a stream, an icon, a directory). */
export const MAX_READ_BYTES = 32 * 1024 * 1024;

export class BinaryFile {
  private readonly handle: FileHandle;
  /** size of the file in bytes */
  readonly size: number;
  /** names the format in error messages: "an .exe" */
  readonly what: string;
  /** the start of messages about a damaged file: "not a valid .exe" */
  readonly invalid: string;

  private constructor(handle: FileHandle, size: number, what: string) {
    this.handle = handle;
    this.size = size;
    this.what = what;
    this.invalid = `not a valid ${what.replace(/^an? /, '')}`;
  }

  static async open(path: string, what: string): Promise<BinaryFile> {
    let handle: FileHandle;
    try {
      handle = await open(path, 'r');
    } catch (error) {
      throw new ParseError(`not ${what}: the file cannot be opened (${(error as Error).message})`, { cause: error });
    }
    const { size } = await handle.stat();
    return new BinaryFile(handle, size, what);
  }

  /**
   * Exactly `length` bytes at `offset`. `context` says what is being read, for the message when the
   * file ends too soon ("the PE header").
   */
  async read(offset: number, length: number, context: string): Promise<Buffer> {
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0) {
      throw new ParseError(`${this.invalid}: ${context} lies at an impossible position`);
    }
    if (length > MAX_READ_BYTES) throw new ParseError(`${this.invalid}: ${context} is too large to read (${length} bytes)`);
    if (offset + length > this.size) throw new ParseError(`${this.invalid}: the file is truncated (${context} lies beyond its end)`);
    const buffer = Buffer.alloc(length);
    let done = 0;
    while (done < length) {
      const { bytesRead } = await this.handle.read(buffer, done, length - done, offset + done);
      if (bytesRead === 0) throw new ParseError(`${this.invalid}: the file is truncated (${context} lies beyond its end)`);
      done += bytesRead;
    }
    return buffer;
  }

  /** Up to `length` bytes at `offset`: fewer when the file ends first. */
  async readUpTo(offset: number, length: number): Promise<Buffer> {
    if (offset >= this.size || length <= 0) return Buffer.alloc(0);
    return this.read(offset, Math.min(length, this.size - offset, MAX_READ_BYTES), 'the data');
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}

/** Opens a file, runs `use`, always closes it. */
export async function withFile<T>(path: string, what: string, use: (file: BinaryFile) => Promise<T>): Promise<T> {
  const file = await BinaryFile.open(path, what);
  try {
    return await use(file);
  } finally {
    await file.close();
  }
}
