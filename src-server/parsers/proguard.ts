/**
 * Android mapping archives (R15): a zip holding R8/ProGuard's `mapping.txt`, the `R.txt` symbol list
 * and/or an `AndroidManifest.xml`, each at any depth of the zip.
 *
 * - mapping.txt is named by a UUID as Zealot names it: UUIDv5 of the file's bytes in the namespace
 *   UUIDv5(DNS, "icyleaf.com"). It is hashed as it inflates: a mapping of hundreds of megabytes is
 *   never held in memory.
 * - AndroidManifest.xml may be compiled (as in an .apk) or plain text (as Gradle's intermediates
 *   leave it); either gives the package name and versions through the APK reader's manifest code.
 * - R.txt is only listed.
 */
import { DOMParser, type Element } from '@xmldom/xmldom';
import { createHash, type Hash } from 'node:crypto';
import { parseBinaryXml } from './android-binary.ts';
import { readAndroidManifest } from './android-manifest.ts';
import type { XmlAttribute, XmlElement } from './android-model.ts';
import { ParseError } from './types.ts';
import type { ZipArchive, ZipEntryInfo } from './zip.ts';

const MAPPING = 'mapping.txt';
const SYMBOLS = 'R.txt';
const MANIFEST = 'AndroidManifest.xml';
/** Real manifests are kilobytes, merged ones rarely more than a few hundred. */
const MAX_MANIFEST_BYTES = 8 * 1024 * 1024;

/** DNS namespace of RFC 9562 */
const DNS_NAMESPACE = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';

export interface AndroidEntries {
  mapping: string | null;
  symbols: string | null;
  manifest: string | null;
}

export interface ProguardArchive {
  /** UUIDv5 of mapping.txt; null when the zip has none */
  uuid: string | null;
  packageName: string | null;
  versionName: string | null;
  versionCode: string | null;
  /** the zip's files (not directories, not macOS junk) with their sizes */
  files: { name: string; size: number }[];
}

/** A SHA-1 that has taken a UUID namespace: feed it the name, then `uuidV5` of it. */
function inNamespace(namespace: string): Hash {
  return createHash('sha1').update(Buffer.from(namespace.replace(/-/g, ''), 'hex'));
}

/** The UUIDv5 (RFC 9562) of a namespace and name, from their SHA-1. */
function uuidV5(hash: Hash): string {
  const bytes = hash.digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Zealot's (app-info's) namespace for mapping UUIDs. */
const MAPPING_NAMESPACE = uuidV5(inNamespace(DNS_NAMESPACE).update('icyleaf.com'));

/** The UUID of a mapping file, hashed as its bytes stream by. */
export async function mappingUuid(content: AsyncIterable<Buffer>): Promise<string> {
  const hash = inNamespace(MAPPING_NAMESPACE);
  for await (const chunk of content) hash.update(chunk);
  return uuidV5(hash);
}

/** The Android files among a zip's file names; the same file twice (at two paths) is an error. */
export function findAndroidEntries(names: string[]): AndroidEntries {
  const found: AndroidEntries = { mapping: null, symbols: null, manifest: null };
  const kinds = { mapping: MAPPING, symbols: SYMBOLS, manifest: MANIFEST } as const;
  for (const name of names) {
    const base = name.slice(name.lastIndexOf('/') + 1);
    for (const [kind, file] of Object.entries(kinds) as [keyof AndroidEntries, string][]) {
      if (base !== file) continue;
      if (found[kind] !== null) throw new ParseError(`the archive holds more than one ${file} (${found[kind]} and ${name}): upload one build's files`);
      found[kind] = name;
    }
  }
  return found;
}

/** A plain-text XML element as the element tree the manifest reader takes (values as strings). */
function elementOf(node: Element): XmlElement {
  const attributes: XmlAttribute[] = [];
  for (let i = 0; i < node.attributes.length; i++) {
    const attr = node.attributes.item(i)!;
    if (attr.name === 'xmlns' || attr.prefix === 'xmlns') continue;
    attributes.push({ namespace: attr.namespaceURI ?? '', name: attr.localName ?? attr.name, resourceId: 0, value: { kind: 'string', value: attr.value } });
  }
  const children: XmlElement[] = [];
  for (let child = node.firstChild; child; child = child.nextSibling) {
    if (child.nodeType === 1) children.push(elementOf(child as Element));
  }
  return { namespace: node.namespaceURI ?? '', name: node.localName ?? node.nodeName, attributes, children };
}

function parseTextXml(data: Buffer): XmlElement {
  const parser = new DOMParser({
    onError: (level, message) => {
      if (level !== 'warning') throw new Error(message);
    },
  });
  const root = parser.parseFromString(data.toString('utf8').replace(/^\uFEFF/, ''), 'text/xml').documentElement;
  if (!root) throw new Error('it has no root element');
  return elementOf(root);
}

async function readManifest(zip: ZipArchive, entry: string) {
  const data = await zip.read(entry, MAX_MANIFEST_BYTES);
  try {
    const text = /^\uFEFF?\s*</.test(data.subarray(0, 64).toString('utf8'));
    return readAndroidManifest(text ? parseTextXml(data) : parseBinaryXml(data), null);
  } catch (error) {
    throw new ParseError(`${entry} cannot be read: ${(error as Error).message}`, { cause: error });
  }
}

/** Reads what `findAndroidEntries` found; `files` are the zip's files, listed as they are. */
export async function readProguardArchive(zip: ZipArchive, entries: AndroidEntries, files: ZipEntryInfo[]): Promise<ProguardArchive> {
  const uuid = entries.mapping === null ? null : await mappingUuid((await zip.stream(entries.mapping)) as AsyncIterable<Buffer>);
  const manifest = entries.manifest === null ? null : await readManifest(zip, entries.manifest);
  return {
    uuid,
    packageName: manifest?.package ?? null,
    versionName: manifest?.versionName ?? null,
    versionCode: manifest?.versionCode ?? null,
    files: files.map((e) => ({ name: e.name, size: e.uncompressedSize })),
  };
}
