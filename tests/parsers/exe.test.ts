// Windows .exe reader: the UPX fixture (SOURCES.md, Windows section), PE files built here with
// icons and version info (PE32+, arm64, PNG and DIB icons), and broken inputs.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { exeReader } from '../../src-server/parsers/exe.ts';
import { ParseError } from '../../src-server/parsers/types.ts';
import { dibIcon, peExecutable, versionInfo } from '../helpers/builders.ts';
import { fixture, fixturesMissing } from '../helpers/fixtures.ts';

const UPX = 'upx-3.08-win32-console.exe';
const dir = mkdtempSync(join(tmpdir(), 'hangar-exe-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, data: Buffer | string): string {
  const path = join(dir, name);
  writeFileSync(path, data);
  return path;
}

async function pngOf(width: number, height: number, colour: string): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background: colour } }).png().toBuffer();
}

describe.skipIf(fixturesMissing !== null)('the UPX fixture', () => {
  it('reads its version info', async () => {
    const m = await exeReader.read(fixture('windows', UPX), UPX);
    expect(m.format).toBe('exe');
    expect(m.platform).toBe('windows');
    expect(m.bundleId).toBe('UPX');
    expect(m.releaseVersion).toBe('3.08 (2011-12-12)');
    expect(m.buildVersion).toBe('3.8.0.0'); // VS_FIXEDFILEINFO FileVersion
    expect(m.displayName).toBe('UPX executable packer');
    expect(m.deviceFamily).toEqual(['desktop']);
    expect(m.minOsVersion).toBe('4.0');
    expect(m.icon).toBeNull();
    expect(m.releaseType).toBeNull();
    expect(m.extra).toMatchObject({
      machine: 'x86',
      pe32plus: false,
      subsystem: 'windows-console',
      companyName: 'The UPX Team http://upx.sf.net',
      originalFilename: 'upx.exe',
      fileDescription: 'UPX executable packer',
      fileVersionString: '3.08 (2011-12-12)',
    });
    expect(m.extra.legalCopyright).toMatch(/Markus F\.X\.J\. Oberhumer/);
  });

  it('refuses the fixture truncated inside its headers or its resources', async () => {
    const exe = readFileSync(fixture('windows', UPX));
    await expect(exeReader.read(write('cut1.exe', exe.subarray(0, 60)), 'cut1.exe')).rejects.toThrow('not a valid .exe: the file is truncated (the DOS header is incomplete)');
    await expect(exeReader.read(write('cut2.exe', exe.subarray(0, 0x120)), 'cut2.exe')).rejects.toThrow(/not a valid \.exe: the file is truncated/);
    await expect(exeReader.read(write('cut3.exe', exe.subarray(0, 0x1000)), 'cut3.exe')).rejects.toThrow(/not a valid \.exe: the file is truncated \(.* lies beyond its end\)/);
  });
});

