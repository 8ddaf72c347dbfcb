/**
 * resources.arsc reading on hand-built tables: the encodings the fixtures do not have (UTF-16 pools
 * with CJK text, 16-bit entry offsets, sparse types, compact entries, three-letter languages).
 */
import { describe, expect, it } from 'vitest';
import { ArscTable, parseBinaryXml } from '../../src-server/parsers/android-binary.ts';
import { localizedTexts, resolveText } from '../../src-server/parsers/android-model.ts';

function pad4(buf: Buffer): Buffer {
  return buf.length % 4 === 0 ? buf : Buffer.concat([buf, Buffer.alloc(4 - (buf.length % 4))]);
}

function chunk(type: number, header: Buffer, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt16LE(type, 0);
  head.writeUInt16LE(8 + header.length, 2);
  head.writeUInt32LE(8 + header.length + body.length, 4);
  return Buffer.concat([head, header, body]);
}

function stringPool(strings: string[], utf8: boolean): Buffer {
  const data: Buffer[] = [];
  const offsets: number[] = [];
  let at = 0;
  for (const s of strings) {
    offsets.push(at);
    let encoded: Buffer;
    if (utf8) {
      const bytes = Buffer.from(s, 'utf8');
      encoded = Buffer.concat([Buffer.from([s.length, bytes.length]), bytes, Buffer.from([0])]);
    } else {
      const len = Buffer.alloc(2);
      len.writeUInt16LE(s.length);
      encoded = Buffer.concat([len, Buffer.from(s, 'utf16le'), Buffer.alloc(2)]);
    }
    data.push(encoded);
    at += encoded.length;
  }
  const header = Buffer.alloc(20);
  header.writeUInt32LE(strings.length, 0);
  header.writeUInt32LE(0, 4);
  header.writeUInt32LE(utf8 ? 0x100 : 0, 8);
  header.writeUInt32LE(28 + strings.length * 4, 12);
  const offsetTable = Buffer.alloc(strings.length * 4);
  offsets.forEach((o, i) => offsetTable.writeUInt32LE(o, i * 4));
  return chunk(0x0001, header, pad4(Buffer.concat([offsetTable, ...data])));
}

/** Packs a language (base 'a') or region (base '0') the way ResTable_config does. */
function packLocalePart(text: string, base: number): [number, number] {
  if (text.length === 0) return [0, 0];
  if (text.length === 2) return [text.charCodeAt(0), text.charCodeAt(1)];
  const [first, second, third] = [...text].map((c) => c.charCodeAt(0) - base) as [number, number, number];
  return [0x80 | (third << 2) | (second >> 3), first | ((second & 7) << 5)];
}

interface TypeSpec {
  id: number;
  language?: string;
  region?: string;
  density?: number;
  encoding: 'dense' | 'offset16' | 'sparse';
  compact?: boolean;
  entryCount: number;
  /** entry index -> [key index, data type, data] */
  entries: Map<number, [number, number, number]>;
}

function typeChunk(spec: TypeSpec): Buffer {
  const config = Buffer.alloc(64);
  config.writeUInt32LE(64, 0);
  const [l0, l1] = packLocalePart(spec.language ?? '', 0x61);
  const [r0, r1] = packLocalePart(spec.region ?? '', 0x30);
  config[8] = l0;
  config[9] = l1;
  config[10] = r0;
  config[11] = r1;
  config.writeUInt16LE(spec.density ?? 0, 14);

  const entryBytes: Buffer[] = [];
  const offsets = new Map<number, number>();
  let at = 0;
  for (const [index, [key, dataType, data]] of [...spec.entries].sort((a, b) => a[0] - b[0])) {
    offsets.set(index, at);
    let e: Buffer;
    if (spec.compact) {
      e = Buffer.alloc(8);
      e.writeUInt16LE(key, 0);
      e.writeUInt16LE(0x0008 | (dataType << 8), 2);
      e.writeUInt32LE(data >>> 0, 4);
    } else {
      e = Buffer.alloc(16);
      e.writeUInt16LE(8, 0);
      e.writeUInt16LE(0, 2);
      e.writeUInt32LE(key, 4);
      e.writeUInt16LE(8, 8);
      e[11] = dataType;
      e.writeUInt32LE(data >>> 0, 12);
    }
    entryBytes.push(e);
    at += e.length;
  }
  let table: Buffer;
  if (spec.encoding === 'sparse') {
    table = Buffer.alloc(offsets.size * 4);
    [...offsets].forEach(([index, offset], i) => {
      table.writeUInt16LE(index, i * 4);
      table.writeUInt16LE(offset / 4, i * 4 + 2);
    });
  } else if (spec.encoding === 'offset16') {
    table = Buffer.alloc(spec.entryCount * 2).fill(0xff);
    for (const [index, offset] of offsets) table.writeUInt16LE(offset / 4, index * 2);
    table = pad4(table);
  } else {
    table = Buffer.alloc(spec.entryCount * 4).fill(0xff);
    for (const [index, offset] of offsets) table.writeUInt32LE(offset, index * 4);
  }
  const headerSize = 20 + config.length;
  const header = Buffer.alloc(12);
  header[0] = spec.id;
  header[1] = spec.encoding === 'sparse' ? 0x01 : spec.encoding === 'offset16' ? 0x02 : 0;
  header.writeUInt32LE(spec.encoding === 'sparse' ? offsets.size : spec.entryCount, 4);
  header.writeUInt32LE(headerSize + table.length, 8);
  return chunk(0x0201, Buffer.concat([header, config]), Buffer.concat([table, ...entryBytes]));
}

