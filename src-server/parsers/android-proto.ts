/**
 * The protobuf resource formats of an Android App Bundle (aapt2 --proto-format): XmlNode for the
 * manifest and res/*.xml, ResourceTable for resources.pb. Field numbers follow aapt2's public
 * Resources.proto and Configuration.proto (package aapt.pb).
 */
import { decodeComplexDimension, decodeComplexFraction, type ResConfig, type ResEntry, type ResourceTable, type ResValue, type XmlAttribute, type XmlElement } from './android-model.ts';
import { ProtoMessage } from './protobuf.ts';

// XmlNode { element = 1; text = 2 }
// XmlElement { namespace_declaration = 1; namespace_uri = 2; name = 3; attribute = 4; child = 5 }
// XmlAttribute { namespace_uri = 1; name = 2; value = 3; resource_id = 5; compiled_item = 6 }

/** Parses a protobuf XmlNode document into its root element. */
export function parseProtoXml(data: Buffer): XmlElement {
  const node = ProtoMessage.decode(data);
  const element = node.message(1);
  if (!element) throw new Error('the XmlNode has no element');
  return readElement(element, 0);
}

function readElement(message: ProtoMessage, depth: number): XmlElement {
  if (depth > 256) throw new Error('elements nested deeper than 256');
  const attributes: XmlAttribute[] = [];
  for (const a of message.messages(4)) {
    const item = a.message(6);
    const compiled = item ? readItem(item) : null;
    attributes.push({
      namespace: a.string(1),
      name: a.string(2),
      resourceId: a.uint(5),
      value: compiled ?? { kind: 'string', value: a.string(3) },
    });
  }
  const children: XmlElement[] = [];
  for (const child of message.messages(5)) {
    const element = child.message(1);
    if (element) children.push(readElement(element, depth + 1));
  }
  return { namespace: message.string(2), name: message.string(3), attributes, children };
}

// Item { ref = 1; str = 2; raw_str = 3; styled_str = 4; file = 5; id = 6; prim = 7 }
// Reference { type = 1 (0 reference, 1 attribute); id = 2; name = 3 }
// Primitive { null = 1; empty = 2; float = 3; dimension = 13; fraction = 14; int_decimal = 6;
//   int_hexadecimal = 7; boolean = 8; color_argb8 = 9; color_rgb8 = 10; color_argb4 = 11;
//   color_rgb4 = 12; dimension_deprecated = 4; fraction_deprecated = 5 }

/** Decodes an aapt.pb.Item; null when it holds nothing usable (an Id, an empty message). */
export function readItem(item: ProtoMessage): ResValue | null {
  const ref = item.message(1);
  if (ref) {
    const id = ref.uint(2);
    const name = ref.string(3);
    if (ref.uint(1) === 1) return { kind: 'attribute', id };
    if (id === 0 && name === '') return { kind: 'null' };
    return name ? { kind: 'reference', id, name } : { kind: 'reference', id };
  }
  for (const field of [2, 3, 4]) {
    const str = item.message(field);
    if (str) return { kind: 'string', value: str.string(1) };
  }
  const file = item.message(5);
  if (file) return { kind: 'file', path: file.string(1) };
  const prim = item.message(7);
  if (prim) return readPrimitive(prim);
  return null;
}

function readPrimitive(p: ProtoMessage): ResValue {
  if (p.has(1) || p.has(2)) return { kind: 'null' };
  if (p.has(3)) return { kind: 'float', value: p.float(3) };
  if (p.has(13)) return decodeComplexDimension(p.uint(13));
  if (p.has(14)) return decodeComplexFraction(p.uint(14));
  if (p.has(6)) return { kind: 'int', value: p.int32(6) };
  if (p.has(7)) return { kind: 'int', value: p.uint(7) | 0 };
  if (p.has(8)) return { kind: 'bool', value: p.bool(8) };
  if (p.has(9) || p.has(11)) return { kind: 'color', argb: p.has(9) ? p.uint(9) : p.uint(11) };
  if (p.has(10) || p.has(12)) return { kind: 'color', argb: ((p.has(10) ? p.uint(10) : p.uint(12)) | 0xff000000) >>> 0 };
  if (p.has(4)) return { kind: 'dimension', value: p.float(4), unit: 'px' };
  if (p.has(5)) return { kind: 'fraction', value: p.float(5), parent: false };
  // proto3 leaves zero values out: an empty Primitive is a zero integer
  return { kind: 'int', value: 0 };
}

// ResourceTable { source_pool = 1; package = 2 }
// Package { package_id = 1 { id = 1 }; package_name = 2; type = 3 }
// Type { type_id = 1 { id = 1 }; name = 2; entry = 3 }
// Entry { entry_id = 1 { id = 1 }; name = 2; config_value = 6 }
// ConfigValue { config = 1; value = 2 }   Value { item = 4; compound_value = 5 }

/** Reads the qualifiers that matter from an aapt.pb.Configuration. */
function readConfig(c: ProtoMessage | null): ResConfig {
  if (!c) return { locale: '', density: 0, sdk: 0, other: false };
  let other = false;
  for (const field of c.fields.keys()) {
    // locale (3), density (18), sdk_version (24) are read; product (25) is build-time only
    if (field !== 3 && field !== 18 && field !== 24 && field !== 25) other = true;
  }
  return { locale: normalizeLocale(c.string(3)), density: c.uint(18), sdk: c.uint(24), other };
}

/** aapt2 writes BCP 47 tags, or b+lang+Script+REGION in older builds: make both "lang-Script-REGION". */
function normalizeLocale(locale: string): string {
  if (locale.startsWith('b+')) return locale.slice(2).split('+').join('-');
  return locale;
}

interface ProtoEntry {
  type: string;
  /** the Entry message; its values are decoded when looked up */
  message: ProtoMessage;
  values?: ResEntry[];
}

/** A decoded resources.pb. Only items are kept (compound values, styles and arrays, are not needed). */
export class ProtoResourceTable implements ResourceTable {
  private readonly byId = new Map<number, ProtoEntry>();
  private readonly byName = new Map<string, number>();

  constructor(data: Buffer) {
    const table = ProtoMessage.decode(data);
    for (const pkg of table.messages(2)) {
      const packageId = pkg.message(1)?.uint(1) ?? 0x7f;
      const packageName = pkg.string(2);
      for (const type of pkg.messages(3)) {
        const typeId = type.message(1)?.uint(1) ?? 0;
        const typeName = type.string(2);
        for (const entry of type.messages(3)) {
          const entryId = entry.message(1)?.uint(1) ?? 0;
          const id = ((packageId << 24) | (typeId << 16) | entryId) >>> 0;
          this.byId.set(id, { type: typeName, message: entry });
          const name = `${typeName}/${entry.string(2)}`;
          if (!this.byName.has(name)) this.byName.set(name, id);
          if (packageName) this.byName.set(`${packageName}:${name}`, id);
        }
      }
    }
  }

  lookup(id: number): ResEntry[] {
    const entry = this.byId.get(id);
    if (!entry) return [];
    if (!entry.values) {
      const values: ResEntry[] = [];
      for (const cv of entry.message.messages(6)) {
        const item = cv.message(2)?.message(4);
        const value = item ? readItem(item) : null;
        if (value) values.push({ config: readConfig(cv.message(1)), value });
      }
      entry.values = values;
    }
    return entry.values;
  }

  idOf(name: string): number {
    const bare = name.replace(/^[@?]\*?/, '');
    return this.byName.get(bare) ?? this.byName.get(bare.replace(/^[\w.]+:/, '')) ?? 0;
  }
}

