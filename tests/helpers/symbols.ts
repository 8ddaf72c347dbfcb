/**
 * Debug-symbol inputs built by hand, for what the fixtures do not cover: Mach-O files (thin or fat,
 * 32- or 64-bit, either byte order, with or without LC_UUID), zipped dSYM bundles with chosen Info.plist
 * values, and the multipart body that uploads a zip to /api/debug_files.
 */
import { build } from 'plist';
import { multipartBody } from './builds.ts';
import type { ApiClient, ApiResponse } from './client.ts';
import { makeZip, type ZipEntries } from './make-zip.ts';

/** CPU type and subtype of the architectures the tests use. */
const CPUS = {
  i386: [7, 3],
  x86_64: [0x01000007, 3],
  armv7: [12, 9],
  arm64: [0x0100000c, 0],
  ppc: [18, 0],
} as const;
export type Arch = keyof typeof CPUS;

export interface ThinOptions {
  arch: Arch;
  /** "XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX"; null: no LC_UUID at all */
  uuid: string | null;
  bigEndian?: boolean;
  /** bytes of stand-in DWARF data after the load commands */
  padding?: number;
}

/** A thin Mach-O dSYM companion file: header, an LC_SYMTAB, the LC_UUID, then `padding` bytes. */
export function thinMachO({ arch, uuid, bigEndian = false, padding = 64 }: ThinOptions): Buffer {
  const [cpuType, cpuSubtype] = CPUS[arch];
  const wide = (cpuType & 0x01000000) !== 0;
  const headerSize = wide ? 32 : 28;
  const commands: Buffer[] = [Buffer.alloc(24)]; // LC_SYMTAB, its offsets zero
  const u32 = (buf: Buffer, value: number, at: number) => (bigEndian ? buf.writeUInt32BE(value >>> 0, at) : buf.writeUInt32LE(value >>> 0, at));
  u32(commands[0]!, 0x2, 0);
  u32(commands[0]!, 24, 4);
  if (uuid !== null) {
    const command = Buffer.alloc(24);
    u32(command, 0x1b, 0);
    u32(command, 24, 4);
    Buffer.from(uuid.replace(/-/g, ''), 'hex').copy(command, 8);
    commands.push(command);
  }
  const header = Buffer.alloc(headerSize);
  u32(header, wide ? 0xfeedfacf : 0xfeedface, 0);
  u32(header, cpuType, 4);
  u32(header, cpuSubtype, 8);
  u32(header, 0xa, 12); // MH_DSYM
  u32(header, commands.length, 16);
  u32(header, commands.reduce((sum, c) => sum + c.length, 0), 20);
  const body = Buffer.alloc(padding);
  for (let i = 0; i < padding; i++) body[i] = (i * 7 + 3) & 0xff;
  return Buffer.concat([header, ...commands, body]);
}

/** A universal (fat) file of thin slices, each at a 4 KiB boundary; `wide` uses the 64-bit fat header. */
export function fatMachO(slices: Buffer[], options: { wide?: boolean } = {}): Buffer {
  const entrySize = options.wide ? 32 : 20;
  const align = 4096;
  const table = Buffer.alloc(8 + slices.length * entrySize);
  table.writeUInt32BE(options.wide ? 0xcafebabf : 0xcafebabe, 0);
  table.writeUInt32BE(slices.length, 4);
  const parts: Buffer[] = [table];
  let offset = table.length;
  slices.forEach((slice, i) => {
    const start = Math.ceil(offset / align) * align;
    parts.push(Buffer.alloc(start - offset), slice);
    const little = slice.readUInt32LE(0) === 0xfeedface || slice.readUInt32LE(0) === 0xfeedfacf;
    const at = 8 + i * entrySize;
    table.writeInt32BE(little ? slice.readInt32LE(4) : slice.readInt32BE(4), at);
    table.writeInt32BE(little ? slice.readInt32LE(8) : slice.readInt32BE(8), at + 4);
    if (options.wide) {
      table.writeBigUInt64BE(BigInt(start), at + 8);
      table.writeBigUInt64BE(BigInt(slice.length), at + 16);
      table.writeUInt32BE(12, at + 24);
    } else {
      table.writeUInt32BE(start, at + 8);
      table.writeUInt32BE(slice.length, at + 12);
      table.writeUInt32BE(12, at + 16);
    }
    offset = start + slice.length;
  });
  return Buffer.concat(parts);
}

export interface BundleSpec {
  /** e.g. "App.app.dSYM", or a nested path "build/App.app.dSYM" */
  path: string;
  /** the binary's bundle id (written with Xcode's com.apple.xcode.dsym. prefix); undefined: no Info.plist */
  bundleId?: string;
  releaseVersion?: string;
  buildVersion?: string;
  /** DWARF file name -> its Mach-O bytes */
  objects: Record<string, Buffer>;
}

/** The zip entries of dSYM bundles. */
export function dsymEntries(bundles: BundleSpec[]): ZipEntries {
  const entries: ZipEntries = {};
  for (const bundle of bundles) {
    if (bundle.bundleId !== undefined) {
      const info: Record<string, string> = { CFBundleIdentifier: `com.apple.xcode.dsym.${bundle.bundleId}`, CFBundlePackageType: 'dSYM' };
      if (bundle.releaseVersion !== undefined) info.CFBundleShortVersionString = bundle.releaseVersion;
      if (bundle.buildVersion !== undefined) info.CFBundleVersion = bundle.buildVersion;
      entries[`${bundle.path}/Contents/Info.plist`] = build(info);
    }
    for (const [name, data] of Object.entries(bundle.objects)) entries[`${bundle.path}/Contents/Resources/DWARF/${name}`] = data;
  }
  return entries;
}

/** A zipped dSYM of one app bundle with one arm64 binary of this UUID. */
export function dsymZip(options: { uuid: string; bundleId?: string; releaseVersion?: string; buildVersion?: string; path?: string }): Buffer {
  const { uuid, path = 'App.app.dSYM', bundleId = 'dev.hangar.symbols', releaseVersion = '1.0', buildVersion = '1' } = options;
  return makeZip(dsymEntries([{ path, bundleId, releaseVersion, buildVersion, objects: { App: thinMachO({ arch: 'arm64', uuid }) } }]));
}

/** A zip with a mapping.txt of this content (its UUID depends on the content). */
export function mappingZip(content: string, extra: ZipEntries = {}): Buffer {
  return makeZip({ 'mapping.txt': `# compiler: R8\n${content}\n`, ...extra });
}

/** Posts a zip to /api/debug_files/upload (or PUT /api/debug_files/:id with `replace`); `unchecked`: a 5xx is expected. */
export function postDebugFile(
  client: ApiClient,
  zip: Buffer,
  fields: Record<string, string>,
  options: { shape?: 'base' | 'extended'; fileName?: string; replace?: number; unchecked?: boolean } = {},
): Promise<ApiResponse> {
  const raw = multipartBody(fields, { name: options.fileName ?? 'symbols.zip', data: zip });
  const [method, path] = options.replace === undefined ? ['POST', '/api/debug_files/upload'] : ['PUT', `/api/debug_files/${options.replace}`];
  return client.request(method, path, { raw, ...(options.shape && { shape: options.shape }), ...(options.unchecked && { unchecked: true }) });
}
