/**
 * Tiny writers of container formats, for parser tests that need inputs no fixture or tool gives
 * (a zip without module.json, an ar archive without control.tar, a PE with icons, a compound file
 * that is not an installer database). Each follows the published layout; none is a general tool.
 */
import { crc32 } from 'node:zlib';
import { makeZip } from './make-zip.ts';

// ---- zip ---------------------------------------------------------------------------------------

/** A zip of stored entries, in order (see make-zip.ts, the one zip writer of the tests). */
export function zipArchive(files: Array<{ name: string; data: Buffer | string }>): Buffer {
  return makeZip(Object.fromEntries(files.map((file) => [file.name, file.data])), { store: true });
}

// ---- tar (ustar) and ar -------------------------------------------------------------------------

export function tarArchive(files: Array<{ name: string; data: Buffer | string; type?: string }>): Buffer {
  const parts: Buffer[] = [];
  for (const file of files) {
    const data = typeof file.data === 'string' ? Buffer.from(file.data) : file.data;
    const header = Buffer.alloc(512);
    header.write(file.name, 0, 100, 'utf8');
    header.write('0000644\0', 100, 'latin1');
    header.write('0000000\0', 108, 'latin1');
    header.write('0000000\0', 116, 'latin1');
    header.write(`${data.length.toString(8).padStart(11, '0')}\0`, 124, 'latin1');
    header.write('00000000000\0', 136, 'latin1');
    header.write(file.type ?? '0', 156, 'latin1');
    header.write('ustar\0', 257, 'latin1');
    header.write('00', 263, 'latin1');
    header.fill(' ', 148, 156);
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
    parts.push(header, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

export function arArchive(members: Array<{ name: string; data: Buffer | string }>): Buffer {
  const parts: Buffer[] = [Buffer.from('!<arch>\n')];
  for (const member of members) {
    const data = typeof member.data === 'string' ? Buffer.from(member.data) : member.data;
    const header = `${member.name.padEnd(16)}${'0'.padEnd(12)}${'0'.padEnd(6)}${'0'.padEnd(6)}${'100644'.padEnd(8)}${String(data.length).padEnd(10)}\`\n`;
    parts.push(Buffer.from(header, 'latin1'), data);
    if (data.length % 2) parts.push(Buffer.from('\n'));
  }
  return Buffer.concat(parts);
}

// ---- OLE compound file (version 3, 512-byte sectors, streams of 4096 bytes or more) -------------

/** A compound file whose root holds the given streams (each padded to at least 4096 bytes). */
export function compoundFile(streams: Array<{ name: string; data: Buffer }>, options: { loop?: boolean } = {}): Buffer {
  const ssz = 512;
  const END = 0xfffffffe;
  const padded = streams.map((s) => ({ name: s.name, data: s.data.length >= 4096 ? s.data : Buffer.concat([s.data, Buffer.alloc(4096 - s.data.length)]) }));
  const dirSectors = Math.ceil(((padded.length + 1) * 128) / ssz);
  const fat: number[] = [0xfffffffd]; // sector 0: the FAT itself
  for (let i = 0; i < dirSectors; i++) fat.push(i === dirSectors - 1 ? END : fat.length + 1);
  const starts: number[] = [];
  for (const stream of padded) {
    const count = Math.ceil(stream.data.length / ssz);
    starts.push(fat.length);
    for (let i = 0; i < count; i++) fat.push(i === count - 1 ? (options.loop ? starts[starts.length - 1]! : END) : fat.length + 1);
  }
  if (fat.length > ssz / 4) throw new Error('compoundFile: too much data for one FAT sector');
  const header = Buffer.alloc(512);
  Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(header);
  header.writeUInt16LE(0x3e, 0x18);
  header.writeUInt16LE(3, 0x1a);
  header.writeUInt16LE(0xfffe, 0x1c);
  header.writeUInt16LE(9, 0x1e);
  header.writeUInt16LE(6, 0x20);
  header.writeUInt32LE(1, 0x2c); // one FAT sector
  header.writeUInt32LE(1, 0x30); // the directory starts at sector 1
  header.writeUInt32LE(4096, 0x38);
  header.writeUInt32LE(END, 0x3c);
  header.writeUInt32LE(END, 0x44);
  for (let i = 0; i < 109; i++) header.writeUInt32LE(i === 0 ? 0 : 0xffffffff, 0x4c + i * 4);
  const fatSector = Buffer.alloc(ssz, 0xff);
  fat.forEach((next, i) => fatSector.writeUInt32LE(next, i * 4));
  const directory = Buffer.alloc(dirSectors * ssz);
  const entry = (index: number, name: string, type: number, child: number, right: number, start: number, size: number): void => {
    const at = index * 128;
    directory.write(`${name}\0`, at, 'utf16le');
    directory.writeUInt16LE((name.length + 1) * 2, at + 64);
    directory[at + 66] = type;
    directory[at + 67] = 1; // black
    directory.writeUInt32LE(0xffffffff, at + 68);
    directory.writeUInt32LE(right, at + 72);
    directory.writeUInt32LE(child, at + 76);
    directory.writeUInt32LE(start, at + 116);
    directory.writeUInt32LE(size, at + 120);
  };
  entry(0, 'Root Entry', 5, padded.length ? 1 : 0xffffffff, 0xffffffff, END, 0);
  padded.forEach((s, i) => entry(i + 1, s.name, 2, 0xffffffff, i + 2 <= padded.length ? i + 2 : 0xffffffff, starts[i]!, s.data.length));
  const data = padded.map((s) => Buffer.concat([s.data, Buffer.alloc((ssz - (s.data.length % ssz)) % ssz)]));
  return Buffer.concat([header, fatSector, directory, ...data]);
}

// ---- icons --------------------------------------------------------------------------------------

/** A DIB icon image: 32-bit BGRA (alpha from `pixel`) or 8-bit with a palette, plus an AND mask. */
export function dibIcon(width: number, height: number, bitCount: 32 | 8, pixel: (x: number, y: number) => [number, number, number, number]): Buffer {
  const header = Buffer.alloc(40);
  header.writeUInt32LE(40, 0);
  header.writeInt32LE(width, 4);
  header.writeInt32LE(height * 2, 8);
  header.writeUInt16LE(1, 12);
  header.writeUInt16LE(bitCount, 14);
  const palette: Array<[number, number, number]> = [];
  const stride = Math.floor((width * bitCount + 31) / 32) * 4;
  const maskStride = Math.floor((width + 31) / 32) * 4;
  const colours = Buffer.alloc(stride * height);
  const mask = Buffer.alloc(maskStride * height);
  for (let y = 0; y < height; y++) {
    const row = height - 1 - y;
    for (let x = 0; x < width; x++) {
      const [r, g, b, a] = pixel(x, y);
      if (bitCount === 32) {
        colours.set([b, g, r, a], row * stride + x * 4);
      } else {
        let index = palette.findIndex(([pr, pg, pb]) => pr === r && pg === g && pb === b);
        if (index === -1) index = palette.push([r, g, b]) - 1;
        colours[row * stride + x] = index;
        if (a === 0) mask[row * maskStride + (x >> 3)]! |= 0x80 >> (x & 7);
      }
    }
  }
  if (bitCount === 8) header.writeUInt32LE(palette.length, 32);
  const paletteBytes = Buffer.alloc(palette.length * 4);
  palette.forEach(([r, g, b], i) => paletteBytes.set([b, g, r, 0], i * 4));
  return Buffer.concat([header, paletteBytes, colours, mask]);
}

export interface IconImage {
  width: number;
  height: number;
  bitCount: number;
  data: Buffer;
}

/** A .ico file holding the given images. */
export function icoFile(images: IconImage[]): Buffer {
  const head = Buffer.alloc(6 + images.length * 16);
  head.writeUInt16LE(1, 2);
  head.writeUInt16LE(images.length, 4);
  let offset = head.length;
  images.forEach((image, i) => {
    const at = 6 + i * 16;
    head[at] = image.width >= 256 ? 0 : image.width;
    head[at + 1] = image.height >= 256 ? 0 : image.height;
    head.writeUInt16LE(1, at + 4);
    head.writeUInt16LE(image.bitCount, at + 6);
    head.writeUInt32LE(image.data.length, at + 8);
    head.writeUInt32LE(offset, at + 12);
    offset += image.data.length;
  });
  return Buffer.concat([head, ...images.map((i) => i.data)]);
}

// ---- PE executables with a resource section -----------------------------------------------------

function utf16z(text: string): Buffer {
  return Buffer.from(`${text}\0`, 'utf16le');
}

function pad4(buffer: Buffer): Buffer {
  return buffer.length % 4 ? Buffer.concat([buffer, Buffer.alloc(4 - (buffer.length % 4))]) : buffer;
}

/** One VS_VERSIONINFO block: header, key, padding, value, padding, children. */
function versionBlock(key: string, value: Buffer | null, text: boolean, children: Buffer[]): Buffer {
  const head = Buffer.alloc(6);
  const body = Buffer.concat([pad4(Buffer.concat([head, utf16z(key)])), value ? pad4(value) : Buffer.alloc(0), ...children.map(pad4)]);
  body.writeUInt16LE(body.length, 0);
  body.writeUInt16LE(value ? (text ? value.length / 2 : value.length) : 0, 2);
  body.writeUInt16LE(text ? 1 : 0, 4);
  return body;
}

export interface VersionSpec {
  fileVersion: [number, number, number, number];
  productVersion: [number, number, number, number];
  strings: Record<string, string>;
  /** the StringTable key, e.g. "040904b0" */
  table?: string;
}

export function versionInfo(spec: VersionSpec): Buffer {
  const fixed = Buffer.alloc(52);
  fixed.writeUInt32LE(0xfeef04bd, 0);
  fixed.writeUInt32LE(0x10000, 4);
  const [fa, fb, fc, fd] = spec.fileVersion;
  const [pa, pb, pc, pd] = spec.productVersion;
  fixed.writeUInt32LE(((fa << 16) | fb) >>> 0, 8);
  fixed.writeUInt32LE(((fc << 16) | fd) >>> 0, 12);
  fixed.writeUInt32LE(((pa << 16) | pb) >>> 0, 16);
  fixed.writeUInt32LE(((pc << 16) | pd) >>> 0, 20);
  const strings = Object.entries(spec.strings).map(([k, v]) => versionBlock(k, utf16z(v), true, []));
  const table = versionBlock(spec.table ?? '040904b0', null, true, strings);
  const stringFileInfo = versionBlock('StringFileInfo', null, true, [table]);
  const translation = Buffer.from([0x09, 0x04, 0xb0, 0x04]);
  const varFileInfo = versionBlock('VarFileInfo', null, true, [versionBlock('Translation', translation, false, [])]);
  return versionBlock('VS_VERSION_INFO', fixed, false, [stringFileInfo, varFileInfo]);
}

export interface PeSpec {
  machine: number;
  pe32plus: boolean;
  /** 2 GUI, 3 console */
  subsystem: number;
  subsystemVersion?: [number, number];
  version?: Buffer;
  /** one icon group (id 1) naming RT_ICON images 1..n */
  icons?: IconImage[];
}

/** A PE executable with no code and one .rsrc section holding RT_VERSION and an icon group. */
export function peExecutable(spec: PeSpec): Buffer {
  // Resources: type -> (id -> data); one language (1033) each.
  const types = new Map<number, Map<number, Buffer>>();
  if (spec.icons?.length) {
    const group = Buffer.alloc(6 + spec.icons.length * 14);
    group.writeUInt16LE(1, 2);
    group.writeUInt16LE(spec.icons.length, 4);
    const icons = new Map<number, Buffer>();
    spec.icons.forEach((image, i) => {
      const at = 6 + i * 14;
      group[at] = image.width >= 256 ? 0 : image.width;
      group[at + 1] = image.height >= 256 ? 0 : image.height;
      group.writeUInt16LE(1, at + 4);
      group.writeUInt16LE(image.bitCount, at + 6);
      group.writeUInt32LE(image.data.length, at + 8);
      group.writeUInt16LE(i + 1, at + 12);
      icons.set(i + 1, image.data);
    });
    types.set(3, icons);
    types.set(14, new Map([[1, group]]));
  }
  if (spec.version) types.set(16, new Map([[1, spec.version]]));

  const sectionRva = 0x1000;
  const typeIds = [...types.keys()].sort((a, b) => a - b);
  const dirSize = (n: number): number => 16 + n * 8;
  let cursor = dirSize(typeIds.length);
  const nameDirAt = new Map<number, number>();
  for (const t of typeIds) {
    nameDirAt.set(t, cursor);
    cursor += dirSize(types.get(t)!.size);
  }
  const langDirAt = new Map<string, number>();
  for (const t of typeIds) for (const id of types.get(t)!.keys()) {
    langDirAt.set(`${t}/${id}`, cursor);
    cursor += dirSize(1);
  }
  const dataEntryAt = new Map<string, number>();
  for (const t of typeIds) for (const id of types.get(t)!.keys()) {
    dataEntryAt.set(`${t}/${id}`, cursor);
    cursor += 16;
  }
  const blobAt = new Map<string, number>();
  for (const t of typeIds) for (const [id, data] of types.get(t)!) {
    cursor = (cursor + 7) & ~7;
    blobAt.set(`${t}/${id}`, cursor);
    cursor += data.length;
  }
  const rsrc = Buffer.alloc((cursor + 511) & ~511);
  const writeDir = (at: number, entries: Array<[number, number, boolean]>): void => {
    rsrc.writeUInt16LE(entries.length, at + 14);
    entries.forEach(([id, target, directory], i) => {
      rsrc.writeUInt32LE(id, at + 16 + i * 8);
      rsrc.writeUInt32LE((directory ? 0x80000000 : 0) + target, at + 20 + i * 8);
    });
  };
  writeDir(0, typeIds.map((t) => [t, nameDirAt.get(t)!, true]));
  for (const t of typeIds) {
    writeDir(nameDirAt.get(t)!, [...types.get(t)!.keys()].map((id) => [id, langDirAt.get(`${t}/${id}`)!, true]));
    for (const [id, data] of types.get(t)!) {
      const key = `${t}/${id}`;
      writeDir(langDirAt.get(key)!, [[1033, dataEntryAt.get(key)!, false]]);
      rsrc.writeUInt32LE(sectionRva + blobAt.get(key)!, dataEntryAt.get(key)!);
      rsrc.writeUInt32LE(data.length, dataEntryAt.get(key)! + 4);
      data.copy(rsrc, blobAt.get(key)!);
    }
  }

  const optionalSize = spec.pe32plus ? 240 : 224;
  const headers = Buffer.alloc(0x200);
  headers.write('MZ', 0, 'latin1');
  headers.writeUInt32LE(0x40, 0x3c);
  headers.write('PE\0\0', 0x40, 'latin1');
  headers.writeUInt16LE(spec.machine, 0x44);
  headers.writeUInt16LE(types.size ? 1 : 0, 0x46);
  headers.writeUInt16LE(optionalSize, 0x54);
  headers.writeUInt16LE(0x22, 0x56);
  const opt = 0x58;
  headers.writeUInt16LE(spec.pe32plus ? 0x20b : 0x10b, opt);
  const [major, minor] = spec.subsystemVersion ?? [6, 0];
  headers.writeUInt16LE(major, opt + 48);
  headers.writeUInt16LE(minor, opt + 50);
  headers.writeUInt16LE(spec.subsystem, opt + 68);
  headers.writeUInt32LE(16, opt + (spec.pe32plus ? 108 : 92));
  if (types.size) {
    const dirs = opt + (spec.pe32plus ? 112 : 96);
    headers.writeUInt32LE(sectionRva, dirs + 16);
    headers.writeUInt32LE(cursor, dirs + 20);
    const section = opt + optionalSize;
    headers.write('.rsrc', section, 'latin1');
    headers.writeUInt32LE(cursor, section + 8);
    headers.writeUInt32LE(sectionRva, section + 12);
    headers.writeUInt32LE(rsrc.length, section + 16);
    headers.writeUInt32LE(0x200, section + 20);
  }
  return Buffer.concat([headers, types.size ? rsrc : Buffer.alloc(0)]);
}
