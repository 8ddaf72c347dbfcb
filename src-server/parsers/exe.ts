/**
 * Reader of .exe (Windows PE32 and PE32+ executables). Reads, at offsets, only the DOS and PE
 * headers, the section table and the resource tree: RT_VERSION (VS_VERSIONINFO: the fixed file info
 * and the StringFileInfo strings) and the first RT_GROUP_ICON with the RT_ICON images it names.
 * Packed executables (UPX) keep their resources readable, so they work too.
 *
 * Fields: bundleId = ProductName, else OriginalFilename without extension, else the uploaded
 * file's name without extension; releaseVersion = the ProductVersion string (trimmed), else the
 * fixed product version "a.b.c.d"; buildVersion = the fixed file version "a.b.c.d" (else the
 * FileVersion string); displayName = FileDescription, else ProductName, else bundleId; minOsVersion =
 * the PE subsystem version ("5.1" = Windows XP, "6.0" = Vista), which the loader enforces.
 */
import { basename, extname } from 'node:path';
import { withFile, type BinaryFile } from './binfile.ts';
import { byLargest, iconImageToPng, parseIconDirectory } from './ico.ts';
import { ParseError, type AppMetadata, type BinaryReader } from './types.ts';

const RT_ICON = 3;
const RT_GROUP_ICON = 14;
const RT_VERSION = 16;
const MAX_SECTIONS = 96; // the PE loader's own limit
const MAX_DIRECTORY_ENTRIES = 4096;
const MAX_VERSION_BYTES = 1024 * 1024;
const MAX_ICON_BYTES = 16 * 1024 * 1024;

const MACHINES: Record<number, string> = { 0x14c: 'x86', 0x8664: 'x64', 0xaa64: 'arm64', 0x1c0: 'arm', 0x1c4: 'arm', 0x200: 'ia64' };
const SUBSYSTEMS: Record<number, string> = {
  1: 'native',
  2: 'windows-gui',
  3: 'windows-console',
  5: 'os2-console',
  7: 'posix-console',
  9: 'windows-ce-gui',
  10: 'efi-application',
  11: 'efi-boot-service-driver',
  12: 'efi-runtime-driver',
  13: 'efi-rom',
  14: 'xbox',
  16: 'windows-boot-application',
};

interface Section {
  virtualAddress: number;
  virtualSize: number;
  rawSize: number;
  rawPointer: number;
}

interface PeImage {
  machine: number;
  subsystem: number;
  /** MajorSubsystemVersion.MinorSubsystemVersion: the oldest Windows the loader accepts ("6.0" = Vista) */
  subsystemVersion: string;
  pe32plus: boolean;
  sections: Section[];
  resourceRva: number;
  resourceSize: number;
}

