/**
 * The binary resource formats of an .apk (frameworks/base/libs/androidfw/ResourceTypes.h): compiled
 * XML (AndroidManifest.xml, res/*.xml) and the resource table (resources.arsc). Every read is
 * bounds-checked, so damaged or hostile input ends in an AndroidFormatError, never in a wild read.
 *
 * Unlike app-info-parser 1.1.6, this reads UTF-16 string pools as UTF-16 (no interleaved NULs, no
 * mangled CJK), keeps each value's configuration (locale, density), and understands the sparse,
 * 16-bit-offset and compact entry encodings of recent aapt2 builds.
 */
import { decodeResValue, type ResConfig, type ResEntry, type ResourceTable, type ResValue, type XmlElement } from './android-model.ts';

export class AndroidFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AndroidFormatError';
  }
}

const RES_STRING_POOL_TYPE = 0x0001;
const RES_TABLE_TYPE = 0x0002;
const RES_XML_TYPE = 0x0003;
const RES_XML_START_NAMESPACE_TYPE = 0x0100;
const RES_XML_START_ELEMENT_TYPE = 0x0102;
const RES_XML_END_ELEMENT_TYPE = 0x0103;
const RES_XML_RESOURCE_MAP_TYPE = 0x0180;
const RES_TABLE_PACKAGE_TYPE = 0x0200;
const RES_TABLE_TYPE_TYPE = 0x0201;

const UTF8_FLAG = 1 << 8;
const NO_ENTRY = 0xffffffff;

/** Reads little-endian values, refusing anything outside [start, end). */
class Reader {
  readonly buf: Buffer;
  constructor(buf: Buffer) {
    this.buf = buf;
  }
  private check(offset: number, size: number): void {
    if (!Number.isInteger(offset) || offset < 0 || offset + size > this.buf.length) {
      throw new AndroidFormatError(`read of ${size} bytes at offset ${offset} is outside the ${this.buf.length}-byte buffer`);
    }
  }
  u8(offset: number): number {
    this.check(offset, 1);
    return this.buf[offset]!;
  }
  u16(offset: number): number {
    this.check(offset, 2);
    return this.buf.readUInt16LE(offset);
  }
  u32(offset: number): number {
    this.check(offset, 4);
    return this.buf.readUInt32LE(offset);
  }
  bytes(offset: number, length: number): Buffer {
    this.check(offset, length);
    return this.buf.subarray(offset, offset + length);
  }
}

interface ChunkHeader {
  offset: number;
  type: number;
  headerSize: number;
  size: number;
}

function chunkAt(r: Reader, offset: number, limit: number): ChunkHeader {
  const type = r.u16(offset);
  const headerSize = r.u16(offset + 2);
  const size = r.u32(offset + 4);
  if (headerSize < 8 || size < headerSize || offset + size > limit) {
    throw new AndroidFormatError(`damaged chunk 0x${type.toString(16)} at offset ${offset}`);
  }
  return { offset, type, headerSize, size };
}

/** The chunks directly inside [start, end). */
function* chunks(r: Reader, start: number, end: number): Generator<ChunkHeader> {
  let offset = start;
  while (offset + 8 <= end) {
    const chunk = chunkAt(r, offset, end);
    yield chunk;
    offset += chunk.size;
  }
}

// ---- string pools -------------------------------------------------------------------------------

/** A ResStringPool, decoded one string at a time as they are asked for. */
export class StringPool {
  private readonly r: Reader;
  private readonly count: number;
  private readonly offsetsAt: number;
  private readonly stringsAt: number;
  private readonly end: number;
  private readonly utf8: boolean;
  private readonly cache = new Map<number, string>();

