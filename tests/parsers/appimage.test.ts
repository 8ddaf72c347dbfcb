// AppImage reader: the libappimage Echo fixture (SOURCES.md, Linux section), AppImages assembled here
// from a minimal ELF header and squashfs images made with mksquashfs (squashfs-tools), and broken
// inputs.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appImageReader, versionFromFileName } from '../../src-server/parsers/appimage.ts';
import { ParseError } from '../../src-server/parsers/types.ts';
import { fixture, fixturesMissing } from '../helpers/fixtures.ts';
import { run, toolMissing } from '../helpers/tools.ts';

const ECHO = 'echo-x86_64-type2.AppImage';
/** Where the Echo fixture's squashfs starts (SOURCES.md). */
const ECHO_SQUASHFS_OFFSET = 187784;
const dir = mkdtempSync(join(tmpdir(), 'hangar-appimage-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, data: Buffer | string): string {
  const path = join(dir, name);
  writeFileSync(path, data);
  return path;
}

/** A minimal ELF64 "runtime" with the type 2 magic: header, one empty section header, nothing else. */
function elfRuntime(options: { elfClass?: 1 | 2; appImageType?: number } = {}): Buffer {
  const elf64 = (options.elfClass ?? 2) === 2;
  const header = Buffer.alloc(elf64 ? 128 : 92);
  header.write('\x7fELF', 0, 'latin1');
  header[4] = elf64 ? 2 : 1;
  header[5] = 1; // little-endian
  header[6] = 1;
  header.write('AI', 8, 'latin1');
  header[10] = options.appImageType ?? 2;
  if (elf64) {
    header.writeBigUInt64LE(64n, 0x28); // e_shoff
    header.writeUInt16LE(64, 0x3a); // e_shentsize
    header.writeUInt16LE(1, 0x3c); // e_shnum
  } else {
    header.writeUInt32LE(52, 0x20);
    header.writeUInt16LE(40, 0x2e);
    header.writeUInt16LE(1, 0x30);
  }
  return header;
}

describe('version from the file name', () => {
  it.each([
    ['Foo-1.2.3-x86_64.AppImage', '1.2.3'],
    ['Foo_v2.0.1_amd64.AppImage', '2.0.1'],
    ['Krita-5.2.2-x86_64.appimage', '5.2.2'],
    ['MyApp-1.0.0-beta.2-aarch64.AppImage', '1.0.0'],
    ['tool-10.4.AppImage', '10.4'],
    ['C:\\Downloads\\v9-app-3.1.AppImage', '3.1'],
    ['echo-x86_64-type2.AppImage', null],
    ['Echo-x86_64.AppImage', null],
  ])('%s', (name, version) => {
    expect(versionFromFileName(name)).toBe(version);
  });
});

describe.skipIf(fixturesMissing !== null)('the Echo fixture', () => {
  it('reads echo.desktop and renders the SVG icon', async () => {
    const m = await appImageReader.read(fixture('linux', ECHO), ECHO);
    expect(m.format).toBe('appimage');
    expect(m.platform).toBe('linux');
    expect(m.bundleId).toBe('echo');
    expect(m.displayName).toBe('Echo');
    expect(m.releaseVersion).toBe('0');
    expect(m.buildVersion).toBe('0');
    expect(m.deviceFamily).toEqual(['desktop']);
    expect(m.minOsVersion).toBeNull();
    expect(m.releaseType).toBeNull();
    expect(m.extra).toMatchObject({ versionMissing: true, desktopFile: 'echo.desktop', compression: 'gzip', appImageType: 2, comment: 'Just echo.' });
    // utilities-terminal.svg, rendered large rather than at its nominal 48 px
    const meta = await sharp(m.icon!).metadata();
    expect(meta.format).toBe('png');
    expect(Math.max(meta.width!, meta.height!)).toBe(512);
  });

  it('takes the version from the uploaded file name when the desktop file has none', async () => {
    const m = await appImageReader.read(fixture('linux', ECHO), 'Echo-2.0.1-x86_64.AppImage');
    expect(m.releaseVersion).toBe('2.0.1');
    expect(m.buildVersion).toBe('2.0.1');
    expect(m.extra.versionMissing).toBeUndefined();
    expect(m.extra.versionFromFileName).toBe(true);
  });

  it('refuses the runtime alone (an ELF without squashfs)', async () => {
    const runtime = readFileSync(fixture('linux', ECHO)).subarray(0, ECHO_SQUASHFS_OFFSET);
    await expect(appImageReader.read(write('runtime.AppImage', runtime), 'runtime.AppImage')).rejects.toThrow(
      'not a valid .AppImage: it is an ELF executable with no file system image appended (no squashfs after the runtime)',
    );
  });

  it('refuses a truncated AppImage', async () => {
    const echo = readFileSync(fixture('linux', ECHO));
    await expect(appImageReader.read(write('cut1.AppImage', echo.subarray(0, 40)), 'cut1.AppImage')).rejects.toThrow('not a valid .AppImage: the file is truncated (the ELF header is incomplete)');
    await expect(appImageReader.read(write('cut2.AppImage', echo.subarray(0, ECHO_SQUASHFS_OFFSET + 10_000)), 'cut2.AppImage')).rejects.toThrow(
      'not a valid .AppImage: the squashfs image is truncated (the file ends before the image does)',
    );
  });

  it('refuses an unknown squashfs version', async () => {
    const echo = Buffer.from(readFileSync(fixture('linux', ECHO)));
    echo.writeUInt16LE(3, ECHO_SQUASHFS_OFFSET + 28);
    await expect(appImageReader.read(write('v3.AppImage', echo), 'v3.AppImage')).rejects.toThrow('not a valid .AppImage: unsupported squashfs version 3.0 (Hangar reads 4.0)');
  });
});

describe('broken AppImages', () => {
  it('refuses a text file named .AppImage', async () => {
    const path = write('text.AppImage', '#!/bin/sh\necho hello\n');
    await expect(appImageReader.read(path, 'text.AppImage')).rejects.toThrow(ParseError);
    await expect(appImageReader.read(path, 'text.AppImage')).rejects.toThrow('not an .AppImage: it is not an ELF executable (no ELF header)');
  });

  it('refuses a type 1 AppImage', async () => {
    const path = write('type1.AppImage', Buffer.concat([elfRuntime({ appImageType: 1 }), Buffer.alloc(4096)]));
    await expect(appImageReader.read(path, 'type1.AppImage')).rejects.toThrow('type 1 AppImages (ISO 9660) are not supported: rebuild it as a type 2 AppImage with appimagetool');
    const iso = Buffer.alloc(0x9000);
    iso.write('CD001', 0x8001, 'latin1');
    await expect(appImageReader.read(write('iso.AppImage', iso), 'iso.AppImage')).rejects.toThrow(/^type 1 AppImages/);
  });

  it('refuses an ELF followed by something that is not squashfs', async () => {
    const path = write('junk.AppImage', Buffer.concat([elfRuntime(), Buffer.alloc(200, 0x41)]));
    await expect(appImageReader.read(path, 'junk.AppImage')).rejects.toThrow('not a valid .AppImage: no squashfs image found after the ELF runtime (at offset 128)');
  });
});

const noMksquashfs = toolMissing('mksquashfs', 'squashfs-tools');

describe.skipIf(noMksquashfs !== null)('AppImages with squashfs images made by mksquashfs', () => {
  const root = join(dir, 'AppDir');

  beforeAll(async () => {
    mkdirSync(join(root, 'usr/share/applications'), { recursive: true });
    mkdirSync(join(root, 'usr/share/icons/hicolor/256x256/apps'), { recursive: true });
    writeFileSync(
      join(root, 'usr/share/applications/org.example.Viewer.desktop'),
      '[Desktop Entry]\nType=Application\nName=Example Viewer\nName[de]=Beispiel\nIcon=org.example.Viewer\nExec=viewer %F\nCategories=Graphics;Viewer;\nX-AppImage-Version=3.4.5\n\n[Desktop Action New]\nName=New Window\n',
    );
    symlinkSync('usr/share/applications/org.example.Viewer.desktop', join(root, 'org.example.Viewer.desktop'));
    await sharp({ create: { width: 256, height: 256, channels: 4, background: '#ff8800' } }).png().toFile(join(root, 'usr/share/icons/hicolor/256x256/apps/org.example.Viewer.png'));
    // The icon only through .DirIcon -> a symlink chain into usr/share
    symlinkSync('usr/share/icons/hicolor/256x256/apps/../apps/org.example.Viewer.png', join(root, '.DirIcon'));
    writeFileSync(join(root, 'AppRun'), '#!/bin/sh\n');
  });

  function appImage(name: string, compression: string, source = root): string {
    const image = join(dir, `${name}.squashfs`);
    run('mksquashfs', [source, image, '-comp', compression, '-noappend', '-quiet', '-all-root', '-no-progress']);
    return write(`${name}.AppImage`, Buffer.concat([elfRuntime(), readFileSync(image)]));
  }

  it.each(['gzip', 'xz', 'zstd'])('reads a %s-compressed image', async (compression) => {
    const m = await appImageReader.read(appImage(`viewer-${compression}`, compression), 'Viewer-9.9.9-x86_64.AppImage');
    expect(m).toMatchObject({ bundleId: 'org.example.Viewer', displayName: 'Example Viewer', releaseVersion: '3.4.5', buildVersion: '3.4.5' });
    expect(m.extra).toMatchObject({ compression, categories: ['Graphics', 'Viewer'], desktopFile: 'org.example.Viewer.desktop' });
    expect(m.extra.versionMissing).toBeUndefined();
    const { data, info } = await sharp(m.icon!).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([256, 256]);
    expect([...data.subarray(0, 3)]).toEqual([255, 136, 0]);
  });

  it('reads an ELF32 runtime', async () => {
    const image = join(dir, 'elf32.squashfs');
    run('mksquashfs', [root, image, '-noappend', '-quiet', '-all-root', '-no-progress']);
    const path = write('elf32.AppImage', Buffer.concat([elfRuntime({ elfClass: 1 }), readFileSync(image)]));
    expect((await appImageReader.read(path, 'elf32.AppImage')).bundleId).toBe('org.example.Viewer');
  });

  it('refuses lzo compression', async () => {
    await expect(appImageReader.read(appImage('viewer-lzo', 'lzo'), 'viewer.AppImage')).rejects.toThrow('not a valid .AppImage: unsupported squashfs compression: lzo (Hangar reads gzip, xz and zstd)');
  });

  it('refuses an image without a .desktop file', async () => {
    const bare = join(dir, 'Bare');
    mkdirSync(bare);
    writeFileSync(join(bare, 'AppRun'), '#!/bin/sh\n');
    await expect(appImageReader.read(appImage('bare', 'gzip', bare), 'bare.AppImage')).rejects.toThrow('not a valid .AppImage: there is no .desktop file at the root of its file system');
  });

  it('refuses a dangling .desktop symlink, and a desktop file without Name', async () => {
    const dangling = join(dir, 'Dangling');
    mkdirSync(dangling);
    symlinkSync('usr/share/applications/missing.desktop', join(dangling, 'missing.desktop'));
    await expect(appImageReader.read(appImage('dangling', 'gzip', dangling), 'x.AppImage')).rejects.toThrow('not a valid .AppImage: its .desktop file is a dangling link');
    const nameless = join(dir, 'Nameless');
    mkdirSync(nameless);
    writeFileSync(join(nameless, 'tool.desktop'), '[Desktop Entry]\nType=Application\nExec=tool\n');
    await expect(appImageReader.read(appImage('nameless', 'gzip', nameless), 'x.AppImage')).rejects.toThrow('not a valid .AppImage: tool.desktop has no Name');
  });

  it('survives a symlink loop where the icon should be', async () => {
    const looped = join(dir, 'Looped');
    mkdirSync(looped);
    writeFileSync(join(looped, 'tool.desktop'), '[Desktop Entry]\nName=Tool\nIcon=tool\n');
    symlinkSync('b.png', join(looped, 'tool.png'));
    symlinkSync('tool.png', join(looped, 'b.png'));
    symlinkSync('/usr/share/icons/outside.png', join(looped, '.DirIcon'));
    const m = await appImageReader.read(appImage('looped', 'gzip', looped), 'Tool-0.1.AppImage');
    expect(m).toMatchObject({ bundleId: 'tool', displayName: 'Tool', releaseVersion: '0.1', icon: null });
  });
});