async function readHeaders(file: BinaryFile): Promise<PeImage> {
  const dos = await file.readUpTo(0, 64);
  if (dos.length < 2 || dos.toString('latin1', 0, 2) !== 'MZ') throw new ParseError('not an .exe: no MZ header');
  if (dos.length < 64) throw new ParseError('not a valid .exe: the file is truncated (the DOS header is incomplete)');
  const peOffset = dos.readUInt32LE(0x3c);
  if (peOffset >= file.size) throw new ParseError('not a valid .exe: the file is truncated (no PE header; it may be a DOS program)');
  const coff = await file.read(peOffset, 24, 'the PE header');
  if (coff.toString('latin1', 0, 4) !== 'PE\0\0') throw new ParseError('not a valid .exe: no PE header (it may be a DOS or 16-bit program)');
  const machine = coff.readUInt16LE(4);
  const sectionCount = coff.readUInt16LE(6);
  const optionalSize = coff.readUInt16LE(20);
  if (sectionCount > MAX_SECTIONS) throw new ParseError(`not a valid .exe: it claims ${sectionCount} sections`);
  if (optionalSize < 96) throw new ParseError('not a valid .exe: its optional header is missing (an object file?)');
  const optional = await file.read(peOffset + 24, optionalSize, 'the PE optional header');
  const magic = optional.readUInt16LE(0);
  if (magic !== 0x10b && magic !== 0x20b) throw new ParseError(`not a valid .exe: unknown optional header magic 0x${magic.toString(16)}`);
  const pe32plus = magic === 0x20b;
  const subsystem = optional.readUInt16LE(68);
  const subsystemVersion = `${optional.readUInt16LE(48)}.${optional.readUInt16LE(50)}`;
  const directoryCount = optional.readUInt32LE(pe32plus ? 108 : 92);
  const directories = pe32plus ? 112 : 96;
  let resourceRva = 0;
  let resourceSize = 0;
  if (directoryCount > 2 && directories + 3 * 8 <= optional.length) {
    resourceRva = optional.readUInt32LE(directories + 2 * 8);
    resourceSize = optional.readUInt32LE(directories + 2 * 8 + 4);
  }
  const table = await file.read(peOffset + 24 + optionalSize, sectionCount * 40, 'the PE section table');
  const sections: Section[] = [];
  for (let i = 0; i < sectionCount; i++) {
    sections.push({
      virtualSize: table.readUInt32LE(i * 40 + 8),
      virtualAddress: table.readUInt32LE(i * 40 + 12),
      rawSize: table.readUInt32LE(i * 40 + 16),
      rawPointer: table.readUInt32LE(i * 40 + 20),
    });
  }
  return { machine, subsystem, subsystemVersion, pe32plus, sections, resourceRva, resourceSize };
}

/** The file offset of an RVA, or null when no section holds it on disk. */
function rvaToOffset(image: PeImage, rva: number, length: number): number | null {
  for (const s of image.sections) {
    if (rva >= s.virtualAddress && rva + length <= s.virtualAddress + Math.max(s.virtualSize, s.rawSize)) {
      const delta = rva - s.virtualAddress;
      if (delta + length > s.rawSize) return null; // not stored in the file (uninitialised data)
      return s.rawPointer + delta;
    }
  }
  return null;
}

interface ResourceEntry {
  id: number | null;
  name: string | null;
  /** offset from the start of the resource section; a subdirectory when `directory` */
  offset: number;
  directory: boolean;
}

interface ResourceData {
  id: number | null;
  name: string | null;
  offset: number;
  size: number;
}

class Resources {
  private readonly file: BinaryFile;
  private readonly image: PeImage;
  /** file offset of the resource section */
  private readonly base: number;

  constructor(file: BinaryFile, image: PeImage, base: number) {
    this.file = file;
    this.image = image;
    this.base = base;
  }

  async directory(offset: number): Promise<ResourceEntry[]> {
    const header = await this.file.read(this.base + offset, 16, 'a resource directory');
    const count = header.readUInt16LE(12) + header.readUInt16LE(14);
    if (count > MAX_DIRECTORY_ENTRIES) throw new ParseError('not a valid .exe: a resource directory is damaged (too many entries)');
    const raw = await this.file.read(this.base + offset + 16, count * 8, 'a resource directory');
    const entries: ResourceEntry[] = [];
    for (let i = 0; i < count; i++) {
      const nameField = raw.readUInt32LE(i * 8);
      const target = raw.readUInt32LE(i * 8 + 4);
      let name: string | null = null;
      if (nameField & 0x80000000) {
        const at = this.base + (nameField & 0x7fffffff);
        const length = (await this.file.read(at, 2, 'a resource name')).readUInt16LE(0);
        name = (await this.file.read(at + 2, length * 2, 'a resource name')).toString('utf16le');
      }
      entries.push({ id: nameField & 0x80000000 ? null : nameField, name, offset: target & 0x7fffffff, directory: (target & 0x80000000) !== 0 });
    }
    return entries;
  }

