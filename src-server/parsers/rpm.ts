/**
 * Reader of .rpm (RPM package): a 96-byte lead, a signature header (padded to 8 bytes), the main
 * header, then the compressed payload, which is never read. The main header is an index of
 * (tag, type, offset, count) entries into a data store; we read NAME, VERSION, RELEASE, EPOCH,
 * SUMMARY, URL, VENDOR, ARCH, LICENSE and OS.
 *
 * Fields: bundleId and displayName = NAME, releaseVersion = VERSION, buildVersion = RELEASE.
 */
import { MAX_READ_BYTES, withFile, type BinaryFile } from './binfile.ts';
import { ParseError, type AppMetadata, type BinaryReader } from './types.ts';

const LEAD_SIZE = 96;
const LEAD_MAGIC = 0xedabeedb;
const HEADER_MAGIC = Buffer.from([0x8e, 0xad, 0xe8, 0x01]);
/** rpm itself refuses headers with more index entries than this (HEADER_TAGS_MAX). */
const MAX_INDEX_ENTRIES = 0x10000;

const TAG = { name: 1000, version: 1001, release: 1002, epoch: 1003, summary: 1004, vendor: 1011, license: 1014, url: 1020, os: 1021, arch: 1022 } as const;
const TYPE = { int32: 4, string: 6, stringArray: 8, i18nString: 9 } as const;

interface Header {
  entries: Map<number, { type: number; offset: number; count: number }>;
  data: Buffer;
  /** file offset just past this header */
  end: number;
}

async function readHeader(file: BinaryFile, offset: number, which: string): Promise<Header> {
  const intro = await file.read(offset, 16, `the ${which} header`);
  if (!intro.subarray(0, 4).equals(HEADER_MAGIC)) throw new ParseError(`not a valid .rpm: the ${which} header has a bad magic number`);
  const count = intro.readUInt32BE(8);
  const dataSize = intro.readUInt32BE(12);
  if (count > MAX_INDEX_ENTRIES) throw new ParseError(`not a valid .rpm: the ${which} header claims ${count} entries`);
  if (dataSize > MAX_READ_BYTES) throw new ParseError(`not a valid .rpm: the ${which} header is too large (${dataSize} bytes)`);
  const index = await file.read(offset + 16, count * 16, `the ${which} header index`);
  const data = await file.read(offset + 16 + count * 16, dataSize, `the ${which} header data`);
  const entries = new Map<number, { type: number; offset: number; count: number }>();
  for (let i = 0; i < count; i++) {
    const tag = index.readUInt32BE(i * 16);
    if (!entries.has(tag)) entries.set(tag, { type: index.readUInt32BE(i * 16 + 4), offset: index.readInt32BE(i * 16 + 8), count: index.readUInt32BE(i * 16 + 12) });
  }
  return { entries, data, end: offset + 16 + count * 16 + dataSize };
}

/** A string tag (the first string of an array or i18n string), or null when absent. */
function stringTag(header: Header, tag: number): string | null {
  const entry = header.entries.get(tag);
  if (!entry || ![TYPE.string, TYPE.stringArray, TYPE.i18nString].includes(entry.type as 6 | 8 | 9)) return null;
  if (entry.offset < 0 || entry.offset >= header.data.length) throw new ParseError(`not a valid .rpm: header tag ${tag} points outside its data`);
  const end = header.data.indexOf(0, entry.offset);
  if (end === -1) throw new ParseError(`not a valid .rpm: header tag ${tag} is not terminated`);
  return header.data.subarray(entry.offset, end).toString('utf8');
}

function int32Tag(header: Header, tag: number): number | null {
  const entry = header.entries.get(tag);
  if (!entry || entry.type !== TYPE.int32 || entry.count < 1) return null;
  if (entry.offset < 0 || entry.offset + 4 > header.data.length) throw new ParseError(`not a valid .rpm: header tag ${tag} points outside its data`);
  return header.data.readUInt32BE(entry.offset);
}

async function readMainHeader(file: BinaryFile): Promise<{ header: Header; source: boolean }> {
  const lead = await file.readUpTo(0, LEAD_SIZE);
  if (lead.length < 4 || lead.readUInt32BE(0) !== LEAD_MAGIC) throw new ParseError('not an .rpm: no RPM lead (bad magic number)');
  if (lead.length < LEAD_SIZE) throw new ParseError('not a valid .rpm: the file is truncated (the lead is incomplete)');
  const source = lead.readUInt16BE(6) === 1;
  const signature = await readHeader(file, LEAD_SIZE, 'signature');
  const mainOffset = signature.end + ((8 - (signature.end % 8)) % 8);
  return { header: await readHeader(file, mainOffset, 'main'), source };
}

export const rpmReader: BinaryReader = {
  format: 'rpm',
  extensions: ['.rpm'],
  async read(path: string): Promise<AppMetadata> {
    const { header, source } = await withFile(path, 'an .rpm', readMainHeader);
    const name = stringTag(header, TAG.name);
    const version = stringTag(header, TAG.version);
    const release = stringTag(header, TAG.release);
    if (!name) throw new ParseError('not a valid .rpm: its header has no NAME');
    if (!version) throw new ParseError('not a valid .rpm: its header has no VERSION');
    const epoch = int32Tag(header, TAG.epoch);
    const extra: Record<string, unknown> = {
      architecture: stringTag(header, TAG.arch),
      summary: stringTag(header, TAG.summary),
      url: stringTag(header, TAG.url),
      vendor: stringTag(header, TAG.vendor),
      license: stringTag(header, TAG.license),
      os: stringTag(header, TAG.os),
    };
    if (epoch !== null) extra.epoch = epoch;
    if (source) extra.sourcePackage = true;
    return {
      format: 'rpm',
      platform: 'linux',
      bundleId: name,
      releaseVersion: version,
      buildVersion: release ?? version,
      displayName: name,
      deviceFamily: ['desktop'],
      minOsVersion: null,
      icon: null,
      releaseType: null,
      provisioning: null,
      extra,
    };
  },
};
