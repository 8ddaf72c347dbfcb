/**
 * Mach-O headers, thin or fat, 32- or 64-bit, in either byte order: for each slice its architecture,
 * its LC_UUID (what a crash report names a binary by) and its size.
 *
 * The file arrives as a stream (a zip entry, inflated as it is read) and is read front to back only
 * as far as the last slice's load commands; the caller then drops the stream. A dSYM's DWARF file
 * may be hundreds of megabytes, and what is needed lies in the first kilobytes of each slice.
 */
import { archName } from './apple.ts';
import { ParseError } from './types.ts';

export interface MachOSlice {
  /** as `lipo` names it: arm64, armv7, x86_64, ... */
  arch: string;
  /** LC_UUID, upper case with dashes (as `dwarfdump --uuid` prints it) */
  uuid: string;
  /** bytes of the slice (of the whole file when thin) */
  size: number;
}

const FAT_MAGIC = 0xcafebabe;
const FAT_MAGIC_64 = 0xcafebabf;
const MH_MAGIC = 0xfeedface;
const MH_MAGIC_64 = 0xfeedfacf;
const LC_UUID = 0x1b;
/** More slices than any real universal binary has; a Java class file (also 0xCAFEBABE) has far more. */
const MAX_FAT_ARCHS = 32;
/** Load commands are kilobytes; this bounds what a damaged header can make us hold. */
const MAX_LOAD_COMMANDS_BYTES = 16 * 1024 * 1024;

/** Reads a stream front to back in exact amounts, holding only what was asked for. */
class ForwardReader {
  private readonly chunks: AsyncIterator<Buffer>;
  private buffered: Buffer[] = [];
  private bufferedBytes = 0;
  /** offset in the stream of the next byte `read` returns */
  position = 0;
  private readonly fail: (message: string) => ParseError;

  constructor(stream: AsyncIterable<Buffer>, fail: (message: string) => ParseError) {
    this.chunks = stream[Symbol.asyncIterator]();
    this.fail = fail;
  }

  /** Buffers at least `length` bytes; false when the stream ends first. */
  private async fill(length: number): Promise<boolean> {
    while (this.bufferedBytes < length) {
      const next = await this.chunks.next();
      if (next.done) return false;
      this.buffered.push(next.value);
      this.bufferedBytes += next.value.length;
    }
    return true;
  }

  async peek(length: number, what: string): Promise<Buffer> {
    if (!(await this.fill(length))) throw this.fail(`the file ends inside ${what}`);
    if (this.buffered.length > 1) this.buffered = [Buffer.concat(this.buffered, this.bufferedBytes)];
    return this.buffered[0]!.subarray(0, length);
  }

  async read(length: number, what: string): Promise<Buffer> {
    const data = Buffer.from(await this.peek(length, what));
    this.buffered = [this.buffered[0]!.subarray(length)];
    this.bufferedBytes -= length;
    this.position += length;
    return data;
  }

  /** Discards everything up to `offset`, which must not lie behind. */
  async skipTo(offset: number, what: string): Promise<void> {
    if (offset < this.position) throw this.fail(`${what} overlaps what comes before it`);
    let left = offset - this.position;
    while (left > 0) {
      if (this.bufferedBytes === 0 && !(await this.fill(1))) throw this.fail(`the file ends before ${what}`);
      const head = this.buffered[0]!;
      const drop = Math.min(left, head.length);
      if (drop === head.length) this.buffered.shift();
      else this.buffered[0] = head.subarray(drop);
      this.bufferedBytes -= drop;
      this.position += drop;
      left -= drop;
    }
  }
}

interface FatArch {
  cpuType: number;
  cpuSubtype: number;
  offset: number;
  size: number;
}