  constructor(r: Reader, chunk: ChunkHeader) {
    if (chunk.type !== RES_STRING_POOL_TYPE) throw new AndroidFormatError('expected a string pool');
    this.r = r;
    this.count = r.u32(chunk.offset + 8);
    const flags = r.u32(chunk.offset + 16);
    this.utf8 = (flags & UTF8_FLAG) !== 0;
    this.offsetsAt = chunk.offset + chunk.headerSize;
    this.stringsAt = chunk.offset + r.u32(chunk.offset + 20);
    this.end = chunk.offset + chunk.size;
    if (this.offsetsAt + this.count * 4 > this.end) throw new AndroidFormatError('string pool offsets run past the pool');
  }

  get size(): number {
    return this.count;
  }

  get(index: number): string {
    if (index < 0 || index >= this.count) return '';
    const cached = this.cache.get(index);
    if (cached !== undefined) return cached;
    const r = this.r;
    let at = this.stringsAt + r.u32(this.offsetsAt + index * 4);
    let value: string;
    if (this.utf8) {
      // two lengths (UTF-16 units, then bytes), each one or two bytes
      at += (r.u8(at) & 0x80) !== 0 ? 2 : 1;
      let length = r.u8(at);
      if ((length & 0x80) !== 0) {
        length = ((length & 0x7f) << 8) | r.u8(at + 1);
        at += 2;
      } else {
        at += 1;
      }
      if (at + length > this.end) throw new AndroidFormatError('a string runs past its pool');
      value = r.bytes(at, length).toString('utf8');
    } else {
      let length = r.u16(at);
      if ((length & 0x8000) !== 0) {
        length = ((length & 0x7fff) << 16) | r.u16(at + 2);
        at += 4;
      } else {
        at += 2;
      }
      if (at + length * 2 > this.end) throw new AndroidFormatError('a string runs past its pool');
      value = r.bytes(at, length * 2).toString('utf16le');
    }
    this.cache.set(index, value);
    return value;
  }
}

// ---- compiled XML ---------------------------------------------------------------------------------

const NO_INDEX = 0xffffffff;

/** Parses a compiled (binary) XML document into its root element. */
export function parseBinaryXml(data: Buffer): XmlElement {
  const r = new Reader(data);
  if (data.length < 8) throw new AndroidFormatError('too short to be compiled XML');
  if (r.u16(0) !== RES_XML_TYPE) {
    const text = data.subarray(0, 5).toString('latin1') === '<?xml' ? ': it is plain-text XML' : '';
    throw new AndroidFormatError(`not compiled XML (no binary XML header${text})`);
  }
  const root = chunkAt(r, 0, data.length);
  let strings: StringPool | null = null;
  let resourceIds: number[] = [];
  const stack: XmlElement[] = [];
  let document: XmlElement | null = null;
  const string = (index: number): string => (index === NO_INDEX || !strings ? '' : strings.get(index));

  for (const chunk of chunks(r, root.headerSize, root.size)) {
    switch (chunk.type) {
      case RES_STRING_POOL_TYPE:
        strings = new StringPool(r, chunk);
        break;
      case RES_XML_RESOURCE_MAP_TYPE: {
        const count = Math.floor((chunk.size - chunk.headerSize) / 4);
        resourceIds = [];
        for (let i = 0; i < count; i++) resourceIds.push(r.u32(chunk.offset + chunk.headerSize + i * 4));
        break;
      }
      case RES_XML_START_ELEMENT_TYPE: {
        const ext = chunk.offset + chunk.headerSize;
        const nsIndex = r.u32(ext);
        const nameIndex = r.u32(ext + 4);
        const attributeStart = r.u16(ext + 8);
        const attributeSize = r.u16(ext + 10);
        const attributeCount = r.u16(ext + 12);
        if (attributeSize < 20) throw new AndroidFormatError('attributes smaller than 20 bytes');
        const element: XmlElement = { namespace: string(nsIndex), name: string(nameIndex), attributes: [], children: [] };
        for (let i = 0; i < attributeCount; i++) {
          const at = ext + attributeStart + i * attributeSize;
          if (at + 20 > chunk.offset + chunk.size) throw new AndroidFormatError('an attribute runs past its element');
          const attrNs = r.u32(at);
          const attrName = r.u32(at + 4);
          const rawValue = r.u32(at + 8);
          const dataType = r.u8(at + 15);
          const valueData = r.u32(at + 16);
          const resourceId = attrName < resourceIds.length ? resourceIds[attrName]! : 0;
          let value: ResValue = decodeResValue(dataType, valueData, string);
          // a string attribute whose typed value was stripped still has its raw text
          if (value.kind === 'null' && rawValue !== NO_INDEX) value = { kind: 'string', value: string(rawValue) };
          element.attributes.push({
            namespace: string(attrNs),
            // a stripped name leaves resourceId, which androidAttr() also matches
            name: string(attrName),
            resourceId,
            value,
          });
        }
        if (stack.length > 0) stack[stack.length - 1]!.children.push(element);
        else if (!document) document = element;
        else throw new AndroidFormatError('more than one root element');
        stack.push(element);
        if (stack.length > 256) throw new AndroidFormatError('elements nested deeper than 256');
        break;
      }
      case RES_XML_END_ELEMENT_TYPE:
        stack.pop();
        break;
      case RES_XML_START_NAMESPACE_TYPE:
      default:
        // namespaces (attribute namespaces are already URIs), CDATA, and unknown chunks: skipped
        break;
    }
  }
  if (!document) throw new AndroidFormatError('no root element');
  return document;
}

