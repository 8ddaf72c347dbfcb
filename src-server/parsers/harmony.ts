/**
 * Readers of HarmonyOS packages.
 *
 * A .hap (one module) is a zip with module.json (the stage model; API 9+) or config.json (the older
 * FA model), resources.index (the compiled resource table) and resources/base/media/*. A .app (a
 * bundle for distribution) is a zip of pack.info and one or more .hap modules; we read the entry
 * module (pack.info's package whose moduleType is "entry"), copied to a temporary file next to the
 * upload because yauzl reads zips from files.
 *
 * Fields: bundleId = app.bundleName; releaseVersion = app.versionName; buildVersion =
 * String(app.versionCode); displayName = app.label resolved through resources.index
 * ("$string:app_name" -> "MyApplication"), else bundleName; minOsVersion = app.minAPIVersion as
 * written ("50000012"), with the API level (12) in extra.minApiLevel; deviceFamily =
 * module.deviceTypes; icon = app.icon ("$media:app_icon") resolved through resources.index, else
 * resources/base/media/<name>.png.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import sharp from 'sharp';
import { toPng } from './images.ts';
import { ParseError, type AppMetadata, type BinaryReader } from './types.ts';
import { MAX_ENTRY_BYTES, withZip, type ZipArchive } from './zip.ts';

/** The most a nested .hap may take on disk when copied out of an .app. */
const MAX_NESTED_HAP_BYTES = 4 * 1024 * 1024 * 1024;
const MAX_JSON_BYTES = 4 * 1024 * 1024;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

