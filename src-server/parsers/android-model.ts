/**
 * The common shape of what an Android package holds, whichever encoding it came in: an .apk's
 * binary XML and resources.arsc (android-binary.ts), or an .aab's protobuf XmlNode and
 * resources.pb (android-proto.ts). The manifest and icon code (android-manifest.ts,
 * android-icon.ts) only see these types.
 */

export const ANDROID_NS = 'http://schemas.android.com/apk/res/android';

/** A typed value (android::Res_value, or aapt.pb.Item), decoded. */
export type ResValue =
  | { kind: 'null' }
  /** @[package:]type/name: a resource id, and the name when the encoding carries it (protobuf) */
  | { kind: 'reference'; id: number; name?: string }
  /** ?attr/name: a theme attribute, which a package alone cannot resolve */
  | { kind: 'attribute'; id: number }
  | { kind: 'string'; value: string }
  /** a file in the package (res/...), as the protobuf table writes file values */
  | { kind: 'file'; path: string }
  | { kind: 'int'; value: number }
  | { kind: 'bool'; value: boolean }
  /** 0xAARRGGBB */
  | { kind: 'color'; argb: number }
  | { kind: 'float'; value: number }
  | { kind: 'dimension'; value: number; unit: 'px' | 'dp' | 'sp' | 'pt' | 'in' | 'mm' }
  /** a fraction of 1 (16.7% is 0.167); `parent`: relative to the parent (%p) */
  | { kind: 'fraction'; value: number; parent: boolean };

export interface XmlAttribute {
  namespace: string;
  name: string;
  /** the attribute's resource id (0x0101xxxx for android: attributes), 0 when it has none */
  resourceId: number;
  value: ResValue;
}

export interface XmlElement {
  namespace: string;
  name: string;
  attributes: XmlAttribute[];
  children: XmlElement[];
}

/** The qualifiers of one resource value that matter here. */
export interface ResConfig {
  /** BCP 47 tag ("zh-CN", "sr-Latn"); '' for the default */
  locale: string;
  /** dpi: 0 default, 120 ldpi ... 640 xxxhdpi, 0xfffe anydpi, 0xffff nodpi */
  density: number;
  /** the -vNN qualifier, 0 when absent */
  sdk: number;
  /** any other qualifier (night, car, sw600dp, mcc, orientation, ...): not what a phone shows by default */
  other: boolean;
}

export const DENSITY_ANY = 0xfffe;
export const DENSITY_NONE = 0xffff;

export interface ResEntry {
  config: ResConfig;
  value: ResValue;
}

/** A package's resource table, queried by resource id. */
export interface ResourceTable {
  /** every value of one resource, across configurations (empty when the id is unknown) */
  lookup(id: number): ResEntry[];
  /** the id of a resource named "type/name" (or "package:type/name"), or 0 */
  idOf(name: string): number;
}

// ---- Res_value decoding, shared by binary XML and resources.arsc -------------------------------

const TYPE_NULL = 0x00;
const TYPE_REFERENCE = 0x01;
const TYPE_ATTRIBUTE = 0x02;
const TYPE_STRING = 0x03;
const TYPE_FLOAT = 0x04;
const TYPE_DIMENSION = 0x05;
const TYPE_FRACTION = 0x06;
const TYPE_DYNAMIC_REFERENCE = 0x07;
const TYPE_DYNAMIC_ATTRIBUTE = 0x08;
const TYPE_INT_DEC = 0x10;
const TYPE_INT_HEX = 0x11;
const TYPE_INT_BOOLEAN = 0x12;
const TYPE_INT_COLOR_ARGB8 = 0x1c;
const TYPE_INT_COLOR_RGB8 = 0x1d;
const TYPE_INT_COLOR_ARGB4 = 0x1e;
const TYPE_INT_COLOR_RGB4 = 0x1f;

const RADIX_MULTIPLIERS = [1 / (1 << 8), 1 / (1 << 15), 1 / (1 << 23), 1 / 2 ** 31];
const DIMENSION_UNITS = ['px', 'dp', 'sp', 'pt', 'in', 'mm'] as const;

/** The float a complex (dimension or fraction) value stands for. */
export function complexToFloat(data: number): number {
  return ((data | 0) & ~0xff) * RADIX_MULTIPLIERS[(data >> 4) & 3]!;
}

export function decodeComplexDimension(data: number): ResValue {
  return { kind: 'dimension', value: complexToFloat(data), unit: DIMENSION_UNITS[data & 0xf] ?? 'px' };
}

export function decodeComplexFraction(data: number): ResValue {
  return { kind: 'fraction', value: complexToFloat(data), parent: (data & 0xf) === 1 };
}

/** Decodes a Res_value's type and data; `string` looks a string pool index up. */
export function decodeResValue(dataType: number, data: number, string: (index: number) => string): ResValue {
  switch (dataType) {
    case TYPE_NULL:
      return { kind: 'null' };
    case TYPE_REFERENCE:
    case TYPE_DYNAMIC_REFERENCE:
      return data === 0 ? { kind: 'null' } : { kind: 'reference', id: data >>> 0 };
    case TYPE_ATTRIBUTE:
    case TYPE_DYNAMIC_ATTRIBUTE:
      return { kind: 'attribute', id: data >>> 0 };
    case TYPE_STRING:
      return { kind: 'string', value: string(data >>> 0) };
    case TYPE_FLOAT: {
      const b = Buffer.alloc(4);
      b.writeUInt32LE(data >>> 0);
      return { kind: 'float', value: b.readFloatLE(0) };
    }
    case TYPE_DIMENSION:
      return decodeComplexDimension(data);
    case TYPE_FRACTION:
      return decodeComplexFraction(data);
    case TYPE_INT_DEC:
    case TYPE_INT_HEX:
      return { kind: 'int', value: data | 0 };
    case TYPE_INT_BOOLEAN:
      return { kind: 'bool', value: data !== 0 };
    case TYPE_INT_COLOR_ARGB8:
    case TYPE_INT_COLOR_ARGB4:
      return { kind: 'color', argb: data >>> 0 };
    case TYPE_INT_COLOR_RGB8:
    case TYPE_INT_COLOR_RGB4:
      return { kind: 'color', argb: (data | 0xff000000) >>> 0 };
    default:
      return { kind: 'int', value: data | 0 };
  }
}

