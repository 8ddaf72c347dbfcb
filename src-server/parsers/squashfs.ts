/**
 * A small read-only squashfs 4.0 reader, enough to list directories and read small files and
 * symlinks of an AppImage's file system without extracting it: superblock, inode table, directory
 * table, fragment table, regular files (blocks + tail fragment), symlinks. Compression: gzip (zlib),
 * xz and zstd; lzma, lzo and lz4 are refused with a ParseError.
 *
 * The image may start anywhere in a file (`base`: an AppImage's runtime comes first). Every number
 * read from the image is untrusted: reads are bounded (binfile.ts), metadata blocks are at most
 * 8 KiB, files and directories are capped, and path resolution counts symlink hops.
 *
 * Layout reference: the squashfs-tools sources (squashfs_fs.h) and "SquashFS binary format"
 * (dr-emann.github.io/squashfs).
 */
import type { BinaryFile } from './binfile.ts';
import { MAX_READ_BYTES } from './binfile.ts';
import { decompress, type Codec } from './decompress.ts';
import { ParseError } from './types.ts';

export const SQUASHFS_MAGIC = 0x73717368; // "hsqs", little-endian
const SUPERBLOCK_SIZE = 96;
const METADATA_SIZE = 8192;
const NO_FRAGMENT = 0xffffffff;
const UNCOMPRESSED_BLOCK = 0x1000000;
/** Symlinks followed while resolving one path (Linux allows 40). */
const MAX_SYMLINK_HOPS = 40;
/** Entries one directory may list. */
const MAX_DIRECTORY_ENTRIES = 100_000;
/** Decompressed metadata blocks kept in memory (8 KiB each: 32 MiB at most). */
const MAX_CACHED_BLOCKS = 4096;

const COMPRESSION: Record<number, string> = { 1: 'gzip', 2: 'lzma', 3: 'lzo', 4: 'xz', 5: 'lz4', 6: 'zstd' };
const CODEC: Record<string, Codec> = { gzip: 'zlib', xz: 'xz', zstd: 'zstd' };

export type InodeKind = 'directory' | 'file' | 'symlink' | 'other';

export interface Inode {
  kind: InodeKind;
  /** directories: where the listing starts in the directory table, and its size */
  dirBlock: number;
  dirOffset: number;
  dirSize: number;
  /** regular files */
  fileSize: number;
  blocksStart: number;
  fragment: number;
  fragmentOffset: number;
  blockSizes: number[];
  /** symlinks */
  target: string;
}

export interface DirEntry {
  name: string;
  /** reference of the entry's inode: (metadata block << 16) | offset */
  ref: number;
  kind: InodeKind;
}

function kindOf(type: number): InodeKind {
  switch (type) {
    case 1:
    case 8:
      return 'directory';
    case 2:
    case 9:
      return 'file';
    case 3:
    case 10:
      return 'symlink';
    default:
      return 'other';
  }
}

function u64(buffer: Buffer, offset: number, what: string): number {
  const value = buffer.readBigUInt64LE(offset);
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new ParseError(`the squashfs image is damaged (${what} is out of range)`);
  return Number(value);
}

/** Sequential reads through a metadata table, across block boundaries. */
class MetaCursor {
  private readonly fs: Squashfs;
  private block: number;
  private offset: number;

  constructor(fs: Squashfs, block: number, offset: number) {
    this.fs = fs;
    this.block = block;
    this.offset = offset;
  }

  async take(length: number): Promise<Buffer> {
    if (length > MAX_READ_BYTES) throw new ParseError('the squashfs image is damaged (a metadata record is too large)');
    const parts: Buffer[] = [];
    let needed = length;
    while (needed > 0) {
      const { data, next } = await this.fs.metadataBlock(this.block);
      if (this.offset >= data.length) {
        if (this.offset > data.length) throw new ParseError('the squashfs image is damaged (a metadata reference points past its block)');
        this.block = next;
        this.offset = 0;
        continue;
      }
      const part = data.subarray(this.offset, Math.min(data.length, this.offset + needed));
      parts.push(part);
      needed -= part.length;
      this.offset += part.length;
    }
    return Buffer.concat(parts, length);
  }
}