async function readJson(zip: ZipArchive, name: string, what: string): Promise<Json> {
  const data = await zip.read(name, MAX_JSON_BYTES);
  let value: unknown;
  try {
    value = JSON.parse(data.toString('utf8').replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new ParseError(`not a valid ${what}: ${name} is not valid JSON (${(error as Error).message})`, { cause: error });
  }
  if (!isObject(value)) throw new ParseError(`not a valid ${what}: ${name} is not a JSON object`);
  return value;
}

function text(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

// ---------------------------------------------------------------------------------------------
// resources.index (restool output): a 128-byte version string ("Restool 5.008"), the file size,
// the number of configurations; then per configuration "KEYS", the offset of its id set, and its
// (type, value) qualifier pairs (none for base); each id set "IDSS" lists (resource id, item offset);
// an item is: size, resource type, id, value length + value (NUL-terminated), name length + name.

interface ResourceItem {
  type: number;
  id: number;
  name: string;
  value: string;
}

interface ResourceConfig {
  /** qualifiers such as language "en" and region "US"; empty for the base configuration */
  qualifiers: number;
  items: Map<number, ResourceItem>;
}

const RES_TYPE_STRING = 9;
const RES_TYPE_MEDIA = 19;
const MAX_RESOURCE_CONFIGS = 4096;

/** Decodes resources.index; null when it is not in the layout we know (the caller falls back). */
export function parseResourceIndex(data: Buffer): ResourceConfig[] | null {
  try {
    if (data.length < 136) return null;
    const configCount = data.readUInt32LE(132);
    if (configCount > MAX_RESOURCE_CONFIGS) return null;
    const configs: ResourceConfig[] = [];
    let offset = 136;
    for (let c = 0; c < configCount; c++) {
      if (data.toString('latin1', offset, offset + 4) !== 'KEYS') return null;
      const idSetOffset = data.readUInt32LE(offset + 4);
      const keyCount = data.readUInt32LE(offset + 8);
      if (keyCount > 64) return null;
      offset += 12 + keyCount * 8;
      if (data.toString('latin1', idSetOffset, idSetOffset + 4) !== 'IDSS') return null;
      const idCount = data.readUInt32LE(idSetOffset + 4);
      if (idCount > (data.length - idSetOffset) / 8) return null;
      const items = new Map<number, ResourceItem>();
      for (let i = 0; i < idCount; i++) {
        const itemOffset = data.readUInt32LE(idSetOffset + 8 + i * 8 + 4);
        const type = data.readUInt32LE(itemOffset + 4);
        const id = data.readUInt32LE(itemOffset + 8);
        const valueLength = data.readUInt16LE(itemOffset + 12);
        const valueStart = itemOffset + 14;
        const nameLength = data.readUInt16LE(valueStart + valueLength);
        const nameStart = valueStart + valueLength + 2;
        if (nameStart + nameLength > data.length) return null;
        const value = data.toString('utf8', valueStart, valueStart + valueLength).replace(/\0+$/, '');
        const name = data.toString('utf8', nameStart, nameStart + nameLength).replace(/\0+$/, '');
        items.set(id, { type, id, name, value });
      }
      configs.push({ qualifiers: keyCount, items });
    }
    return configs;
  } catch {
    return null; // a RangeError from a read past the end: not a layout we know
  }
}

/**
 * Resolves "$string:name" / "$media:name" (or a resource id) to its value, preferring the base
 * configuration, then any other. Null when it cannot be resolved.
 */
function resolveResource(configs: ResourceConfig[] | null, type: number, ref: string, id: number | null): string | null {
  if (!configs) return null;
  const name = /^\$[a-z]+:(.+)$/.exec(ref)?.[1] ?? null;
  const ordered = [...configs].sort((a, b) => a.qualifiers - b.qualifiers);
  for (const config of ordered) {
    const byId = id !== null ? config.items.get(id) : undefined;
    if (byId && byId.type === type) return byId.value;
    if (name) {
      for (const item of config.items.values()) if (item.type === type && item.name === name) return item.value;
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------------

/** The API level in an encoded HarmonyOS API version: 50000012 -> "12" (an OpenHarmony 12 stays "12"). */
export function apiLevel(version: unknown): string | null {
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 0) return null;
  return String(version >= 1_000_000 ? version % 1000 : version);
}

/** The zip paths a media reference may name: resolved through resources.index, else by file name. */
function mediaCandidates(zip: ZipArchive, ref: string, id: number | null, configs: ResourceConfig[] | null): string[] {
  const candidates: string[] = [];
  const resolved = resolveResource(configs, RES_TYPE_MEDIA, ref, id);
  // The index names files as "<module>/resources/base/media/x.png"; in the .hap they are "resources/...".
  const at = resolved?.indexOf('resources/') ?? -1;
  if (resolved && at >= 0) candidates.push(resolved.slice(at));
  const name = /^\$media:(.+)$/.exec(ref)?.[1];
  if (name) {
    for (const ext of ['png', 'webp', 'jpg', 'jpeg', 'svg', 'json']) candidates.push(`resources/base/media/${name}.${ext}`);
    for (const entry of zip.entries) {
      const match = /^resources\/[^/]+\/media\/([^/]+)\.(png|webp|json)$/.exec(entry.name);
      if (match?.[1] === name) candidates.push(entry.name);
    }
  }
  return [...new Set(candidates)].filter((c) => zip.has(c));
}

async function readMedia(zip: ZipArchive, path: string): Promise<Buffer | null> {
  const entry = zip.entries.find((e) => e.name === path);
  if (!entry || entry.uncompressedSize > MAX_ENTRY_BYTES) return null;
  return zip.read(path);
}

async function readIcon(zip: ZipArchive, ref: string | null, id: number | null, configs: ResourceConfig[] | null, depth = 0): Promise<Buffer | null> {
  if (!ref) return null;
  for (const candidate of mediaCandidates(zip, ref, id, configs)) {
    const data = await readMedia(zip, candidate);
    if (!data) continue;
    if (candidate.endsWith('.json')) {
      // A layered icon: {"layered-image": {"background": "$media:x", "foreground": "$media:y"}}.
      if (depth > 0) continue;
      const png = await layeredIcon(zip, data, configs);
      if (png) return png;
      continue;
    }
    const png = await toPng(data);
    if (png) return png;
  }
  return null;
}

/** Composites a layered icon's foreground over its background (either alone when the other is missing). */
async function layeredIcon(zip: ZipArchive, json: Buffer, configs: ResourceConfig[] | null): Promise<Buffer | null> {
  let layers: unknown;
  try {
    layers = (JSON.parse(json.toString('utf8')) as Json)['layered-image'];
  } catch {
    return null;
  }
  if (!isObject(layers)) return null;
  const background = await readIcon(zip, text(layers.background), null, configs, 1);
  const foreground = await readIcon(zip, text(layers.foreground), null, configs, 1);
  if (!background || !foreground) return background ?? foreground;
  try {
    const { width, height } = await sharp(background).metadata();
    const top = await sharp(foreground).resize({ width, height, fit: 'contain', background: { r: 0, g: 0, b: 0, alpha: 0 } }).png().toBuffer();
    return await sharp(background).composite([{ input: top }]).png().toBuffer();
  } catch {
    return background;
  }
}

/** Reads the metadata of one .hap zip. `what` names the container in error messages. */
async function readHap(zip: ZipArchive, what: string, format: 'hap' | 'harmony-app'): Promise<AppMetadata> {
  let app: Json;
  let module: Json;
  let stage = true;
  if (zip.has('module.json')) {
    const manifest = await readJson(zip, 'module.json', what);
    if (!isObject(manifest.app) || !isObject(manifest.module)) throw new ParseError(`not a valid ${what}: module.json has no "app" or "module" object`);
    app = manifest.app;
    module = manifest.module;
  } else if (zip.has('config.json')) {
    // The FA model (HarmonyOS 2/3, API 8 and earlier).
    const manifest = await readJson(zip, 'config.json', what);
    if (!isObject(manifest.app) || !isObject(manifest.module)) throw new ParseError(`not a valid ${what}: config.json has no "app" or "module" object`);
    app = manifest.app;
    module = manifest.module;
    stage = false;
  } else {
    throw new ParseError(`not a valid ${what}: module.json is missing`);
  }

  const bundleName = text(app.bundleName);
  if (!bundleName) throw new ParseError(`not a valid ${what}: app.bundleName is missing`);
  const version = stage ? app : isObject(app.version) ? app.version : {};
  const versionName = text(stage ? app.versionName : version.name);
  const versionCode = text(stage ? app.versionCode : version.code);
  if (!versionName || !versionCode) throw new ParseError(`not a valid ${what}: the app version (versionName, versionCode) is missing`);

  const configs = zip.has('resources.index') ? parseResourceIndex(await zip.read('resources.index')) : null;
  const label = text(app.label);
  const labelId = typeof app.labelId === 'number' ? app.labelId : null;
  const displayName = label?.startsWith('$') ? (resolveResource(configs, RES_TYPE_STRING, label, labelId) ?? bundleName) : label || bundleName;

  const apiVersion = stage ? null : isObject(app.apiVersion) ? app.apiVersion : null;
  const minApi = stage ? app.minAPIVersion : apiVersion?.compatible;
  const targetApi = stage ? app.targetAPIVersion : apiVersion?.target;
  const deviceTypes = stage ? module.deviceTypes : module.deviceType;

  const iconRef = text(app.icon);
  const iconId = typeof app.iconId === 'number' ? app.iconId : null;
  return {
    format,
    platform: 'harmonyos',
    bundleId: bundleName,
    releaseVersion: versionName,
    buildVersion: versionCode,
    displayName,
    deviceFamily: Array.isArray(deviceTypes) ? deviceTypes.filter((d): d is string => typeof d === 'string') : [],
    minOsVersion: text(minApi),
    // A damaged icon is no reason to refuse the upload.
    icon: await readIcon(zip, iconRef, iconId, configs).catch((error: unknown) => {
      if (error instanceof ParseError) return null;
      throw error;
    }),
    releaseType: null,
    provisioning: null,
    extra: {
      vendor: text(app.vendor),
      debug: app.debug === true, // absent means a release build
      compileSdkVersion: text(app.compileSdkVersion),
      compileSdkType: text(app.compileSdkType),
      targetAPIVersion: typeof targetApi === 'number' ? targetApi : null,
      minApiLevel: apiLevel(minApi),
      targetApiLevel: apiLevel(targetApi),
      apiReleaseType: text(app.apiReleaseType),
      bundleType: text(app.bundleType),
      moduleName: text(module.name),
      moduleType: text(stage ? module.type : isObject(module.distro) ? module.distro.moduleType : null),
      model: stage ? 'stage' : 'fa',
    },
  };
}

export const hapReader: BinaryReader = {
  format: 'hap',
  extensions: ['.hap'],
  async read(path: string): Promise<AppMetadata> {
    return withZip(path, 'a .hap', (zip) => readHap(zip, '.hap', 'hap'));
  },
};

/** The entry module's file name in an .app, from pack.info (else the only .hap there is). */
async function entryHapName(zip: ZipArchive): Promise<string> {
  const haps = zip.find(/^[^/]+\.hap$/);
  if (zip.has('pack.info')) {
    const pack = await readJson(zip, 'pack.info', 'HarmonyOS .app');
    const packages = Array.isArray(pack.packages) ? pack.packages.filter(isObject) : [];
    const entry = packages.find((p) => p.moduleType === 'entry');
    const name = entry ? text(entry.name) : null;
    if (name && zip.has(`${name}.hap`)) return `${name}.hap`;
    if (entry) throw new ParseError(`not a valid HarmonyOS .app: its entry module ${name}.hap is missing`);
  }
  if (haps.length === 0) throw new ParseError('not a valid HarmonyOS .app: it holds no .hap module (pack.info is missing too)');
  if (haps.length === 1 || !zip.has('pack.info')) return haps[0]!;
  throw new ParseError('not a valid HarmonyOS .app: pack.info names no entry module');
}

/** Copies a zip entry to `target`, refusing more than `limit` bytes. */
async function extractTo(zip: ZipArchive, name: string, target: string, limit: number): Promise<void> {
  const entry = zip.entries.find((e) => e.name === name);
  if (entry && entry.uncompressedSize > limit) throw new ParseError(`not a valid HarmonyOS .app: ${name} is too large (${entry.uncompressedSize} bytes)`);
  let total = 0;
  const cap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      total += chunk.length;
      if (total > limit) done(new ParseError(`not a valid HarmonyOS .app: ${name} inflates beyond ${limit} bytes`));
      else done(null, chunk);
    },
  });
  try {
    await pipeline(await zip.stream(name), cap, createWriteStream(target, { flags: 'wx', mode: 0o600 }));
  } catch (error) {
    if (error instanceof ParseError) throw error;
    throw new ParseError(`not a valid HarmonyOS .app: ${name} cannot be read (${(error as Error).message})`, { cause: error });
  }
}

export const harmonyAppReader: BinaryReader = {
  format: 'harmony-app',
  extensions: ['.app'],
  async read(path: string): Promise<AppMetadata> {
    return withZip(path, 'a HarmonyOS .app', async (outer) => {
      const hapName = await entryHapName(outer);
      const temporary = join(dirname(path), `.hangar-${randomBytes(8).toString('hex')}.hap`);
      try {
        await extractTo(outer, hapName, temporary, MAX_NESTED_HAP_BYTES);
        const metadata = await withZip(temporary, `a .hap (${hapName} in the .app)`, (zip) => readHap(zip, `HarmonyOS .app (${hapName})`, 'harmony-app'));
        metadata.extra.entryModule = hapName;
        metadata.extra.modules = outer.find(/^[^/]+\.hap$/);
        return metadata;
      } finally {
        await rm(temporary, { force: true });
      }
    });
  },
};
