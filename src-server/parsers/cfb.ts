/**
 * A read-only reader of OLE compound files (MS-CFB: .msi, .doc, ...) that reads sectors at offsets
 * instead of loading the file: the header, the DIFAT, FAT sectors on demand, the directory, and the
 * streams asked for (regular or mini streams). Chains are walked with cycle and length guards, and
 * streams are capped (binfile.ts MAX_READ_BYTES unless a smaller limit is given).
 */
import { MAX_READ_BYTES, type BinaryFile } from './binfile.ts';
import { ParseError } from './types.ts';

const SIGNATURE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
const END_OF_CHAIN = 0xfffffffe;
const FREE_SECTOR = 0xffffffff;
const MAX_REGULAR = 0xfffffffa;
const NO_STREAM = 0xffffffff;
const MAX_CACHED_FAT_SECTORS = 8192;

export interface CfbEntry {
  name: string;
  /** 1 storage, 2 stream, 5 root */
  type: number;
  left: number;
  right: number;
  child: number;
  start: number;
  size: number;
}

export class CompoundFile {
  private readonly file: BinaryFile;
  private readonly sectorSize: number;
  private readonly miniSectorSize: number;
  private readonly miniCutoff: number;
  private readonly miniFatStart: number;
  private readonly difat: number[];
  private readonly fatCache = new Map<number, Buffer>();
  private readonly sectorCount: number;
  readonly entries: CfbEntry[];
  private miniFat: Buffer | null = null;
  private miniStream: number[] | null = null;

  private constructor(file: BinaryFile, header: Buffer, difat: number[], entries: CfbEntry[]) {
    this.file = file;
    this.sectorSize = 1 << header.readUInt16LE(0x1e);
    this.miniSectorSize = 1 << header.readUInt16LE(0x20);
    this.miniCutoff = header.readUInt32LE(0x38);
    this.miniFatStart = header.readUInt32LE(0x3c);
    this.difat = difat;
    this.sectorCount = Math.ceil(file.size / this.sectorSize);
    this.entries = entries;
  }

  static async open(file: BinaryFile): Promise<CompoundFile> {
    const header = await file.readUpTo(0, 512);
    if (header.length < 8 || !header.subarray(0, 8).equals(SIGNATURE)) throw new ParseError(`not ${file.what}: it is not an OLE compound file (bad signature)`);
    if (header.length < 512) throw new ParseError(`${file.invalid}: the file is truncated (the compound file header is incomplete)`);
    const major = header.readUInt16LE(0x1a);
    const shift = header.readUInt16LE(0x1e);
    const miniShift = header.readUInt16LE(0x20);
    if ((major !== 3 && major !== 4) || (shift !== 9 && shift !== 12) || miniShift !== 6) {
      throw new ParseError(`${file.invalid}: unsupported compound file version ${major} (sector shift ${shift})`);
    }
    const sectorSize = 1 << shift;
    const sectorCount = Math.ceil(file.size / sectorSize);
    const fatCount = header.readUInt32LE(0x2c);
    if (fatCount > sectorCount) throw new ParseError(`${file.invalid}: its compound file header is damaged`);

    // The DIFAT: the first 109 FAT sector numbers are in the header, the rest in a chain of sectors.
    const difat: number[] = [];
    for (let i = 0; i < 109 && difat.length < fatCount; i++) difat.push(header.readUInt32LE(0x4c + i * 4));
    let next = header.readUInt32LE(0x44);
    const seen = new Set<number>();
    while (difat.length < fatCount && next <= MAX_REGULAR) {
      if (seen.has(next) || seen.size > sectorCount) throw new ParseError(`${file.invalid}: its sector allocation is damaged (a DIFAT loop)`);
      seen.add(next);
      const sector = await file.read((next + 1) * sectorSize, sectorSize, 'a DIFAT sector');
      const perSector = sectorSize / 4 - 1;
      for (let i = 0; i < perSector && difat.length < fatCount; i++) difat.push(sector.readUInt32LE(i * 4));
      next = sector.readUInt32LE(perSector * 4);
    }

    const cfb = new CompoundFile(file, header, difat, []);
    const directory = await cfb.readChain(header.readUInt32LE(0x30), MAX_READ_BYTES);
    const entries: CfbEntry[] = [];
    const v3 = major === 3;
    for (let at = 0; at + 128 <= directory.length; at += 128) {
      const nameLength = Math.min(directory.readUInt16LE(at + 64), 64);
      const sizeLow = directory.readUInt32LE(at + 120);
      const sizeHigh = v3 ? 0 : directory.readUInt32LE(at + 124);
      entries.push({
        name: directory.toString('utf16le', at, at + Math.max(nameLength - 2, 0)),
        type: directory[at + 66]!,
        left: directory.readUInt32LE(at + 68),
        right: directory.readUInt32LE(at + 72),
        child: directory.readUInt32LE(at + 76),
        start: directory.readUInt32LE(at + 116),
        size: sizeHigh * 0x100000000 + sizeLow,
      });
    }
    if (entries[0]?.type !== 5) throw new ParseError(`${file.invalid}: its compound file directory has no root entry`);
    cfb.entries.push(...entries);
    return cfb;
  }