function arsc(values: string[], utf8: boolean, typeNames: string[], keys: string[], types: TypeSpec[]): Buffer {
  const typePool = stringPool(typeNames, true);
  const keyPool = stringPool(keys, true);
  const pkgHeader = Buffer.alloc(288 - 8);
  pkgHeader.writeUInt32LE(0x7f, 0);
  pkgHeader.write('com.example', 4, 'utf16le');
  pkgHeader.writeUInt32LE(288, 260); // type strings
  pkgHeader.writeUInt32LE(288 + typePool.length, 268); // key strings
  const pkg = chunk(0x0200, pkgHeader, Buffer.concat([typePool, keyPool, ...types.map(typeChunk)]));
  const tableHeader = Buffer.alloc(4);
  tableHeader.writeUInt32LE(1, 0);
  return chunk(0x0002, tableHeader, Buffer.concat([stringPool(values, utf8), pkg]));
}

const STRING = 0x03;
const COLOR_RGB8 = 0x1d;

describe('resources.arsc reading', () => {
  for (const [encoding, utf8, compact] of [
    ['dense', true, false],
    ['offset16', false, false],
    ['sparse', false, true],
  ] as const) {
    it(`reads ${encoding} types with ${utf8 ? 'UTF-8' : 'UTF-16'} strings${compact ? ' and compact entries' : ''}`, () => {
      const values = ['Demo', '演示应用', 'Demo PH', 'res/mipmap-mdpi/ic.png', 'res/mipmap-xxxhdpi/ic.webp'];
      const table = new ArscTable(
        arsc(values, utf8, ['string', 'mipmap', 'color'], ['app_name', 'other', 'ic', 'brand'], [
          { id: 1, encoding, compact, entryCount: 3, entries: new Map([[2, [0, STRING, 0]]]) },
          { id: 1, encoding, compact, entryCount: 3, language: 'zh', region: 'CN', entries: new Map([[2, [0, STRING, 1]]]) },
          { id: 1, encoding, compact, entryCount: 3, language: 'fil', region: 'PH', entries: new Map([[2, [0, STRING, 2]]]) },
          { id: 2, encoding, compact, entryCount: 1, density: 160, entries: new Map([[0, [2, STRING, 3]]]) },
          { id: 2, encoding, compact, entryCount: 1, density: 640, entries: new Map([[0, [2, STRING, 4]]]) },
          { id: 3, encoding, compact, entryCount: 1, entries: new Map([[0, [3, COLOR_RGB8, 0x3ddc84]]]) },
        ]),
      );
      const label = table.lookup(0x7f010002);
      expect(label.map((e) => [e.config.locale, e.value])).toEqual([
        ['', { kind: 'string', value: 'Demo' }],
        ['zh-CN', { kind: 'string', value: '演示应用' }],
        ['fil-PH', { kind: 'string', value: 'Demo PH' }],
      ]);
      expect(table.lookup(0x7f010000)).toEqual([]);
      expect(table.lookup(0x7f010001)).toEqual([]);
      expect(table.lookup(0x7f099999)).toEqual([]);
      expect(table.lookup(0x7f020000).map((e) => [e.config.density, e.value])).toEqual([
        [160, { kind: 'file', path: 'res/mipmap-mdpi/ic.png' }],
        [640, { kind: 'file', path: 'res/mipmap-xxxhdpi/ic.webp' }],
      ]);
      expect(table.lookup(0x7f030000)[0]!.value).toEqual({ kind: 'color', argb: 0xff3ddc84 });
      expect(table.idOf('string/app_name')).toBe(0x7f010002);
      expect(table.idOf('@mipmap/ic')).toBe(0x7f020000);
      expect(table.idOf('string/missing')).toBe(0);

      const ref = { kind: 'reference', id: 0x7f010002 } as const;
      expect(resolveText(ref, table)).toBe('Demo');
      expect(localizedTexts(ref, table)).toEqual({ 'fil-PH': 'Demo PH', 'zh-CN': '演示应用' });
    });
  }

  it('refuses what is not a resource table, and compiled XML that is not compiled XML', () => {
    expect(() => new ArscTable(Buffer.from('PK\u0003\u0004 not a table'))).toThrow(/not a resource table/);
    expect(() => parseBinaryXml(Buffer.from('<?xml version="1.0"?><manifest/>'))).toThrow(/plain-text XML/);
    expect(() => parseBinaryXml(Buffer.from([3, 0, 8, 0, 0xff, 0xff, 0, 0]))).toThrow(/damaged chunk/);
  });
});