function formatUuid(bytes: Buffer): string {
  const hex = bytes.toString('hex').toUpperCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The architecture and LC_UUID of the Mach-O header at the reader's position. */
async function readHeader(reader: ForwardReader, fail: (message: string) => ParseError, size: number): Promise<{ arch: string; uuid: string }> {
  const header = await reader.read(28, 'the Mach-O header');
  const little = header.readUInt32LE(0) === MH_MAGIC || header.readUInt32LE(0) === MH_MAGIC_64;
  const big = header.readUInt32BE(0) === MH_MAGIC || header.readUInt32BE(0) === MH_MAGIC_64;
  if (!little && !big) throw fail('it is not a Mach-O file');
  const u32 = (buf: Buffer, at: number) => (little ? buf.readUInt32LE(at) : buf.readUInt32BE(at));
  const i32 = (buf: Buffer, at: number) => (little ? buf.readInt32LE(at) : buf.readInt32BE(at));
  const arch = archName(i32(header, 4), i32(header, 8));
  const commands = u32(header, 16);
  const commandBytes = u32(header, 20);
  if (u32(header, 0) === MH_MAGIC_64) await reader.read(4, 'the Mach-O header'); // reserved
  if (commandBytes > MAX_LOAD_COMMANDS_BYTES || commandBytes > size) throw fail(`the ${arch} load commands claim ${commandBytes} bytes`);
  const table = await reader.read(commandBytes, `the ${arch} load commands`);
  for (let at = 0, i = 0; i < commands; i++) {
    if (at + 8 > table.length) throw fail(`the ${arch} load commands are damaged`);
    const command = u32(table, at);
    const commandSize = u32(table, at + 4);
    if (commandSize < 8 || at + commandSize > table.length) throw fail(`the ${arch} load commands are damaged`);
    if (command === LC_UUID && commandSize >= 24) return { arch, uuid: formatUuid(table.subarray(at + 8, at + 24)) };
    at += commandSize;
  }
  throw fail(`the ${arch} slice has no LC_UUID`);
}

/** The slice table of a fat file (the reader is past its magic), in the file's order. */
async function readFatArchs(reader: ForwardReader, fail: (message: string) => ParseError, fileSize: number): Promise<FatArch[]> {
  const head = await reader.read(8, 'the fat header');
  const wide = head.readUInt32BE(0) === FAT_MAGIC_64;
  const count = head.readUInt32BE(4);
  if (count === 0 || count > MAX_FAT_ARCHS) throw fail('it is not a Mach-O file');
  const entrySize = wide ? 32 : 20;
  const table = await reader.read(count * entrySize, 'the fat header');
  const archs: FatArch[] = [];
  for (let i = 0; i < count; i++) {
    const at = i * entrySize;
    const offset = wide ? Number(table.readBigUInt64BE(at + 8)) : table.readUInt32BE(at + 8);
    const size = wide ? Number(table.readBigUInt64BE(at + 16)) : table.readUInt32BE(at + 12);
    if (offset < 8 + table.length || offset + size > fileSize) throw fail(`slice ${i + 1} lies outside the file`);
    archs.push({ cpuType: table.readInt32BE(at), cpuSubtype: table.readInt32BE(at + 4), offset, size });
  }
  return archs;
}

/**
 * The slices of the Mach-O file in `stream` (`size` bytes long), in the order the file lists them.
 * `name` says which file it is in error messages. Reads only up to the last slice's load commands.
 */
export async function readMachOSlices(stream: AsyncIterable<Buffer>, size: number, name: string): Promise<MachOSlice[]> {
  const fail = (message: string) => new ParseError(`${name}: ${message}`);
  const reader = new ForwardReader(stream, fail);
  const magic = (await reader.peek(4, 'the Mach-O header')).readUInt32BE(0);
  if (magic !== FAT_MAGIC && magic !== FAT_MAGIC_64) return [{ ...(await readHeader(reader, fail, size)), size }];

  const archs = await readFatArchs(reader, fail, size);
  const slices = new Map<FatArch, MachOSlice>();
  // the stream only goes forward: visit the slices in the order they lie in the file
  for (const fat of [...archs].sort((a, b) => a.offset - b.offset)) {
    await reader.skipTo(fat.offset, `the ${archName(fat.cpuType, fat.cpuSubtype)} slice`);
    const { arch, uuid } = await readHeader(reader, fail, fat.size);
    slices.set(fat, { arch, uuid, size: fat.size });
  }
  return archs.map((fat) => slices.get(fat)!);
}