// ---- resources.arsc -------------------------------------------------------------------------------

/** Unpacks a ResTable_config language or region (two letters, or three packed into two bytes). */
function unpackLocalePart(b0: number, b1: number, base: number): string {
  if (b0 === 0) return '';
  if ((b0 & 0x80) !== 0) {
    const first = b1 & 0x1f;
    const second = ((b1 & 0xe0) >> 5) | ((b0 & 0x03) << 3);
    const third = (b0 & 0x7c) >> 2;
    return String.fromCharCode(first + base, second + base, third + base);
  }
  return String.fromCharCode(b0, b1);
}

function asciiField(r: Reader, offset: number, length: number): string {
  let text = '';
  for (let i = 0; i < length; i++) {
    const c = r.u8(offset + i);
    if (c === 0) break;
    text += String.fromCharCode(c);
  }
  return text;
}

/** Reads the parts of a ResTable_config that matter (see ResConfig). */
function readConfig(r: Reader, at: number, limit: number): ResConfig {
  const size = r.u32(at);
  if (size < 8 || at + size > limit) throw new AndroidFormatError('damaged configuration');
  const has = (offset: number, bytes: number): boolean => offset + bytes <= size;
  const byte = (offset: number): number => (has(offset, 1) ? r.u8(at + offset) : 0);
  const short = (offset: number): number => (has(offset, 2) ? r.u16(at + offset) : 0);

  const language = has(10, 2) ? unpackLocalePart(byte(8), byte(9), 0x61) : '';
  const region = has(12, 2) ? unpackLocalePart(byte(10), byte(11), 0x30) : '';
  const script = has(40, 4) ? asciiField(r, at + 36, 4) : '';
  let locale = language;
  if (locale) {
    if (script) locale += `-${script}`;
    if (region) locale += `-${region}`;
  }
  const density = short(14);
  const sdk = short(24);
  // everything else: mcc/mnc, orientation, touchscreen, keyboard/navigation, screen size,
  // screen layout, ui mode (night, car, ...), smallest/width/height dp, round, color mode
  const other =
    short(4) !== 0 ||
    short(6) !== 0 ||
    byte(12) !== 0 ||
    byte(13) !== 0 ||
    byte(16) !== 0 ||
    byte(17) !== 0 ||
    byte(18) !== 0 ||
    short(20) !== 0 ||
    short(22) !== 0 ||
    byte(28) !== 0 ||
    byte(29) !== 0 ||
    short(30) !== 0 ||
    short(32) !== 0 ||
    short(34) !== 0 ||
    byte(48) !== 0 ||
    byte(49) !== 0;
  return { locale, density, sdk, other };
}

