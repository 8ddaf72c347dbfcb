/**
 * Reader of .AppImage (Linux). A type 2 AppImage is an ELF runtime ("AI\x02" at offset 8) with a
 * squashfs image appended right after the ELF's section header table, i.e. at
 * e_shoff + e_shentsize * e_shnum. Its root holds the app's .desktop file, the icon named by the
 * desktop file's Icon key (<Icon>.png or .svg) and .DirIcon. Type 1 AppImages (ISO 9660) are refused.
 *
 * Fields: bundleId = the desktop file's base name ("echo" for echo.desktop); releaseVersion and
 * buildVersion = X-AppImage-Version, else a version in the uploaded file's name
 * ("Foo-1.2.3-x86_64.AppImage" gives 1.2.3), else "0" with extra.versionMissing = true;
 * displayName = Name.
 */
import { basename } from 'node:path';
import sharp from 'sharp';
import { withFile, type BinaryFile } from './binfile.ts';
import { toPng } from './images.ts';
import { Squashfs, SQUASHFS_MAGIC } from './squashfs.ts';
import { ParseError, type AppMetadata, type BinaryReader } from './types.ts';

const MAX_DESKTOP_BYTES = 1024 * 1024;
const MAX_ICON_BYTES = 16 * 1024 * 1024;
/** SVG icons are rendered so that their longer side has this many pixels. */
const SVG_RENDER_SIDE = 512;

/** Where the squashfs image starts: the end of the ELF section header table. */
async function squashfsOffset(file: BinaryFile): Promise<number> {
  const header = await file.readUpTo(0, 64);
  if (header.length < 4 || header.toString('latin1', 0, 4) !== '\x7fELF') {
    const iso = await file.readUpTo(0x8001, 5);
    if (iso.toString('latin1') === 'CD001') throw new ParseError('type 1 AppImages (ISO 9660) are not supported: rebuild it as a type 2 AppImage with appimagetool');
    throw new ParseError('not an .AppImage: it is not an ELF executable (no ELF header)');
  }
  if (header.length < 64) throw new ParseError('not a valid .AppImage: the file is truncated (the ELF header is incomplete)');
  if (header.toString('latin1', 8, 10) === 'AI' && header[10] === 1) {
    throw new ParseError('type 1 AppImages (ISO 9660) are not supported: rebuild it as a type 2 AppImage with appimagetool');
  }
  const elfClass = header[4];
  const little = header[5] !== 2;
  const u16 = (at: number): number => (little ? header.readUInt16LE(at) : header.readUInt16BE(at));
  let shoff: number;
  let shentsize: number;
  let shnum: number;
  if (elfClass === 2) {
    const value = little ? header.readBigUInt64LE(0x28) : header.readBigUInt64BE(0x28);
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new ParseError('not a valid .AppImage: its ELF header is damaged');
    shoff = Number(value);
    shentsize = u16(0x3a);
    shnum = u16(0x3c);
  } else if (elfClass === 1) {
    shoff = little ? header.readUInt32LE(0x20) : header.readUInt32BE(0x20);
    shentsize = u16(0x2e);
    shnum = u16(0x30);
  } else {
    throw new ParseError('not a valid .AppImage: its ELF header is damaged (unknown class)');
  }
  return shoff + shentsize * shnum;
}

async function openImage(file: BinaryFile): Promise<Squashfs> {
  const offset = await squashfsOffset(file);
  const magic = await file.readUpTo(offset, 6);
  if (magic.length >= 4 && magic.readUInt32LE(0) === SQUASHFS_MAGIC) {
    try {
      return await Squashfs.open(file, offset);
    } catch (error) {
      if (error instanceof ParseError) throw new ParseError(`not a valid .AppImage: ${error.message}`, { cause: error });
      throw error;
    }
  }
  if (magic.toString('latin1') === 'DWARFS') throw new ParseError('AppImages with a DwarFS image are not supported (Hangar reads squashfs AppImages)');
  if (magic.length === 0) throw new ParseError('not a valid .AppImage: it is an ELF executable with no file system image appended (no squashfs after the runtime)');
  throw new ParseError(`not a valid .AppImage: no squashfs image found after the ELF runtime (at offset ${offset})`);
}

/** The keys of the [Desktop Entry] group (unlocalised keys only). */
export function parseDesktopEntry(text: string): Map<string, string> {
  const keys = new Map<string, string>();
  let inEntry = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (line.startsWith('[')) {
      inEntry = line === '[Desktop Entry]';
      continue;
    }
    if (!inEntry) continue;
    const match = /^([A-Za-z0-9-]+)\s*=\s*(.*)$/.exec(line);
    if (match && !keys.has(match[1]!)) keys.set(match[1]!, match[2]!.replace(/\\s/g, ' ').replace(/\\n/g, '\n').replace(/\\t/g, '\t').replace(/\\\\/g, '\\'));
  }
  return keys;
}

const ARCH_TOKEN = /^(x86[-_]64|amd64|x64|i[3-6]86|x86|aarch64|arm64|armhf|armv7l?|arm|riscv64|ppc64le|s390x|linux|appimage)$/i;