export class Squashfs {
  private readonly file: BinaryFile;
  /** file offset of the superblock: every table position is relative to it */
  private readonly base: number;
  readonly compression: string;
  private readonly codec: Codec;
  readonly blockSize: number;
  private readonly bytesUsed: number;
  private readonly rootRef: number;
  private readonly inodeTable: number;
  private readonly directoryTable: number;
  private readonly fragmentTable: number;
  private readonly fragmentCount: number;
  private readonly cache = new Map<number, { data: Buffer; next: number }>();
  private readonly listings = new Map<number, DirEntry[]>();

  private constructor(file: BinaryFile, base: number, superblock: Buffer) {
    this.file = file;
    this.base = base;
    const compressionId = superblock.readUInt16LE(20);
    this.compression = COMPRESSION[compressionId] ?? `unknown (${compressionId})`;
    const codec = CODEC[this.compression];
    if (!codec) throw new ParseError(`unsupported squashfs compression: ${this.compression} (Hangar reads gzip, xz and zstd)`);
    this.codec = codec;
    this.blockSize = superblock.readUInt32LE(12);
    const blockLog = superblock.readUInt16LE(22);
    if (this.blockSize < 4096 || this.blockSize > 1024 * 1024 || 2 ** blockLog !== this.blockSize) {
      throw new ParseError(`the squashfs image is damaged (block size ${this.blockSize})`);
    }
    this.fragmentCount = superblock.readUInt32LE(16);
    this.rootRef = u64(superblock, 32, 'the root inode');
    this.bytesUsed = u64(superblock, 40, 'its size');
    this.inodeTable = u64(superblock, 64, 'the inode table');
    this.directoryTable = u64(superblock, 72, 'the directory table');
    this.fragmentTable = superblock.readBigUInt64LE(80) === 0xffffffffffffffffn ? -1 : u64(superblock, 80, 'the fragment table');
    if (base + this.bytesUsed > file.size) throw new ParseError('the squashfs image is truncated (the file ends before the image does)');
    if (this.inodeTable >= this.bytesUsed || this.directoryTable >= this.bytesUsed) throw new ParseError('the squashfs image is damaged (its tables lie outside it)');
  }

  /** Reads the superblock at `base`. */
  static async open(file: BinaryFile, base: number): Promise<Squashfs> {
    const superblock = await file.read(base, SUPERBLOCK_SIZE, 'the squashfs superblock');
    if (superblock.readUInt32LE(0) !== SQUASHFS_MAGIC) throw new ParseError('no squashfs image found (bad magic number)');
    const major = superblock.readUInt16LE(28);
    const minor = superblock.readUInt16LE(30);
    if (major !== 4 || minor !== 0) throw new ParseError(`unsupported squashfs version ${major}.${minor} (Hangar reads 4.0)`);
    return new Squashfs(file, base, superblock);
  }

  /** The decompressed metadata block at `position` (relative to the image) and where the next starts. */
  async metadataBlock(position: number): Promise<{ data: Buffer; next: number }> {
    const cached = this.cache.get(position);
    if (cached) return cached;
    if (position < 0 || position + 2 > this.bytesUsed) throw new ParseError('the squashfs image is damaged (a metadata block lies outside it)');
    const header = (await this.file.read(this.base + position, 2, 'a squashfs metadata block')).readUInt16LE(0);
    const size = header & 0x7fff;
    if (size === 0 || size > METADATA_SIZE) throw new ParseError('the squashfs image is damaged (bad metadata block size)');
    const stored = await this.file.read(this.base + position + 2, size, 'a squashfs metadata block');
    const data = header & 0x8000 ? stored : await this.inflate(stored, METADATA_SIZE);
    const block = { data, next: position + 2 + size };
    if (this.cache.size >= MAX_CACHED_BLOCKS) this.cache.clear();
    this.cache.set(position, block);
    return block;
  }

  private async inflate(data: Buffer, limit: number): Promise<Buffer> {
    return decompress(this.codec, data, `a ${this.compression}-compressed squashfs block`, limit);
  }

  private cursor(table: number, ref: number): MetaCursor {
    return new MetaCursor(this, table + Math.floor(ref / 0x10000), ref % 0x10000);
  }

  async root(): Promise<Inode> {
    return this.inode(this.rootRef);
  }