// ---- element helpers ----------------------------------------------------------------------------

/** Resource ids of the framework attributes read here, for manifests whose attribute names were stripped. */
export const ANDROID_ATTR_IDS: Readonly<Record<string, number>> = {
  label: 0x01010001,
  icon: 0x01010002,
  name: 0x01010003,
  debuggable: 0x0101000f,
  minSdkVersion: 0x0101020c,
  versionCode: 0x0101021b,
  versionName: 0x0101021c,
  targetSdkVersion: 0x01010270,
  required: 0x0101028e,
  roundIcon: 0x0101052c,
  compileSdkVersion: 0x01010572,
  compileSdkVersionCodename: 0x01010573,
};

/** An android: attribute of an element (matched by name, or by resource id when names were stripped). */
export function androidAttr(element: XmlElement, name: string): ResValue | null {
  const id = ANDROID_ATTR_IDS[name];
  for (const attr of element.attributes) {
    if (attr.name === name && (attr.namespace === ANDROID_NS || attr.namespace === '')) return attr.value;
    if (id !== undefined && attr.resourceId === id) return attr.value;
  }
  return null;
}

/** An attribute without a namespace (the manifest's package, platformBuildVersionName, ...). */
export function plainAttr(element: XmlElement, name: string): ResValue | null {
  for (const attr of element.attributes) {
    if (attr.name === name && attr.namespace === '' && attr.resourceId === 0) return attr.value;
  }
  return null;
}

export function childElements(element: XmlElement, name: string): XmlElement[] {
  return element.children.filter((c) => c.name === name);
}

/** A value as text: strings as they are, numbers written out; null for references and null. */
export function valueText(value: ResValue | null): string | null {
  if (!value) return null;
  switch (value.kind) {
    case 'string':
      return value.value;
    case 'int':
    case 'float':
      return String(value.value);
    case 'bool':
      return String(value.value);
    default:
      return null;
  }
}

/** Removes NULs and surrounding white space (old UTF-16 pools read as bytes, padded strings). */
export function cleanText(text: string): string {
  return text.replace(/\u0000/g, '').trim();
}

// ---- resolving values through a resource table --------------------------------------------------

/** How well a configuration matches a default phone: lower is better; null = never the default. */
function defaultRank(config: ResConfig): number {
  return (config.other ? 1000 : 0) + (config.density !== 0 && config.density !== DENSITY_ANY && config.density !== DENSITY_NONE ? 10 : 0);
}

/** The value a device with no particular locale or other qualifier would see. */
export function defaultEntry(entries: ResEntry[]): ResEntry | null {
  const neutral = entries.filter((e) => e.config.locale === '');
  const pool = neutral.length > 0 ? neutral : entries;
  let best: ResEntry | null = null;
  for (const entry of pool) {
    if (
      !best ||
      defaultRank(entry.config) < defaultRank(best.config) ||
      // among equals, the highest -vNN a current device would pick
      (defaultRank(entry.config) === defaultRank(best.config) && entry.config.sdk > best.config.sdk)
    ) {
      best = entry;
    }
  }
  return best;
}

/** Follows references to the default value (at most `depth` hops); null when it cannot. */
export function resolveDefault(value: ResValue | null, table: ResourceTable | null, depth = 8): ResValue | null {
  let current = value;
  for (let i = 0; current && i < depth; i++) {
    if (current.kind !== 'reference') return current;
    if (!table) return null;
    const id = current.id || (current.name ? table.idOf(current.name) : 0);
    const entry = defaultEntry(table.lookup(id));
    current = entry ? entry.value : null;
  }
  return current && current.kind !== 'reference' ? current : null;
}

/** The text a value stands for (following references), cleaned; null when it has none. */
export function resolveText(value: ResValue | null, table: ResourceTable | null): string | null {
  const text = valueText(resolveDefault(value, table));
  if (text === null) return null;
  const cleaned = cleanText(text);
  return cleaned === '' ? null : cleaned;
}

/** The locale-specific texts of a string resource (e.g. { 'zh-CN': 'AppInfo演示' }), without the default. */
export function localizedTexts(value: ResValue | null, table: ResourceTable | null): Record<string, string> {
  const result: Record<string, string> = {};
  if (!value || value.kind !== 'reference' || !table) return result;
  const id = value.id || (value.name ? table.idOf(value.name) : 0);
  const byLocale = new Map<string, ResEntry[]>();
  for (const entry of table.lookup(id)) {
    if (entry.config.locale === '') continue;
    const list = byLocale.get(entry.config.locale) ?? [];
    list.push(entry);
    byLocale.set(entry.config.locale, list);
  }
  for (const locale of [...byLocale.keys()].sort()) {
    const entry = defaultEntry(byLocale.get(locale)!);
    const text = entry ? resolveText(entry.value, table) : null;
    if (text !== null) result[locale] = text;
  }
  return result;
}
