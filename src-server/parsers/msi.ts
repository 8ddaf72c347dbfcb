/**
 * Reader of .msi (Windows Installer packages). An MSI is an OLE compound file (cfb.ts) holding a
 * relational database: every table is a stream, stored column by column, whose cells are integers
 * or references into a shared string pool (_StringPool: a length and refcount per string;
 * _StringData: the bytes). Stream names are packed with MSI's own base64-like encoding, and table
 * streams start with U+4840. We read the Property table (Property, Value: two string columns, a
 * schema fixed by Windows Installer), the SummaryInformation property set (Template: platform and
 * languages) and, when ARPPRODUCTICON names one, the icon in the Icon table (an .ico stream).
 *
 * Fields: bundleId = UpgradeCode (stable across versions), else ProductCode; releaseVersion and
 * buildVersion = ProductVersion; displayName = ProductName.
 */
import { withFile } from './binfile.ts';
import { CompoundFile, type CfbEntry } from './cfb.ts';
import { icoToPng } from './ico.ts';
import { ParseError, type AppMetadata, type BinaryReader } from './types.ts';

const NAME_CHARS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz._';
const TABLE_PREFIX = 0x4840;
const MAX_ICON_BYTES = 16 * 1024 * 1024;

/** Decodes an MSI stream name; `table` when it is a table's stream ("!Property" style prefix). */
export function decodeStreamName(raw: string): { name: string; table: boolean } {
  let name = '';
  let table = false;
  for (let i = 0; i < raw.length; i++) {
    const code = raw.charCodeAt(i);
    if (i === 0 && code === TABLE_PREFIX) table = true;
    else if (code >= 0x3800 && code < 0x4800) name += NAME_CHARS[(code - 0x3800) & 0x3f]! + NAME_CHARS[((code - 0x3800) >> 6) & 0x3f]!;
    else if (code >= 0x4800 && code < 0x4840) name += NAME_CHARS[code - 0x4800]!;
    else name += raw[i]!;
  }
  return { name, table };
}

function decoderFor(codepage: number): TextDecoder {
  const labels: Record<number, string> = { 65001: 'utf-8', 932: 'shift_jis', 936: 'gbk', 949: 'euc-kr', 950: 'big5', 874: 'windows-874', 1200: 'utf-16le' };
  const label = labels[codepage] ?? (codepage >= 1250 && codepage <= 1258 ? `windows-${codepage}` : 'windows-1252');
  try {
    return new TextDecoder(label);
  } catch {
    return new TextDecoder('windows-1252');
  }
}

interface StringPool {
  strings: string[];
  /** bytes per string reference in tables: 2, or 3 for databases with over 65535 strings */
  refSize: number;
}

/** Decodes _StringPool + _StringData the way Windows Installer (and Wine's msi.dll) does. */
export function parseStringPool(pool: Buffer, data: Buffer): StringPool {
  if (pool.length < 4) return { strings: [''], refSize: 2 };
  const codepage = pool.readUInt16LE(0) | ((pool.readUInt16LE(2) & 0x7fff) << 16);
  const refSize = pool.readUInt16LE(2) & 0x8000 ? 3 : 2;
  const decoder = decoderFor(codepage);
  const strings: string[] = ['']; // id 0 is the null string
  const count = Math.floor(pool.length / 4);
  let offset = 0;
  let i = 1;
  while (i < count) {
    const length = pool.readUInt16LE(i * 4);
    const refs = pool.readUInt16LE(i * 4 + 2);
    if (length === 0 && refs === 0) {
      strings.push('');
      i++;
      continue;
    }
    let size: number;
    if (length === 0) {
      // A string over 64 KiB: this entry is empty and the next holds the length (high word in refs).
      if ((i + 1) * 4 + 4 > pool.length) break;
      size = pool.readUInt16LE((i + 1) * 4 + 2) * 0x10000 + pool.readUInt16LE((i + 1) * 4);
      i += 2;
    } else {
      size = length;
      i++;
    }
    if (offset + size > data.length) throw new ParseError('not a valid .msi: its string pool is damaged (strings lie beyond _StringData)');
    strings.push(decoder.decode(data.subarray(offset, offset + size)));
    offset += size;
  }
  return { strings, refSize };
}

function stringRef(table: Buffer, offset: number, refSize: number): number {
  return refSize === 3 ? table.readUIntLE(offset, 3) : table.readUInt16LE(offset);
}

/** Rows of a table whose columns are all strings (column-major storage). */
export function stringTable(table: Buffer, columns: number, pool: StringPool, what: string): string[][] {
  const rowSize = columns * pool.refSize;
  if (table.length % rowSize !== 0) throw new ParseError(`not a valid .msi: the ${what} table is damaged (its size is not a whole number of rows)`);
  const rows = table.length / rowSize;
  const out: string[][] = [];
  for (let r = 0; r < rows; r++) {
    const row: string[] = [];
    for (let c = 0; c < columns; c++) {
      const id = stringRef(table, (c * rows + r) * pool.refSize, pool.refSize);
      row.push(pool.strings[id] ?? '');
    }
    out.push(row);
  }
  return out;
}