  /** Every resource of a type (type, then name, then language: three levels, no deeper). */
  async ofType(type: number): Promise<ResourceData[]> {
    const typeEntry = (await this.directory(0)).find((e) => e.id === type && e.directory);
    if (!typeEntry) return [];
    const found: ResourceData[] = [];
    let visited = 0;
    for (const nameEntry of await this.directory(typeEntry.offset)) {
      const leaves = nameEntry.directory ? (await this.directory(nameEntry.offset)).filter((e) => !e.directory) : [nameEntry];
      for (const leaf of leaves) {
        // A crafted tree can make every name share one huge language directory: bound the walk.
        if (++visited > MAX_DIRECTORY_ENTRIES) return found;
        const data = await this.file.read(this.base + leaf.offset, 16, 'a resource data entry');
        const rva = data.readUInt32LE(0);
        const size = data.readUInt32LE(4);
        const offset = rvaToOffset(this.image, rva, size);
        if (offset === null || offset + size > this.file.size) continue;
        found.push({ id: nameEntry.id, name: nameEntry.name, offset, size });
      }
    }
    return found;
  }

  async read(resource: ResourceData, limit: number): Promise<Buffer | null> {
    if (resource.size > limit) return null;
    return this.file.read(resource.offset, resource.size, 'a resource');
  }
}

// ---------------------------------------------------------------------------------------------
// VS_VERSIONINFO: nested blocks of { wLength, wValueLength, wType, szKey (UTF-16, NUL), padding to
// 4, Value, padding to 4, Children }.

export interface VersionInfo {
  fileVersion: string | null;
  productVersion: string | null;
  strings: Map<string, string>;
}

interface Block {
  key: string;
  type: number;
  valueLength: number;
  valueOffset: number;
  childrenOffset: number;
  end: number;
}

const align4 = (n: number): number => (n + 3) & ~3;

function readBlock(data: Buffer, offset: number, limit: number): Block | null {
  if (offset + 6 > limit) return null;
  const length = data.readUInt16LE(offset);
  if (length < 6 || offset + length > limit) return null;
  const end = offset + length;
  const valueLength = data.readUInt16LE(offset + 2);
  const type = data.readUInt16LE(offset + 4);
  let keyEnd = offset + 6;
  while (keyEnd + 1 < end && data.readUInt16LE(keyEnd) !== 0) keyEnd += 2;
  const key = data.toString('utf16le', offset + 6, keyEnd);
  const valueOffset = Math.min(align4(keyEnd + 2), end);
  const valueBytes = type === 1 ? valueLength * 2 : valueLength;
  const childrenOffset = Math.min(align4(valueOffset + valueBytes), end);
  return { key, type, valueLength, valueOffset, childrenOffset, end };
}

function children(data: Buffer, parent: Block): Block[] {
  const list: Block[] = [];
  let offset = parent.childrenOffset;
  while (offset < parent.end) {
    const block = readBlock(data, offset, parent.end);
    if (!block) break;
    list.push(block);
    offset = align4(block.end);
  }
  return list;
}

function fourPart(ms: number, ls: number): string {
  return `${ms >>> 16}.${ms & 0xffff}.${ls >>> 16}.${ls & 0xffff}`;
}

export function parseVersionInfo(data: Buffer): VersionInfo | null {
  const root = readBlock(data, 0, data.length);
  if (!root || root.key !== 'VS_VERSION_INFO') return null;
  const info: VersionInfo = { fileVersion: null, productVersion: null, strings: new Map() };
  if (root.valueLength >= 52 && root.valueOffset + 52 <= data.length && data.readUInt32LE(root.valueOffset) === 0xfeef04bd) {
    const v = root.valueOffset;
    info.fileVersion = fourPart(data.readUInt32LE(v + 8), data.readUInt32LE(v + 12));
    info.productVersion = fourPart(data.readUInt32LE(v + 16), data.readUInt32LE(v + 20));
  }
  const tables = children(data, root)
    .filter((b) => b.key === 'StringFileInfo')
    .flatMap((b) => children(data, b));
  // Prefer US English, then language-neutral, then whichever comes first.
  const table = tables.find((t) => t.key.toLowerCase().startsWith('0409')) ?? tables.find((t) => t.key.startsWith('0000')) ?? tables[0];
  if (table) {
    for (const entry of children(data, table)) {
      // Some linkers count wValueLength in bytes rather than characters: read up to the NUL instead.
      let end = entry.valueOffset;
      while (end + 1 < entry.end && data.readUInt16LE(end) !== 0) end += 2;
      info.strings.set(entry.key, data.toString('utf16le', entry.valueOffset, end));
    }
  }
  return info;
}

