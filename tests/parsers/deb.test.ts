// Debian package reader: the libjs-microplugin.js fixture (SOURCES.md, Linux section), packages
// assembled here (ar + control.tar.{gz,zst,xz} or plain), and broken inputs.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync, zstdCompressSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { debReader, parseControl, splitDebianVersion } from '../../src-server/parsers/deb.ts';
import { ParseError } from '../../src-server/parsers/types.ts';
import { arArchive, tarArchive } from '../helpers/builders.ts';
import { fixture, fixturesMissing } from '../helpers/fixtures.ts';

const DEB = 'libjs-microplugin.js_0.0.3+dfsg-1.1_all.deb';
const dir = mkdtempSync(join(tmpdir(), 'hangar-deb-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, data: Buffer | string): string {
  const path = join(dir, name);
  writeFileSync(path, data);
  return path;
}

const CONTROL = `Package: hello-hangar
Version: 2:1.4.0~rc1-3ubuntu2
Architecture: amd64
Maintainer: Jane Doe <jane@example.com>
Installed-Size: 12
Depends: libc6 (>= 2.34)
Homepage: https://example.com/hello
Description: greet the world from Hangar
 A longer description
 .
 with paragraphs.
`;

function deb(control: string | null, compression: 'gz' | 'zst' | '' = 'gz', extraMembers: Array<{ name: string; data: Buffer }> = []): Buffer {
  const tar = tarArchive([{ name: './', data: '', type: '5' }, ...(control === null ? [] : [{ name: './control', data: control }]), { name: './md5sums', data: '' }]);
  const compressed = compression === 'gz' ? gzipSync(tar) : compression === 'zst' ? zstdCompressSync(tar) : tar;
  return arArchive([
    { name: 'debian-binary', data: '2.0\n' },
    ...extraMembers,
    { name: `control.tar${compression ? `.${compression}` : ''}`, data: compressed },
    { name: 'data.tar.gz', data: gzipSync(tarArchive([])) },
  ]);
}

describe.skipIf(fixturesMissing !== null)('the libjs-microplugin.js fixture', () => {
  it('reads control from control.tar.xz', async () => {
    const m = await debReader.read(fixture('linux', DEB), DEB);
    expect(m.format).toBe('deb');
    expect(m.platform).toBe('linux');
    expect(m.bundleId).toBe('libjs-microplugin.js');
    expect(m.releaseVersion).toBe('0.0.3+dfsg');
    expect(m.buildVersion).toBe('1.1');
    expect(m.displayName).toBe('libjs-microplugin.js');
    expect(m.deviceFamily).toEqual(['desktop']);
    expect(m.minOsVersion).toBeNull();
    expect(m.icon).toBeNull();
    expect(m.releaseType).toBeNull();
    expect(m.extra).toEqual({
      architecture: 'all',
      maintainer: 'Debian Javascript Maintainers <pkg-javascript-devel@lists.alioth.debian.org>',
      homepage: 'https://github.com/brianreavis/microplugin.js',
      description: 'Lightweight plugin / dependency system for libraries',
    });
  });

  it('refuses the fixture truncated', async () => {
    const data = readFileSync(fixture('linux', DEB));
    await expect(debReader.read(write('cut1.deb', data.subarray(0, 5)), 'cut1.deb')).rejects.toThrow('not a valid .deb: the file is truncated');
    await expect(debReader.read(write('cut2.deb', data.subarray(0, 100)), 'cut2.deb')).rejects.toThrow(/^not a valid \.deb: the file is truncated/);
    await expect(debReader.read(write('cut3.deb', data.subarray(0, 500)), 'cut3.deb')).rejects.toThrow('not a valid .deb: the file is truncated (control.tar.xz lies beyond its end)');
  });
});

describe('packages assembled here', () => {
  it.each(['gz', 'zst', ''] as const)('reads control.tar%s, with an epoch and a revision', async (compression) => {
    const m = await debReader.read(write(`hello-${compression}.deb`, deb(CONTROL, compression)), 'hello.deb');
    expect(m).toMatchObject({ bundleId: 'hello-hangar', releaseVersion: '1.4.0~rc1', buildVersion: '3ubuntu2', displayName: 'hello-hangar' });
    expect(m.extra).toEqual({
      architecture: 'amd64',
      maintainer: 'Jane Doe <jane@example.com>',
      homepage: 'https://example.com/hello',
      description: 'greet the world from Hangar',
      epoch: '2',
    });
  });

  it('uses the whole version as the build without a Debian revision', async () => {
    const m = await debReader.read(write('native.deb', deb('Package: native\nVersion: 1.0\nArchitecture: all\n')), 'native.deb');
    expect(m).toMatchObject({ releaseVersion: '1.0', buildVersion: '1.0' });
    expect(m.extra).toEqual({ architecture: 'all', maintainer: null, homepage: null, description: null });
  });

  it('skips unrelated ar members before control.tar', async () => {
    const m = await debReader.read(write('signed.deb', deb(CONTROL, 'gz', [{ name: '_gpgorigin', data: Buffer.from('sig') }])), 'signed.deb');
    expect(m.bundleId).toBe('hello-hangar');
  });

  it('splits Debian versions', () => {
    expect(splitDebianVersion('1:2.30-1-2')).toEqual({ epoch: '1', upstream: '2.30-1', revision: '2' });
    expect(splitDebianVersion('0.0.3+dfsg-1.1')).toEqual({ epoch: null, upstream: '0.0.3+dfsg', revision: '1.1' });
    expect(splitDebianVersion('7')).toEqual({ epoch: null, upstream: '7', revision: null });
  });

  it('parses control fields case-insensitively with continuation lines', () => {
    const fields = parseControl('package: x\nDescription: one\n two\n\nPackage: second-paragraph\n');
    expect(fields.get('package')).toBe('x');
    expect(fields.get('description')).toBe('one\ntwo');
  });
});

describe('broken .deb files', () => {
  it('refuses a text file named .deb', async () => {
    const path = write('text.deb', 'Package: not really\n');
    await expect(debReader.read(path, 'text.deb')).rejects.toThrow(ParseError);
    await expect(debReader.read(path, 'text.deb')).rejects.toThrow('not a .deb: it is not an ar archive (no "!<arch>" header)');
  });

  it('refuses an ar archive without control.tar', async () => {
    const path = write('nocontrol.deb', arArchive([{ name: 'debian-binary', data: '2.0\n' }, { name: 'data.tar.gz', data: gzipSync(tarArchive([])) }]));
    await expect(debReader.read(path, 'nocontrol.deb')).rejects.toThrow('not a valid .deb: control.tar is missing from the archive');
  });

  it('refuses a control.tar without ./control', async () => {
    await expect(debReader.read(write('empty-control.deb', deb(null)), 'x.deb')).rejects.toThrow('not a valid .deb: control.tar.gz holds no control file');
  });

  it('refuses a control.tar.gz that is not gzip, or not a tar', async () => {
    const notGzip = arArchive([{ name: 'debian-binary', data: '2.0\n' }, { name: 'control.tar.gz', data: Buffer.from('plain text, not gzip') }]);
    await expect(debReader.read(write('notgz.deb', notGzip), 'x.deb')).rejects.toThrow(/^not a valid \.deb: control\.tar\.gz is damaged: it cannot be decompressed/);
    const notTar = arArchive([{ name: 'debian-binary', data: '2.0\n' }, { name: 'control.tar.gz', data: gzipSync(Buffer.alloc(1024, 0x41)) }]);
    await expect(debReader.read(write('nottar.deb', notTar), 'x.deb')).rejects.toThrow(/^not a valid \.deb: control\.tar\.gz is not a valid tar archive/);
  });

  it('refuses a control.tar.gz that inflates beyond 32 MiB (a bomb)', async () => {
    const bomb = arArchive([{ name: 'debian-binary', data: '2.0\n' }, { name: 'control.tar.gz', data: gzipSync(Buffer.alloc(40 * 1024 * 1024)) }]);
    await expect(debReader.read(write('bomb.deb', bomb), 'x.deb')).rejects.toThrow('not a valid .deb: control.tar.gz decompresses to more than 33554432 bytes');
  });

  it('refuses a control file without Package or Version', async () => {
    await expect(debReader.read(write('nopkg.deb', deb('Version: 1\n')), 'x.deb')).rejects.toThrow('not a valid .deb: its control file has no Package field');
    await expect(debReader.read(write('nover.deb', deb('Package: x\n')), 'x.deb')).rejects.toThrow('not a valid .deb: its control file has no Version field');
  });

  it('refuses a damaged ar member header', async () => {
    const data = Buffer.from(deb(CONTROL));
    data.write('XX', 8 + 58, 'latin1');
    await expect(debReader.read(write('badheader.deb', data), 'x.deb')).rejects.toThrow('not a valid .deb: its ar archive is damaged (bad member header)');
  });
});