/** String properties (VT_LPSTR) of an OLE property set stream such as SummaryInformation, by id. */
export function parsePropertySet(data: Buffer): Map<number, string> {
  const found = new Map<number, string>();
  if (data.length < 48 || data.readUInt16LE(0) !== 0xfffe) return found;
  const section = data.readUInt32LE(44);
  if (section + 8 > data.length) return found;
  const count = Math.min(data.readUInt32LE(section + 4), 1024);
  let codepage = 1252;
  const pending: Array<[number, number]> = [];
  for (let i = 0; i < count && section + 8 + i * 8 + 8 <= data.length; i++) {
    const id = data.readUInt32LE(section + 8 + i * 8);
    const at = section + data.readUInt32LE(section + 12 + i * 8);
    if (at + 8 > data.length) continue;
    const type = data.readUInt32LE(at) & 0xffff;
    if (id === 1 && type === 2) codepage = data.readUInt16LE(at + 4);
    if (type === 30) pending.push([id, at]);
  }
  const decoder = decoderFor(codepage);
  for (const [id, at] of pending) {
    const size = data.readUInt32LE(at + 4);
    if (at + 8 + size > data.length) continue;
    found.set(id, decoder.decode(data.subarray(at + 8, at + 8 + size)).replace(/\0+$/, ''));
  }
  return found;
}

const SUMMARY = { title: 2, subject: 3, author: 4, comments: 6, template: 7, revision: 9 } as const;

export const msiReader: BinaryReader = {
  format: 'msi',
  extensions: ['.msi'],
  async read(path: string): Promise<AppMetadata> {
    return withFile(path, 'an .msi', async (file) => {
      const cfb = await CompoundFile.open(file);
      const tables = new Map<string, CfbEntry>();
      const streams = new Map<string, CfbEntry>();
      for (const [raw, entry] of cfb.rootChildren()) {
        if (entry.type !== 2) continue;
        const { name, table } = decodeStreamName(raw);
        (table ? tables : streams).set(name, entry);
      }
      const poolEntry = tables.get('_StringPool');
      const dataEntry = tables.get('_StringData');
      if (!poolEntry || !dataEntry) throw new ParseError('not a valid .msi: it is a compound file without an installer database (no string pool)');
      const propertyEntry = tables.get('Property');
      if (!propertyEntry) throw new ParseError('not a valid .msi: its Property table is missing');
      const pool = parseStringPool(await cfb.read(poolEntry), await cfb.read(dataEntry));
      const properties = new Map(stringTable(await cfb.read(propertyEntry), 2, pool, 'Property').map(([key, value]) => [key!, value!]));

      const productName = properties.get('ProductName') || null;
      const productVersion = properties.get('ProductVersion') || null;
      const productCode = properties.get('ProductCode') || null;
      const upgradeCode = properties.get('UpgradeCode') || null;
      const bundleId = upgradeCode ?? productCode;
      if (!bundleId) throw new ParseError('not a valid .msi: its Property table has neither UpgradeCode nor ProductCode');
      if (!productVersion) throw new ParseError('not a valid .msi: its Property table has no ProductVersion');

      const summaryEntry = streams.get('\u0005SummaryInformation');
      const summary = summaryEntry ? parsePropertySet(await cfb.read(summaryEntry, 1024 * 1024)) : new Map<number, string>();
      const [platform, languages] = (summary.get(SUMMARY.template) ?? '').split(';');

      let icon: Buffer | null = null;
      const iconName = properties.get('ARPPRODUCTICON');
      const iconStream = iconName ? streams.get(`Icon.${iconName}`) : undefined;
      if (iconStream && iconStream.size <= MAX_ICON_BYTES) {
        // A damaged icon is no reason to refuse the upload.
        icon = await cfb.read(iconStream, MAX_ICON_BYTES).then(icoToPng, (error: unknown) => {
          if (error instanceof ParseError) return null;
          throw error;
        });
      }

      return {
        format: 'msi',
        platform: 'windows',
        bundleId,
        releaseVersion: productVersion,
        buildVersion: productVersion,
        displayName: productName ?? bundleId,
        deviceFamily: ['desktop'],
        minOsVersion: null,
        icon,
        releaseType: null,
        provisioning: null,
        extra: {
          manufacturer: properties.get('Manufacturer') || null,
          productCode,
          upgradeCode,
          productLanguage: properties.get('ProductLanguage') || null,
          architecture: platform || null,
          languages: languages ? languages.split(',').filter(Boolean) : [],
          packageCode: summary.get(SUMMARY.revision) ?? null,
          author: summary.get(SUMMARY.author) ?? null,
        },
      };
    });
  },
};
