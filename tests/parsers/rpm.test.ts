// RPM reader. There is no fixture: packages are built here with rpmbuild (Debian package rpm) into
// a temporary directory; broken inputs are cut from them.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpmReader } from '../../src-server/parsers/rpm.ts';
import { ParseError } from '../../src-server/parsers/types.ts';
import { run, toolMissing } from '../helpers/tools.ts';

const dir = mkdtempSync(join(tmpdir(), 'hangar-rpm-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, data: Buffer | string): string {
  const path = join(dir, name);
  writeFileSync(path, data);
  return path;
}

function spec(options: { name: string; version: string; release: string; epoch?: number; arch?: string; vendor?: string }): string {
  return `Name: ${options.name}
Version: ${options.version}
Release: ${options.release}
${options.epoch === undefined ? '' : `Epoch: ${options.epoch}`}
Summary: A test package for Hangar
License: MIT
URL: https://example.com/${options.name}
${options.vendor ? `Vendor: ${options.vendor}` : ''}
BuildArch: ${options.arch ?? 'noarch'}

%description
A package built by Hangar's tests.

%install
mkdir -p %{buildroot}/usr/share/${options.name}
echo hello > %{buildroot}/usr/share/${options.name}/hello.txt

%files
/usr/share/${options.name}/hello.txt
`;
}

/** Builds a binary (or, with `source`, a source) RPM; returns its path. */
function rpmbuild(specText: string, name: string, source = false): string {
  const top = join(dir, `top-${name}`);
  write(`${name}.spec`, specText);
  run('rpmbuild', [source ? '-bs' : '-bb', '--define', `_topdir ${top}`, '--define', '_build_id_links none', join(dir, `${name}.spec`)], {
    env: { ...process.env, HOME: dir },
  });
  const out = join(top, source ? 'SRPMS' : 'RPMS');
  const found = readdirSync(out, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.rpm'));
  if (found.length !== 1) throw new Error(`rpmbuild made ${found.length} packages`);
  return join(out, found[0]!);
}

const noRpmbuild = toolMissing('rpmbuild', 'rpm');

describe.skipIf(noRpmbuild !== null)('packages built with rpmbuild', () => {
  let withEpoch: string;

  beforeAll(() => {
    withEpoch = rpmbuild(spec({ name: 'hangar-hello', version: '1.2.3', release: '4.fc40', epoch: 2, vendor: 'Example Corp' }), 'hello');
  });

  it('reads the main header', async () => {
    const m = await rpmReader.read(withEpoch, 'hangar-hello-1.2.3-4.fc40.noarch.rpm');
    expect(m.format).toBe('rpm');
    expect(m.platform).toBe('linux');
    expect(m.bundleId).toBe('hangar-hello');
    expect(m.releaseVersion).toBe('1.2.3');
    expect(m.buildVersion).toBe('4.fc40');
    expect(m.displayName).toBe('hangar-hello');
    expect(m.deviceFamily).toEqual(['desktop']);
    expect(m.minOsVersion).toBeNull();
    expect(m.icon).toBeNull();
    expect(m.releaseType).toBeNull();
    expect(m.extra).toEqual({
      architecture: 'noarch',
      summary: 'A test package for Hangar',
      url: 'https://example.com/hangar-hello',
      vendor: 'Example Corp',
      license: 'MIT',
      os: 'linux',
      epoch: 2,
    });
  });

  it('reads a package without epoch or vendor, for a real architecture', async () => {
    const path = rpmbuild(spec({ name: 'tool', version: '0.9~beta1', release: '1', arch: 'x86_64' }), 'tool');
    const m = await rpmReader.read(path, 'tool.rpm');
    expect(m).toMatchObject({ bundleId: 'tool', releaseVersion: '0.9~beta1', buildVersion: '1' });
    expect(m.extra).toMatchObject({ architecture: 'x86_64', vendor: null });
    expect(m.extra.epoch).toBeUndefined();
  });

  it('marks a source package', async () => {
    const path = rpmbuild(spec({ name: 'srctool', version: '3.0', release: '7' }), 'srctool', true);
    const m = await rpmReader.read(path, 'srctool.src.rpm');
    expect(m).toMatchObject({ bundleId: 'srctool', releaseVersion: '3.0', buildVersion: '7' });
    expect(m.extra.sourcePackage).toBe(true);
  });

  it('refuses a truncated package', async () => {
    const data = readFileSync(withEpoch);
    await expect(rpmReader.read(write('cut1.rpm', data.subarray(0, 50)), 'cut1.rpm')).rejects.toThrow('not a valid .rpm: the file is truncated (the lead is incomplete)');
    await expect(rpmReader.read(write('cut2.rpm', data.subarray(0, 200)), 'cut2.rpm')).rejects.toThrow(/^not a valid \.rpm: the file is truncated \(the signature header/);
  });

  it('refuses a lead and signature without a main header', async () => {
    const data = readFileSync(withEpoch);
    // The signature header's size, then padding to 8: the main header would start there.
    const count = data.readUInt32BE(96 + 8);
    const size = data.readUInt32BE(96 + 12);
    const end = 96 + 16 + count * 16 + size;
    const main = end + ((8 - (end % 8)) % 8);
    await expect(rpmReader.read(write('nomain.rpm', data.subarray(0, main)), 'nomain.rpm')).rejects.toThrow('not a valid .rpm: the file is truncated (the main header lies beyond its end)');
    const garbled = Buffer.from(data);
    garbled.fill(0x41, main, main + 16);
    await expect(rpmReader.read(write('garbled.rpm', garbled), 'garbled.rpm')).rejects.toThrow('not a valid .rpm: the main header has a bad magic number');
  });
});

describe('broken .rpm files', () => {
  it('refuses a text file named .rpm', async () => {
    const path = write('text.rpm', 'Name: not really\n'.repeat(20));
    await expect(rpmReader.read(path, 'text.rpm')).rejects.toThrow(ParseError);
    await expect(rpmReader.read(path, 'text.rpm')).rejects.toThrow('not an .rpm: no RPM lead (bad magic number)');
  });

  it('refuses a header that claims too many entries', async () => {
    const lead = Buffer.alloc(96);
    lead.writeUInt32BE(0xedabeedb, 0);
    const header = Buffer.from([0x8e, 0xad, 0xe8, 0x01, 0, 0, 0, 0, 0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
    await expect(rpmReader.read(write('huge.rpm', Buffer.concat([lead, header])), 'huge.rpm')).rejects.toThrow('not a valid .rpm: the signature header claims 2147483647 entries');
  });
});