  private damaged(detail: string): ParseError {
    return new ParseError(`${this.file.invalid}: its compound file is damaged (${detail})`);
  }

  private async nextSector(sector: number): Promise<number> {
    const perSector = this.sectorSize / 4;
    const fatIndex = Math.floor(sector / perSector);
    const fatSector = this.difat[fatIndex];
    if (fatSector === undefined || fatSector > MAX_REGULAR) throw this.damaged('a sector outside the allocation table');
    let fat = this.fatCache.get(fatSector);
    if (!fat) {
      fat = await this.file.read((fatSector + 1) * this.sectorSize, this.sectorSize, 'a FAT sector');
      if (this.fatCache.size >= MAX_CACHED_FAT_SECTORS) this.fatCache.clear();
      this.fatCache.set(fatSector, fat);
    }
    return fat.readUInt32LE((sector % perSector) * 4);
  }

  /**
   * The sector numbers of a chain. `limit` bytes' worth at most: beyond that, a chain whose length
   * is known (`sized`) is cut, any other is refused as too large.
   */
  private async chain(start: number, limit: number, sized: boolean): Promise<number[]> {
    const sectors: number[] = [];
    const seen = new Set<number>();
    const max = Math.ceil(limit / this.sectorSize);
    let sector = start;
    while (sector !== END_OF_CHAIN && sector !== FREE_SECTOR) {
      if (sector > MAX_REGULAR || sector >= this.sectorCount) throw this.damaged('a chain points outside the file');
      if (seen.has(sector)) throw this.damaged('a sector chain loops');
      if (sectors.length >= max) {
        if (sized) break;
        throw new ParseError(`${this.file.invalid}: a stream is too large to read`);
      }
      seen.add(sector);
      sectors.push(sector);
      sector = await this.nextSector(sector);
    }
    return sectors;
  }

  private async readChain(start: number, limit: number, size?: number): Promise<Buffer> {
    const sectors = await this.chain(start, size ?? limit, size !== undefined);
    const parts: Buffer[] = [];
    for (const sector of sectors) {
      const offset = (sector + 1) * this.sectorSize;
      parts.push(await this.file.read(offset, Math.min(this.sectorSize, this.file.size - offset), 'a sector'));
    }
    const data = Buffer.concat(parts);
    return size === undefined ? data : data.subarray(0, size);
  }

  /** The streams (and storages) directly inside the root storage, by name. */
  rootChildren(): Map<string, CfbEntry> {
    const found = new Map<string, CfbEntry>();
    const seen = new Set<number>();
    const stack = [this.entries[0]!.child];
    while (stack.length > 0) {
      const id = stack.pop()!;
      if (id === NO_STREAM || id >= this.entries.length) continue;
      if (seen.has(id)) throw this.damaged('the directory tree loops');
      seen.add(id);
      const entry = this.entries[id]!;
      if (!found.has(entry.name)) found.set(entry.name, entry);
      stack.push(entry.left, entry.right);
    }
    return found;
  }

  /** A stream's whole content, refused when larger than `limit`. */
  async read(entry: CfbEntry, limit = MAX_READ_BYTES): Promise<Buffer> {
    if (entry.type !== 2) throw this.damaged(`"${entry.name}" is not a stream`);
    if (entry.size > Math.min(limit, MAX_READ_BYTES)) throw new ParseError(`${this.file.invalid}: a stream is too large to read (${entry.size} bytes)`);
    if (entry.size === 0) return Buffer.alloc(0);
    if (entry.size >= this.miniCutoff) {
      const data = await this.readChain(entry.start, limit, entry.size);
      if (data.length < entry.size) throw this.damaged('a stream is shorter than its size');
      return data;
    }
    // A small stream lives in the mini stream (the root entry's data), in 64-byte mini sectors.
    const root = this.entries[0]!;
    this.miniFat ??= await this.readChain(this.miniFatStart, MAX_READ_BYTES);
    if (root.size > 8 * MAX_READ_BYTES) throw this.damaged('the mini stream is too large');
    this.miniStream ??= await this.chain(root.start, root.size, true);
    const parts: Buffer[] = [];
    const seen = new Set<number>();
    let total = 0;
    let mini = entry.start;
    while (total < entry.size) {
      if (mini === END_OF_CHAIN || mini > MAX_REGULAR || mini * 4 + 4 > this.miniFat.length) throw this.damaged('a mini stream chain ends early');
      if (seen.has(mini)) throw this.damaged('a mini sector chain loops');
      seen.add(mini);
      const position = mini * this.miniSectorSize;
      const sector = this.miniStream[Math.floor(position / this.sectorSize)];
      if (sector === undefined) throw this.damaged('a mini sector lies outside the mini stream');
      const length = Math.min(this.miniSectorSize, entry.size - total);
      parts.push(await this.file.read((sector + 1) * this.sectorSize + (position % this.sectorSize), length, 'a mini sector'));
      total += length;
      mini = this.miniFat.readUInt32LE(mini * 4);
    }
    return Buffer.concat(parts, entry.size);
  }
}
