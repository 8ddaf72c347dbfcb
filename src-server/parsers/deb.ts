/**
 * Reader of .deb (Debian package): an ar archive of debian-binary, control.tar.{gz,xz,zst} (or an
 * uncompressed control.tar) and data.tar.*. Only control.tar is read, and from it only ./control;
 * data.tar is never opened, so there is no icon.
 *
 * Fields: bundleId = Package; the version "[epoch:]upstream[-revision]" gives releaseVersion =
 * upstream and buildVersion = revision (the whole version without epoch when there is no revision);
 * displayName = Package. The first line of Description is a synopsis ("Keep code modularized & …"),
 * not a name, so it goes to extra.description instead.
 */
import { MAX_READ_BYTES, withFile, type BinaryFile } from './binfile.ts';
import { decompress, type Codec } from './decompress.ts';
import { tarEntries, tarPath } from './tar.ts';
import { ParseError, type AppMetadata, type BinaryReader } from './types.ts';

const AR_MAGIC = '!<arch>\n';
const AR_HEADER = 60;
/** A .deb has three members; a crafted archive with thousands is refused rather than walked. */
const MAX_MEMBERS = 256;

interface ArMember {
  name: string;
  offset: number;
  size: number;
}

/** Finds the first member whose name matches `pattern`, reading only member headers. */
async function findMember(file: BinaryFile, pattern: RegExp): Promise<ArMember | null> {
  let offset = AR_MAGIC.length;
  for (let i = 0; i < MAX_MEMBERS && offset < file.size; i++) {
    const header = await file.read(offset, AR_HEADER, 'an ar member header');
    if (header.subarray(58, 60).toString('latin1') !== '`\n') throw new ParseError('not a valid .deb: its ar archive is damaged (bad member header)');
    const name = header.subarray(0, 16).toString('latin1').trim().replace(/\/$/, '');
    const sizeText = header.subarray(48, 58).toString('latin1').trim();
    if (!/^\d+$/.test(sizeText)) throw new ParseError('not a valid .deb: its ar archive is damaged (bad member size)');
    const size = Number(sizeText);
    const dataOffset = offset + AR_HEADER;
    if (dataOffset + size > file.size) throw new ParseError(`not a valid .deb: the file is truncated (${name || 'a member'} lies beyond its end)`);
    if (pattern.test(name)) return { name, offset: dataOffset, size };
    offset = dataOffset + size + (size % 2); // members are padded to an even offset
  }
  return null;
}

const CODECS: Record<string, Codec | null> = { '': null, '.gz': 'gzip', '.xz': 'xz', '.zst': 'zstd' };

/** Parses a deb822 control paragraph: "Field: value" with indented continuation lines. */
export function parseControl(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  let current: string | null = null;
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') {
      if (fields.size > 0) break; // only the first paragraph
      continue;
    }
    if (/^[ \t]/.test(line)) {
      if (current !== null) fields.set(current, `${fields.get(current)}\n${line.trim()}`);
      continue;
    }
    const match = /^([!-9;-~]+):[ \t]*(.*)$/.exec(line);
    if (!match) continue;
    current = match[1]!.toLowerCase();
    fields.set(current, match[2]!.trim());
  }
  return fields;
}

/** Splits "[epoch:]upstream[-revision]" (Debian policy 5.6.12). */
export function splitDebianVersion(version: string): { epoch: string | null; upstream: string; revision: string | null } {
  let rest = version.trim();
  let epoch: string | null = null;
  const epochMatch = /^(\d+):(.*)$/.exec(rest);
  if (epochMatch) {
    epoch = epochMatch[1]!;
    rest = epochMatch[2]!;
  }
  const dash = rest.lastIndexOf('-');
  if (dash > 0) return { epoch, upstream: rest.slice(0, dash), revision: rest.slice(dash + 1) };
  return { epoch, upstream: rest, revision: null };
}

async function readControl(file: BinaryFile): Promise<string> {
  const magic = await file.readUpTo(0, AR_MAGIC.length);
  if (magic.toString('latin1') !== AR_MAGIC) {
    if (magic.length < AR_MAGIC.length && AR_MAGIC.startsWith(magic.toString('latin1')) && magic.length > 0) {
      throw new ParseError('not a valid .deb: the file is truncated');
    }
    throw new ParseError('not a .deb: it is not an ar archive (no "!<arch>" header)');
  }
  const member = await findMember(file, /^control\.tar(\.gz|\.xz|\.zst)?$/);
  if (!member) throw new ParseError('not a valid .deb: control.tar is missing from the archive');
  if (member.size > MAX_READ_BYTES) throw new ParseError(`not a valid .deb: ${member.name} is too large (${member.size} bytes)`);
  const raw = await file.read(member.offset, member.size, member.name);
  const codec = CODECS[member.name.slice('control.tar'.length)] ?? null;
  try {
    const tar = codec ? await decompress(codec, raw, member.name) : raw;
    for (const entry of tarEntries(tar, member.name)) {
      if (tarPath(entry.name) === 'control' && entry.type === '0') return entry.data.toString('utf8');
    }
  } catch (error) {
    if (error instanceof ParseError) throw new ParseError(`not a valid .deb: ${error.message}`, { cause: error });
    throw error;
  }
  throw new ParseError(`not a valid .deb: ${member.name} holds no control file`);
}

export const debReader: BinaryReader = {
  format: 'deb',
  extensions: ['.deb'],
  async read(path: string): Promise<AppMetadata> {
    const control = parseControl(await withFile(path, 'a .deb', readControl));
    const pkg = control.get('package');
    const version = control.get('version');
    if (!pkg) throw new ParseError('not a valid .deb: its control file has no Package field');
    if (!version) throw new ParseError('not a valid .deb: its control file has no Version field');
    const { epoch, upstream, revision } = splitDebianVersion(version);
    const description = control.get('description');
    const extra: Record<string, unknown> = {
      architecture: control.get('architecture') ?? null,
      maintainer: control.get('maintainer') ?? null,
      homepage: control.get('homepage') ?? null,
      description: description ? description.split('\n')[0]! : null,
    };
    if (epoch !== null) extra.epoch = epoch;
    return {
      format: 'deb',
      platform: 'linux',
      bundleId: pkg,
      releaseVersion: upstream,
      buildVersion: revision ?? upstream,
      displayName: pkg,
      deviceFamily: ['desktop'],
      minOsVersion: null,
      icon: null,
      releaseType: null,
      provisioning: null,
      extra,
    };
  },
};