// ---------------------------------------------------------------------------------------------

async function readIcon(resources: Resources): Promise<Buffer | null> {
  const groups = await resources.ofType(RT_GROUP_ICON);
  const group = groups[0]; // the first group is the one Explorer shows
  if (!group) return null;
  const directory = await resources.read(group, 64 * 1024);
  if (!directory) return null;
  const icons = await resources.ofType(RT_ICON);
  for (const entry of parseIconDirectory(directory, 'group').sort(byLargest)) {
    const image = icons.find((i) => i.id === entry.ref);
    if (!image) continue;
    const data = await resources.read(image, MAX_ICON_BYTES);
    const png = data ? await iconImageToPng(data) : null;
    if (png) return png;
  }
  return null;
}

function nonEmpty(value: string | undefined): string | null {
  const trimmed = value?.replace(/\0/g, '').trim();
  return trimmed ? trimmed : null;
}

export const exeReader: BinaryReader = {
  format: 'exe',
  extensions: ['.exe'],
  async read(path: string, fileName: string): Promise<AppMetadata> {
    return withFile(path, 'an .exe', async (file) => {
      const image = await readHeaders(file);
      let version: VersionInfo | null = null;
      let icon: Buffer | null = null;
      const resourceOffset = image.resourceRva ? rvaToOffset(image, image.resourceRva, 16) : null;
      if (resourceOffset !== null) {
        const resources = new Resources(file, image, resourceOffset);
        const versions = await resources.ofType(RT_VERSION);
        for (const resource of versions) {
          const data = await resources.read(resource, MAX_VERSION_BYTES);
          version = data ? parseVersionInfo(data) : null;
          if (version) break;
        }
        // A damaged icon is no reason to refuse the upload.
        icon = await readIcon(resources).catch((error: unknown) => {
          if (error instanceof ParseError) return null;
          throw error;
        });
      }

      const strings = version?.strings ?? new Map<string, string>();
      const productName = nonEmpty(strings.get('ProductName'));
      const originalFilename = nonEmpty(strings.get('OriginalFilename'));
      const fileDescription = nonEmpty(strings.get('FileDescription'));
      // Uploaders may send Windows paths ("C:\\Users\\me\\setup.exe"): keep the last component.
      const withoutExtension = (name: string): string => basename(name.split(/[\\/]/).pop()!, extname(name));
      const bundleId = productName ?? (originalFilename ? withoutExtension(originalFilename) : null) ?? withoutExtension(fileName);
      const releaseVersion = nonEmpty(strings.get('ProductVersion')) ?? version?.productVersion ?? version?.fileVersion ?? nonEmpty(strings.get('FileVersion'));
      const buildVersion = version?.fileVersion ?? nonEmpty(strings.get('FileVersion')) ?? releaseVersion;
      const extra: Record<string, unknown> = {
        machine: MACHINES[image.machine] ?? `0x${image.machine.toString(16).padStart(4, '0')}`,
        pe32plus: image.pe32plus,
        subsystem: SUBSYSTEMS[image.subsystem] ?? String(image.subsystem),
        companyName: nonEmpty(strings.get('CompanyName')),
        originalFilename,
        fileDescription,
        legalCopyright: nonEmpty(strings.get('LegalCopyright')),
        fileVersionString: nonEmpty(strings.get('FileVersion')),
        productVersionFixed: version?.productVersion ?? null,
      };
      if (!releaseVersion) extra.versionMissing = true;
      return {
        format: 'exe',
        platform: 'windows',
        bundleId,
        releaseVersion: releaseVersion ?? '0',
        buildVersion: buildVersion ?? '0',
        displayName: fileDescription ?? productName ?? bundleId,
        deviceFamily: ['desktop'],
        minOsVersion: image.subsystemVersion,
        icon,
        releaseType: null,
        provisioning: null,
        extra,
      };
    });
  },
};