const FLAG_SPARSE = 0x01;
const FLAG_OFFSET16 = 0x02;
const ENTRY_FLAG_COMPLEX = 0x0001;
const ENTRY_FLAG_COMPACT = 0x0008;

interface TypeChunk {
  chunk: ChunkHeader;
  flags: number;
  entryCount: number;
  entriesStart: number;
  config: ResConfig;
}

interface PackageInfo {
  id: number;
  name: string;
  keys: StringPool;
  /** type name by type id */
  typeNames: Map<number, string>;
  /** the ResTable_type chunks of each type id */
  types: Map<number, TypeChunk[]>;
}

/** A parsed resources.arsc: packages and their type chunks are indexed, entries read on lookup. */
export class ArscTable implements ResourceTable {
  private readonly r: Reader;
  private readonly strings: StringPool;
  private readonly packages = new Map<number, PackageInfo>();
  private nameIndex: Map<string, number> | null = null;

  constructor(data: Buffer) {
    const r = new Reader(data);
    this.r = r;
    if (data.length < 12) throw new AndroidFormatError('too short to be a resource table');
    if (r.u16(0) !== RES_TABLE_TYPE) throw new AndroidFormatError('not a resource table (no table header)');
    const root = chunkAt(r, 0, data.length);
    let strings: StringPool | null = null;
    for (const chunk of chunks(r, root.headerSize, root.size)) {
      if (chunk.type === RES_STRING_POOL_TYPE && !strings) strings = new StringPool(r, chunk);
      else if (chunk.type === RES_TABLE_PACKAGE_TYPE) this.readPackage(chunk);
    }
    if (!strings) throw new AndroidFormatError('the resource table has no string pool');
    this.strings = strings;
  }

  private readPackage(chunk: ChunkHeader): void {
    const r = this.r;
    const at = chunk.offset;
    const end = chunk.offset + chunk.size;
    const id = r.u32(at + 8);
    const name = r.bytes(at + 12, 256).toString('utf16le').replace(/\u0000.*$/s, '');
    const typeStringsAt = r.u32(at + 268);
    const keyStringsAt = r.u32(at + 276);
    const typeIdOffset = chunk.headerSize >= 288 ? r.u32(at + 284) : 0;
    const typeStrings = new StringPool(r, chunkAt(r, at + typeStringsAt, end));
    const keys = new StringPool(r, chunkAt(r, at + keyStringsAt, end));
    const typeNames = new Map<number, string>();
    for (let i = 0; i < typeStrings.size; i++) typeNames.set(i + 1 + typeIdOffset, typeStrings.get(i));
    const types = new Map<number, TypeChunk[]>();
    for (const child of chunks(r, at + chunk.headerSize, end)) {
      if (child.type !== RES_TABLE_TYPE_TYPE) continue;
      const typeId = r.u8(child.offset + 8);
      const flags = r.u8(child.offset + 9);
      const entryCount = r.u32(child.offset + 12);
      const entriesStart = r.u32(child.offset + 16);
      if (entriesStart > child.size) throw new AndroidFormatError('type entries start past their chunk');
      const config = readConfig(r, child.offset + 20, child.offset + child.headerSize);
      const list = types.get(typeId) ?? [];
      list.push({ chunk: child, flags, entryCount, entriesStart, config });
      types.set(typeId, list);
    }
    // a later package chunk with the same id (a split) adds to the first
    const existing = this.packages.get(id);
    if (existing) {
      for (const [typeId, list] of types) existing.types.set(typeId, [...(existing.types.get(typeId) ?? []), ...list]);
    } else {
      this.packages.set(id, { id, name, keys, typeNames, types });
    }
  }