  /** Decodes the inode at reference `ref` ((block << 16) | offset in the inode table). */
  async inode(ref: number): Promise<Inode> {
    const cursor = this.cursor(this.inodeTable, ref);
    const common = await cursor.take(16);
    const type = common.readUInt16LE(0);
    const inode: Inode = { kind: kindOf(type), dirBlock: 0, dirOffset: 0, dirSize: 0, fileSize: 0, blocksStart: 0, fragment: NO_FRAGMENT, fragmentOffset: 0, blockSizes: [], target: '' };
    switch (type) {
      case 1: {
        const b = await cursor.take(16);
        inode.dirBlock = b.readUInt32LE(0);
        inode.dirSize = b.readUInt16LE(8);
        inode.dirOffset = b.readUInt16LE(10);
        break;
      }
      case 8: {
        const b = await cursor.take(24);
        inode.dirSize = b.readUInt32LE(4);
        inode.dirBlock = b.readUInt32LE(8);
        inode.dirOffset = b.readUInt16LE(18);
        break;
      }
      case 2: {
        const b = await cursor.take(16);
        inode.blocksStart = b.readUInt32LE(0);
        inode.fragment = b.readUInt32LE(4);
        inode.fragmentOffset = b.readUInt32LE(8);
        inode.fileSize = b.readUInt32LE(12);
        inode.blockSizes = await this.blockList(cursor, inode);
        break;
      }
      case 9: {
        const b = await cursor.take(40);
        inode.blocksStart = u64(b, 0, 'a file position');
        inode.fileSize = u64(b, 8, 'a file size');
        inode.fragment = b.readUInt32LE(28);
        inode.fragmentOffset = b.readUInt32LE(32);
        inode.blockSizes = await this.blockList(cursor, inode);
        break;
      }
      case 3:
      case 10: {
        const b = await cursor.take(8);
        const length = b.readUInt32LE(4);
        if (length > 4096) throw new ParseError('the squashfs image is damaged (a symlink target is too long)');
        inode.target = (await cursor.take(length)).toString('utf8');
        break;
      }
      default:
        if (type < 1 || type > 14) throw new ParseError(`the squashfs image is damaged (unknown inode type ${type})`);
    }
    return inode;
  }

  private async blockList(cursor: MetaCursor, inode: Inode): Promise<number[]> {
    // Only files we may read have their block list decoded; the list of a huge file is not needed.
    const full = Math.floor(inode.fileSize / this.blockSize);
    const count = inode.fragment === NO_FRAGMENT ? Math.ceil(inode.fileSize / this.blockSize) : full;
    if (inode.fileSize > MAX_READ_BYTES) return [];
    const list = await cursor.take(count * 4);
    return Array.from({ length: count }, (_, i) => list.readUInt32LE(i * 4));
  }

  /** The entries of a directory inode. */
  async list(dir: Inode): Promise<DirEntry[]> {
    if (dir.kind !== 'directory') throw new ParseError('the squashfs image is damaged (a listing of something that is not a directory)');
    const key = dir.dirBlock * 0x10000 + dir.dirOffset;
    const known = this.listings.get(key);
    if (known) return known;
    const size = dir.dirSize - 3; // the size counts the implicit "." and ".." entries
    if (size <= 0) return [];
    if (size > MAX_READ_BYTES) throw new ParseError('the squashfs image is damaged (a directory is too large)');
    const data = await this.cursor(this.directoryTable, key).take(size);
    const entries: DirEntry[] = [];
    let offset = 0;
    while (offset + 12 <= data.length) {
      const count = data.readUInt32LE(offset) + 1;
      const start = data.readUInt32LE(offset + 4);
      offset += 12;
      if (count > 256) throw new ParseError('the squashfs image is damaged (a directory header is invalid)');
      for (let i = 0; i < count; i++) {
        if (offset + 8 > data.length) throw new ParseError('the squashfs image is damaged (a directory entry is cut short)');
        const inodeOffset = data.readUInt16LE(offset);
        const type = data.readUInt16LE(offset + 4);
        const nameSize = data.readUInt16LE(offset + 6) + 1;
        if (offset + 8 + nameSize > data.length) throw new ParseError('the squashfs image is damaged (a directory entry is cut short)');
        const name = data.subarray(offset + 8, offset + 8 + nameSize).toString('utf8');
        offset += 8 + nameSize;
        entries.push({ name, ref: start * 0x10000 + inodeOffset, kind: kindOf(type) });
        if (entries.length > MAX_DIRECTORY_ENTRIES) throw new ParseError('the squashfs image has a directory with too many entries');
      }
    }
    if (this.listings.size < 1024) this.listings.set(key, entries);
    return entries;
  }

