// Windows Installer (.msi) reader. There is no fixture: packages are built here with wixl (Debian
// package wixl, from msitools) into a temporary directory; broken compound files are built by hand.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withFile } from '../../src-server/parsers/binfile.ts';
import { CompoundFile } from '../../src-server/parsers/cfb.ts';
import { decodeStreamName, msiReader } from '../../src-server/parsers/msi.ts';
import { ParseError } from '../../src-server/parsers/types.ts';
import { compoundFile, dibIcon, icoFile } from '../helpers/builders.ts';
import { run, toolMissing } from '../helpers/tools.ts';

const dir = mkdtempSync(join(tmpdir(), 'hangar-msi-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, data: Buffer | string): string {
  const path = join(dir, name);
  writeFileSync(path, data);
  return path;
}

const UPGRADE = '{ABCDEF01-2345-6789-ABCD-EF0123456789}';
const PRODUCT = '{12345678-1234-1234-1234-123456789012}';

function wxs(options: { name?: string; version?: string; upgradeCode?: boolean; extra?: string; arch?: 'x64' | 'x86' } = {}): string {
  const x64 = (options.arch ?? 'x64') === 'x64';
  return `<?xml version="1.0" encoding="utf-8"?>
<Wix xmlns="http://schemas.microsoft.com/wix/2006/wi">
  <Product Id="${PRODUCT.slice(1, -1)}" Name="${options.name ?? 'Hangar Hello'}" Language="1033" Version="${options.version ?? '1.2.3'}"
      Manufacturer="Example Corp" ${options.upgradeCode === false ? '' : `UpgradeCode="${UPGRADE.slice(1, -1)}"`}>
    <Package InstallerVersion="200" Compressed="yes" Comments="Test package"/>
    <Media Id="1" Cabinet="app.cab" EmbedCab="yes"/>
    ${options.extra ?? ''}
    <Directory Id="TARGETDIR" Name="SourceDir">
      <Directory Id="${x64 ? 'ProgramFiles64Folder' : 'ProgramFilesFolder'}">
        <Directory Id="INSTALLDIR" Name="Hangar Hello">
          <Component Id="MainFile" Guid="11111111-2222-3333-4444-555555555555" ${x64 ? 'Win64="yes"' : ''}>
            <File Id="HelloTxt" Source="hello.txt"/>
          </Component>
        </Directory>
      </Directory>
    </Directory>
    <Feature Id="Main" Level="1"><ComponentRef Id="MainFile"/></Feature>
  </Product>
</Wix>`;
}

/** Builds an .msi with wixl from WiX source; returns its path. */
function wixl(name: string, source: string, arch: 'x64' | 'x86' = 'x64'): string {
  write(`${name}.wxs`, source);
  run('wixl', ['-a', arch, '-o', `${name}.msi`, `${name}.wxs`], { cwd: dir });
  return join(dir, `${name}.msi`);
}

const noWixl = toolMissing('wixl', 'wixl');

describe.skipIf(noWixl !== null)('packages built with wixl', () => {
  beforeAll(() => {
    write('hello.txt', 'hello\n');
  });

  it('reads the Property table and the summary information', async () => {
    const m = await msiReader.read(wixl('basic', wxs()), 'basic.msi');
    expect(m.format).toBe('msi');
    expect(m.platform).toBe('windows');
    expect(m.bundleId).toBe(UPGRADE);
    expect(m.releaseVersion).toBe('1.2.3');
    expect(m.buildVersion).toBe('1.2.3');
    expect(m.displayName).toBe('Hangar Hello');
    expect(m.deviceFamily).toEqual(['desktop']);
    expect(m.minOsVersion).toBeNull();
    expect(m.icon).toBeNull();
    expect(m.releaseType).toBeNull();
    expect(m.extra).toMatchObject({
      manufacturer: 'Example Corp',
      productCode: PRODUCT,
      upgradeCode: UPGRADE,
      productLanguage: '1033',
      architecture: 'x64',
      languages: ['1033'],
      author: 'Example Corp',
    });
    expect(m.extra.packageCode).toMatch(/^\{[0-9A-F-]{36}\}$/);
  });

  it('uses the ProductCode without an UpgradeCode, and reads an x86 package', async () => {
    const m = await msiReader.read(wixl('noupgrade', wxs({ upgradeCode: false, arch: 'x86', version: '4.0.1' }), 'x86'), 'noupgrade.msi');
    expect(m.bundleId).toBe(PRODUCT);
    expect(m.releaseVersion).toBe('4.0.1');
    expect(m.extra).toMatchObject({ upgradeCode: null, architecture: 'Intel' });
  });

  it('decodes non-ASCII strings in the package code page', async () => {
    const m = await msiReader.read(wixl('latin', wxs({ name: 'Hängar Überall' })), 'latin.msi');
    expect(m.displayName).toBe('Hängar Überall');
  });

  it('reads a large Property table and string pool (regular sectors, not the mini stream)', async () => {
    const properties = Array.from({ length: 1200 }, (_, i) => `<Property Id="PROP${i}" Value="value number ${i} ${'x'.repeat(i % 40)}"/>`).join('\n');
    const m = await msiReader.read(wixl('large', wxs({ extra: properties, version: '10.20.30' })), 'large.msi');
    expect(m).toMatchObject({ bundleId: UPGRADE, releaseVersion: '10.20.30', displayName: 'Hangar Hello' });
  });

  it('reads the ARPPRODUCTICON icon from the Icon table', async () => {
    const png = await sharp({ create: { width: 64, height: 64, channels: 4, background: '#0000ff' } }).png().toBuffer();
    const dib = dibIcon(16, 16, 32, () => [255, 0, 0, 255]);
    write('app.ico', icoFile([{ width: 16, height: 16, bitCount: 32, data: dib }, { width: 64, height: 64, bitCount: 32, data: png }]));
    const extra = '<Icon Id="app.ico" SourceFile="app.ico"/><Property Id="ARPPRODUCTICON" Value="app.ico"/>';
    const m = await msiReader.read(wixl('icon', wxs({ extra })), 'icon.msi');
    const { data, info } = await sharp(m.icon!).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([64, 64]);
    expect([...data.subarray(0, 4)]).toEqual([0, 0, 255, 255]);
  });

  it('refuses a truncated package', async () => {
    const msi = readFileSync(wixl('cut', wxs()));
    await expect(msiReader.read(write('cut1.msi', msi.subarray(0, 300)), 'cut1.msi')).rejects.toThrow('not a valid .msi: the file is truncated (the compound file header is incomplete)');
    await expect(msiReader.read(write('cut2.msi', msi.subarray(0, 2048)), 'cut2.msi')).rejects.toThrow(/^not a valid \.msi: /);
  });

  it('refuses an installer database without a Property table (msibuild)', async () => {
    run('msibuild', ['empty.msi', '-s', 'Empty'], { cwd: dir });
    await expect(msiReader.read(join(dir, 'empty.msi'), 'empty.msi')).rejects.toThrow('not a valid .msi: its Property table is missing');
  });
});

describe('broken .msi files', () => {
  it('refuses a text file named .msi', async () => {
    const path = write('text.msi', 'not an installer\n'.repeat(100));
    await expect(msiReader.read(path, 'text.msi')).rejects.toThrow(ParseError);
    await expect(msiReader.read(path, 'text.msi')).rejects.toThrow('not an .msi: it is not an OLE compound file (bad signature)');
  });

  it('refuses a compound file that holds no installer database', async () => {
    const path = write('doc.msi', compoundFile([{ name: 'WordDocument', data: Buffer.alloc(5000, 1) }]));
    await expect(msiReader.read(path, 'doc.msi')).rejects.toThrow('not a valid .msi: it is a compound file without an installer database (no string pool)');
  });

  it('refuses a compound file whose sector chain loops', async () => {
    const path = write('loop.msi', compoundFile([{ name: 'Loop', data: Buffer.alloc(4096) }], { loop: true }));
    await withFile(path, 'an .msi', async (file) => {
      const cfb = await CompoundFile.open(file);
      const entry = [...cfb.rootChildren().values()][0]!;
      await expect(cfb.read(entry)).rejects.toThrow('not a valid .msi: its compound file is damaged (a sector chain loops)');
    });
  });

  it('decodes MSI stream names', () => {
    // "Property" as a table stream, and "Icon.app.ico" as a plain stream, as Windows Installer writes them.
    const encode = (text: string): string => {
      const chars = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz._';
      let out = '';
      for (let i = 0; i < text.length; i += 2) {
        const a = chars.indexOf(text[i]!);
        const b = i + 1 < text.length ? chars.indexOf(text[i + 1]!) : -1;
        out += String.fromCharCode(b === -1 ? 0x4800 + a : 0x3800 + a + (b << 6));
      }
      return out;
    };
    expect(decodeStreamName(`\u4840${encode('Property')}`)).toEqual({ name: 'Property', table: true });
    expect(decodeStreamName(encode('Icon.app.ico'))).toEqual({ name: 'Icon.app.ico', table: false });
    expect(decodeStreamName('\u0005SummaryInformation')).toEqual({ name: '\u0005SummaryInformation', table: false });
  });
});