  /** The offset of entry `index` in a type chunk (relative to its entries), or null when absent. */
  private entryOffset(t: TypeChunk, index: number): number | null {
    const r = this.r;
    const table = t.chunk.offset + t.chunk.headerSize;
    if ((t.flags & FLAG_SPARSE) !== 0) {
      // sorted (index u16, offset/4 u16) pairs
      let lo = 0;
      let hi = t.entryCount - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const entryIndex = r.u16(table + mid * 4);
        if (entryIndex === index) return r.u16(table + mid * 4 + 2) * 4;
        if (entryIndex < index) lo = mid + 1;
        else hi = mid - 1;
      }
      return null;
    }
    if (index >= t.entryCount) return null;
    if ((t.flags & FLAG_OFFSET16) !== 0) {
      const offset = r.u16(table + index * 2);
      return offset === 0xffff ? null : offset * 4;
    }
    const offset = r.u32(table + index * 4);
    return offset === NO_ENTRY ? null : offset;
  }

  /** Reads one entry's value (complex entries, styles and arrays, are not needed here: null). */
  private readEntry(t: TypeChunk, offset: number): ResValue | null {
    const r = this.r;
    const at = t.chunk.offset + t.entriesStart + offset;
    const end = t.chunk.offset + t.chunk.size;
    if (at + 8 > end) throw new AndroidFormatError('an entry runs past its type chunk');
    const flags = r.u16(at + 2);
    const string = (index: number): string => this.strings.get(index);
    if ((flags & ENTRY_FLAG_COMPACT) !== 0) return decodeResValue(flags >> 8, r.u32(at + 4), string);
    if ((flags & ENTRY_FLAG_COMPLEX) !== 0) return null;
    const size = r.u16(at);
    const valueAt = at + size;
    if (valueAt + 8 > end) throw new AndroidFormatError('a value runs past its type chunk');
    return decodeResValue(r.u8(valueAt + 3), r.u32(valueAt + 4), string);
  }

  lookup(id: number): ResEntry[] {
    const pkg = this.packages.get(id >>> 24);
    const list = pkg?.types.get((id >>> 16) & 0xff);
    if (!list) return [];
    const index = id & 0xffff;
    const typeName = pkg!.typeNames.get((id >>> 16) & 0xff) ?? '';
    const result: ResEntry[] = [];
    for (const t of list) {
      const offset = this.entryOffset(t, index);
      if (offset === null) continue;
      const value = this.readEntry(t, offset);
      if (value) result.push({ config: t.config, value: typeName === 'string' ? value : fileValue(value) });
    }
    return result;
  }

  idOf(name: string): number {
    if (!this.nameIndex) {
      this.nameIndex = new Map();
      for (const pkg of this.packages.values()) {
        for (const [typeId, list] of pkg.types) {
          const typeName = pkg.typeNames.get(typeId) ?? '';
          for (const t of list) {
            for (let index = 0; index < Math.min(t.entryCount, 0x10000); index++) {
              const sparseIndex = (t.flags & FLAG_SPARSE) !== 0 ? this.r.u16(t.chunk.offset + t.chunk.headerSize + index * 4) : index;
              const offset = this.entryOffset(t, sparseIndex);
              if (offset === null) continue;
              const at = t.chunk.offset + t.entriesStart + offset;
              const flags = this.r.u16(at + 2);
              const key = (flags & ENTRY_FLAG_COMPACT) !== 0 ? this.r.u16(at) : this.r.u32(at + 4);
              const id = ((pkg.id << 24) | (typeId << 16) | sparseIndex) >>> 0;
              const entryName = `${typeName}/${pkg.keys.get(key)}`;
              if (!this.nameIndex.has(entryName)) this.nameIndex.set(entryName, id);
            }
          }
        }
      }
    }
    return this.nameIndex.get(name.replace(/^@?(\*?[\w.]+:)?/, '')) ?? 0;
  }
}

/** In resources.arsc a file value is a string naming the file (res/...): say so. */
function fileValue(value: ResValue): ResValue {
  if (value.kind === 'string' && value.value.startsWith('res/')) return { kind: 'file', path: value.value };
  return value;
}