  /**
   * Resolves a path ("usr/share/icons/x.png", relative to the root), following symlinks along the
   * way, and the last one too. Null when it does not exist or leaves the image (an absolute symlink
   * target, or ".." above the root).
   */
  async lookup(path: string): Promise<Inode | null> {
    let pending = path.split('/').filter((c) => c !== '' && c !== '.');
    let hops = 0;
    for (;;) {
      const stack: Inode[] = [await this.root()];
      const names: string[] = [];
      let restart: string[] | null = null;
      for (let i = 0; i < pending.length; i++) {
        const component = pending[i]!;
        if (component === '..') {
          if (stack.length === 1) return null;
          stack.pop();
          names.pop();
          continue;
        }
        const dir = stack[stack.length - 1]!;
        if (dir.kind !== 'directory') return null;
        const entry = (await this.list(dir)).find((e) => e.name === component);
        if (!entry) return null;
        const inode = await this.inode(entry.ref);
        if (inode.kind === 'symlink') {
          if (++hops > MAX_SYMLINK_HOPS) throw new ParseError('the squashfs image has a symlink loop');
          if (inode.target.startsWith('/')) return null;
          restart = [...names, ...inode.target.split('/'), ...pending.slice(i + 1)].filter((c) => c !== '' && c !== '.');
          break;
        }
        stack.push(inode);
        names.push(component);
      }
      if (restart === null) return stack[stack.length - 1]!;
      pending = restart;
    }
  }

  /** The whole content of a regular file, refused when larger than `limit` bytes. */
  async readFile(inode: Inode, limit = MAX_READ_BYTES): Promise<Buffer> {
    if (inode.kind !== 'file') throw new ParseError('the squashfs image is damaged (a read of something that is not a file)');
    if (inode.fileSize > Math.min(limit, MAX_READ_BYTES)) throw new ParseError(`a file in the squashfs image is too large to read (${inode.fileSize} bytes)`);
    const parts: Buffer[] = [];
    let position = inode.blocksStart;
    let remaining = inode.fileSize;
    for (const entry of inode.blockSizes) {
      const want = Math.min(this.blockSize, remaining);
      const size = entry & 0xffffff;
      if (size === 0) {
        parts.push(Buffer.alloc(want)); // a sparse block
      } else {
        if (position + size > this.bytesUsed) throw new ParseError('the squashfs image is damaged (a data block lies outside it)');
        const stored = await this.file.read(this.base + position, size, 'a squashfs data block');
        const data = entry & UNCOMPRESSED_BLOCK ? stored : await this.inflate(stored, this.blockSize);
        parts.push(data.subarray(0, want));
        position += size;
      }
      remaining -= want;
    }
    if (remaining > 0) {
      if (inode.fragment === NO_FRAGMENT) throw new ParseError('the squashfs image is damaged (a file is shorter than its size)');
      const fragment = await this.fragmentBlock(inode.fragment);
      if (inode.fragmentOffset + remaining > fragment.length) throw new ParseError('the squashfs image is damaged (a file tail lies outside its fragment)');
      parts.push(fragment.subarray(inode.fragmentOffset, inode.fragmentOffset + remaining));
    }
    return Buffer.concat(parts, inode.fileSize);
  }

  private async fragmentBlock(index: number): Promise<Buffer> {
    if (this.fragmentTable < 0 || index >= this.fragmentCount) throw new ParseError('the squashfs image is damaged (a file names a missing fragment)');
    const pointer = await this.file.read(this.base + this.fragmentTable + 8 * Math.floor(index / 512), 8, 'the squashfs fragment table');
    const entry = await new MetaCursor(this, u64(pointer, 0, 'a fragment table block'), (index % 512) * 16).take(16);
    const start = u64(entry, 0, 'a fragment');
    const sizeField = entry.readUInt32LE(8);
    const size = sizeField & 0xffffff;
    if (size === 0 || size > this.blockSize || start + size > this.bytesUsed) throw new ParseError('the squashfs image is damaged (a fragment lies outside it)');
    const stored = await this.file.read(this.base + start, size, 'a squashfs fragment');
    return sizeField & UNCOMPRESSED_BLOCK ? stored : this.inflate(stored, this.blockSize);
  }
}