/** A version found in an uploaded file's name: "Foo-1.2.3-x86_64.AppImage" gives "1.2.3". */
export function versionFromFileName(fileName: string): string | null {
  const stem = (fileName.split(/[\\/]/).pop() ?? '').replace(/\.appimage$/i, '');
  for (const token of stem.split(/[-_ ]+/)) {
    if (ARCH_TOKEN.test(token)) continue;
    const match = /^v?(\d+(?:\.\d+)+(?:[.+~]?[0-9A-Za-z]+)*)$/i.exec(token);
    if (match) return match[1]!;
  }
  return null;
}

function looksLikeSvg(data: Buffer): boolean {
  const head = data.subarray(0, 4096).toString('utf8');
  return /<svg[\s>]/i.test(head);
}

/** An icon (PNG, SVG, ...) as PNG; SVGs are rendered large rather than at their nominal size. */
async function iconToPng(data: Buffer): Promise<Buffer | null> {
  if (!looksLikeSvg(data)) return toPng(data);
  try {
    const { width, height } = await sharp(data).metadata();
    const side = Math.max(width ?? 0, height ?? 0);
    const density = side > 0 ? Math.min(Math.max((72 * SVG_RENDER_SIDE) / side, 1), 10_000) : 72;
    return toPng(await sharp(data, { density }).png().toBuffer());
  } catch {
    return null;
  }
}

async function readIcon(fs: Squashfs, iconKey: string | undefined): Promise<Buffer | null> {
  const candidates: string[] = [];
  if (iconKey) {
    const name = basename(iconKey);
    if (/\.(png|svg)$/i.test(name)) candidates.push(name);
    candidates.push(`${name}.png`, `${name}.svg`);
  }
  candidates.push('.DirIcon');
  for (const candidate of candidates) {
    let inode;
    try {
      inode = await fs.lookup(candidate);
      if (!inode || inode.kind !== 'file' || inode.fileSize > MAX_ICON_BYTES) continue;
      const png = await iconToPng(await fs.readFile(inode, MAX_ICON_BYTES));
      if (png) return png;
    } catch (error) {
      // A damaged icon is no reason to refuse the upload: try the next one.
      if (!(error instanceof ParseError)) throw error;
    }
  }
  return null;
}

export const appImageReader: BinaryReader = {
  format: 'appimage',
  extensions: ['.appimage'],
  async read(path: string, fileName: string): Promise<AppMetadata> {
    return withFile(path, 'an .AppImage', async (file) => {
      const fs = await openImage(file);
      try {
        const root = await fs.list(await fs.root());
        const desktopEntries = root.filter((e) => e.name.endsWith('.desktop') && (e.kind === 'file' || e.kind === 'symlink'));
        if (desktopEntries.length === 0) throw new ParseError('not a valid .AppImage: there is no .desktop file at the root of its file system');
        let desktopName: string | null = null;
        let desktop: Map<string, string> | null = null;
        for (const entry of desktopEntries) {
          const inode = await fs.lookup(entry.name);
          if (!inode || inode.kind !== 'file') continue;
          if (inode.fileSize > MAX_DESKTOP_BYTES) throw new ParseError(`not a valid .AppImage: ${entry.name} is too large`);
          desktopName = entry.name;
          desktop = parseDesktopEntry((await fs.readFile(inode, MAX_DESKTOP_BYTES)).toString('utf8'));
          break;
        }
        if (!desktop || !desktopName) throw new ParseError('not a valid .AppImage: its .desktop file is a dangling link');
        const name = desktop.get('Name');
        if (!name) throw new ParseError(`not a valid .AppImage: ${desktopName} has no Name`);

        const bundleId = desktopName.slice(0, -'.desktop'.length);
        const declared = desktop.get('X-AppImage-Version')?.trim() || null;
        const version = declared ?? versionFromFileName(fileName);
        const extra: Record<string, unknown> = {
          appImageType: 2,
          desktopFile: desktopName,
          compression: fs.compression,
          appImageName: desktop.get('X-AppImage-Name') ?? null,
          comment: desktop.get('Comment') ?? null,
          categories: desktop.get('Categories')?.split(';').filter(Boolean) ?? [],
        };
        if (version === null) extra.versionMissing = true;
        else if (declared === null) extra.versionFromFileName = true;

        return {
          format: 'appimage',
          platform: 'linux',
          bundleId,
          releaseVersion: version ?? '0',
          buildVersion: version ?? '0',
          displayName: name,
          deviceFamily: ['desktop'],
          minOsVersion: null,
          icon: await readIcon(fs, desktop.get('Icon')),
          releaseType: null,
          provisioning: null,
          extra,
        };
      } catch (error) {
        if (error instanceof ParseError && !/^(not |type 1|unsupported|AppImages)/.test(error.message)) {
          throw new ParseError(`not a valid .AppImage: ${error.message}`, { cause: error });
        }
        throw error;
      }
    });
  },
};