describe('built PE executables', () => {
  const version = versionInfo({
    fileVersion: [2, 5, 1, 4711],
    productVersion: [2, 5, 1, 0],
    strings: {
      CompanyName: 'Example Corp',
      FileDescription: 'Example Viewer',
      ProductName: 'Example',
      ProductVersion: ' 2.5.1-beta ',
      OriginalFilename: 'viewer.exe',
      LegalCopyright: '(c) Example',
    },
  });

  it('reads a PE32+ arm64 GUI program and its largest (PNG) icon', async () => {
    const red = (): [number, number, number, number] => [255, 0, 0, 255];
    const exe = peExecutable({
      machine: 0xaa64,
      pe32plus: true,
      subsystem: 2,
      subsystemVersion: [10, 0],
      version,
      icons: [
        { width: 16, height: 16, bitCount: 8, data: dibIcon(16, 16, 8, red) },
        { width: 256, height: 256, bitCount: 32, data: await pngOf(256, 256, '#00ff00') },
        { width: 48, height: 48, bitCount: 32, data: dibIcon(48, 48, 32, red) },
      ],
    });
    const m = await exeReader.read(write('viewer.exe', exe), 'viewer.exe');
    expect(m).toMatchObject({ bundleId: 'Example', releaseVersion: '2.5.1-beta', buildVersion: '2.5.1.4711', displayName: 'Example Viewer', minOsVersion: '10.0' });
    expect(m.extra).toMatchObject({ machine: 'arm64', pe32plus: true, subsystem: 'windows-gui', companyName: 'Example Corp', originalFilename: 'viewer.exe', legalCopyright: '(c) Example' });
    const { data, info } = await sharp(m.icon!).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([256, 256]);
    expect([...data.subarray(0, 4)]).toEqual([0, 255, 0, 255]);
  });

  it('converts a 32-bit DIB icon with alpha', async () => {
    const exe = peExecutable({
      machine: 0x8664,
      pe32plus: true,
      subsystem: 2,
      version,
      icons: [{ width: 32, height: 32, bitCount: 32, data: dibIcon(32, 32, 32, (x, y) => (y < 16 ? [0, 0, 255, 255] : [255, 255, 0, x < 16 ? 0 : 128])) }],
    });
    const m = await exeReader.read(write('dib32.exe', exe), 'dib32.exe');
    expect(m.extra.machine).toBe('x64');
    const { data, info } = await sharp(m.icon!).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height, info.channels]).toEqual([32, 32, 4]);
    const at = (x: number, y: number): number[] => [...data.subarray((y * 32 + x) * 4, (y * 32 + x) * 4 + 4)];
    expect(at(0, 0)).toEqual([0, 0, 255, 255]); // top rows: blue (DIB rows are stored bottom-up)
    expect(at(0, 31)).toEqual([255, 255, 0, 0]);
    expect(at(31, 31)).toEqual([255, 255, 0, 128]);
  });

  it('converts an 8-bit palette DIB icon, transparency from the AND mask', async () => {
    const exe = peExecutable({
      machine: 0x14c,
      pe32plus: false,
      subsystem: 2,
      icons: [{ width: 24, height: 24, bitCount: 8, data: dibIcon(24, 24, 8, (x) => (x < 12 ? [10, 20, 30, 255] : [0, 0, 0, 0])) }],
    });
    const m = await exeReader.read(write('Tool-1.0.exe', exe), 'Tool-1.0.exe');
    const { data, info } = await sharp(m.icon!).raw().toBuffer({ resolveWithObject: true });
    expect(info.width).toBe(24);
    expect([...data.subarray(0, 4)]).toEqual([10, 20, 30, 255]);
    expect(data[(5 * 24 + 20) * 4 + 3]).toBe(0);
    // No version info: the uploaded file's name stands in, and the version is missing.
    expect(m).toMatchObject({ bundleId: 'Tool-1.0', displayName: 'Tool-1.0', releaseVersion: '0', buildVersion: '0' });
    expect(m.extra).toMatchObject({ versionMissing: true, machine: 'x86', companyName: null });
  });

  it('falls back to OriginalFilename and the fixed product version', async () => {
    const bare = versionInfo({ fileVersion: [1, 0, 0, 9], productVersion: [1, 0, 0, 0], strings: { OriginalFilename: 'setup.exe' }, table: '000004b0' });
    const m = await exeReader.read(write('x.exe', peExecutable({ machine: 0x14c, pe32plus: false, subsystem: 3, version: bare })), 'x.exe');
    expect(m).toMatchObject({ bundleId: 'setup', releaseVersion: '1.0.0.0', buildVersion: '1.0.0.9', displayName: 'setup', icon: null });
  });

  it('reads a PE without any resources', async () => {
    const m = await exeReader.read(write('plain.exe', peExecutable({ machine: 0x8664, pe32plus: true, subsystem: 3 })), 'C:\\Users\\me\\plain.exe');
    expect(m).toMatchObject({ bundleId: 'plain', releaseVersion: '0', icon: null });
  });
});

describe('broken .exe files', () => {
  it('refuses a text file named .exe', async () => {
    const path = write('text.exe', 'hello, I am not a program\n');
    await expect(exeReader.read(path, 'text.exe')).rejects.toThrow(ParseError);
    await expect(exeReader.read(path, 'text.exe')).rejects.toThrow('not an .exe: no MZ header');
  });

  it('refuses an empty file', async () => {
    await expect(exeReader.read(write('empty.exe', ''), 'empty.exe')).rejects.toThrow('not an .exe: no MZ header');
  });

  it('refuses a DOS program without a PE header', async () => {
    const dos = Buffer.alloc(256);
    dos.write('MZ', 0, 'latin1');
    dos.writeUInt32LE(0x80, 0x3c);
    await expect(exeReader.read(write('dos.exe', dos), 'dos.exe')).rejects.toThrow('not a valid .exe: no PE header (it may be a DOS or 16-bit program)');
  });

  it('refuses a PE whose resource directory points outside the file', async () => {
    const exe = peExecutable({ machine: 0x14c, pe32plus: false, subsystem: 2, version: versionInfo({ fileVersion: [1, 0, 0, 0], productVersion: [1, 0, 0, 0], strings: {} }) });
    await expect(exeReader.read(write('short.exe', exe.subarray(0, 0x210)), 'short.exe')).rejects.toThrow(/not a valid \.exe: the file is truncated/);
  });
});
