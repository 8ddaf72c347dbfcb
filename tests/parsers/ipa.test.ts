/**
 * The iOS reader against every .ipa in ../shared/fixtures (expected values from SOURCES.md), broken
 * uploads made in a temp dir, and the CgBI (Apple-crushed PNG) conversion.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { PNG } from 'pngjs';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { cgbiToPng, isCgbi, pngSize } from '../../src-server/parsers/cgbi.ts';
import { readBinary } from '../../src-server/parsers/index.ts';
import { declaredIconNames, deviceFamilies, ipaReader, resolveIconFiles } from '../../src-server/parsers/ipa.ts';
import { profilePlistBytes, readProvisioningProfile, releaseTypeOf } from '../../src-server/parsers/provisioning.ts';
import { ParseError, type AppMetadata, type ProvisioningProfile } from '../../src-server/parsers/types.ts';
import { withZip } from '../../src-server/parsers/zip.ts';
import { fixture, fixturesMissing } from '../helpers/fixtures.ts';
import { writeZip } from '../helpers/make-zip.ts';

const temp = mkdtempSync(join(tmpdir(), 'hangar-ipa-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

async function expectPng(icon: Buffer | null): Promise<{ width: number; height: number }> {
  expect(icon).not.toBeNull();
  const meta = await sharp(icon as Buffer).metadata();
  expect(meta.format).toBe('png');
  expect(meta.width).toBeGreaterThan(0);
  expect(meta.height).toBeGreaterThan(0);
  return { width: meta.width, height: meta.height };
}

async function expectParseError(promise: Promise<unknown>, message: RegExp): Promise<void> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ParseError);
  expect((error as Error).message).toMatch(message);
}

const MINIMAL_INFO_PLIST = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0"><dict>
<key>CFBundleIdentifier</key><string>com.example.minimal</string>
<key>CFBundleShortVersionString</key><string>2.0</string>
<key>CFBundleVersion</key><string>42</string>
<key>CFBundleExecutable</key><string>Minimal</string>
</dict></plist>`;

describe.skipIf(fixturesMissing !== null)('ipa fixtures (SOURCES.md, iOS)', () => {
  const read = (name: string): Promise<AppMetadata> => ipaReader.read(fixture('ios', name), name);

  it('appinfodemo (iPhone, binary plist, development profile with 100 devices, no icon)', async () => {
    const m = await read('appinfodemo-1.2.3-b5-iphone-noicon.ipa');
    expect(m.format).toBe('ipa');
    expect(m.platform).toBe('ios');
    expect(m.bundleId).toBe('com.icyleaf.AppInfoDemo');
    expect(m.releaseVersion).toBe('1.2.3');
    expect(m.buildVersion).toBe('5');
    expect(m.displayName).toBe('AppInfoDemo');
    expect(m.minOsVersion).toBe('9.3');
    expect(m.deviceFamily).toEqual(['iphone']);
    expect(m.icon).toBeNull();
    expect(m.provisioning).toMatchObject({
      name: 'iOS Team Provisioning Profile: *',
      uuid: '3e5c38a0-3031-4624-9c2d-c508df973b15',
      teamId: '5PJA6N5A3B',
      teamName: 'QYER Inc',
      createdAt: '2016-07-27T09:44:49.000Z',
      expiresAt: '2017-07-27T09:44:49.000Z',
      provisionsAllDevices: false,
      debuggable: true,
    });
    expect(m.provisioning?.devices).toHaveLength(100);
    expect(m.provisioning?.devices.every((udid) => /^[0-9a-f-]{25,40}$/i.test(udid))).toBe(true);
    // R10 as written: a profile with devices is adhoc; get-task-allow marks it as a development one.
    expect(m.releaseType).toBe('adhoc');
    expect(m.extra).toMatchObject({
      executable: 'AppInfoDemo',
      architectures: ['armv7', 'arm64'],
      provisioningKind: 'development',
      getTaskAllow: true,
      appExtensions: [],
      iconFile: null,
    });
  });

  it('bundle (iPad, icons only under CFBundleIcons~ipad, CgBI-crushed, app-store style profile)', async () => {
    const m = await read('bundle-1.0-b1-ipad-cgbi-icons.ipa');
    expect(m.bundleId).toBe('com.icyleaf.bundle');
    expect(m.releaseVersion).toBe('1.0');
    expect(m.buildVersion).toBe('1');
    expect(m.displayName).toBe('bundle');
    expect(m.minOsVersion).toBe('9.3');
    expect(m.deviceFamily).toEqual(['ipad']);
    // the largest: AppIcon83.5x83.5@2x~ipad.png, 167 x 167
    expect(await expectPng(m.icon)).toEqual({ width: 167, height: 167 });
    expect(m.extra['iconFile']).toBe('AppIcon83.5x83.5@2x~ipad.png');
    expect(m.provisioning).toMatchObject({
      name: 'XC: *',
      teamId: '5PJA6N5A3B',
      teamName: 'QYER Inc',
      createdAt: '2016-05-12T10:54:21.000Z',
      expiresAt: '2017-04-12T09:37:18.000Z',
      devices: [],
      provisionsAllDevices: false,
      debuggable: false,
    });
    expect(m.releaseType).toBe('release');
    expect(m.extra).toMatchObject({ executable: 'bundle', architectures: ['armv7', 'arm64'], provisioningKind: 'app-store', getTaskAllow: false });
  });

  it('demo (XML plist, iPhone+iPad, enterprise profile, one app extension, no icon)', async () => {
    const m = await read('demo-1.0-b1-with-appex-plugin.ipa');
    expect(m.bundleId).toBe('com.icyleaf.test.Demo');
    expect(m.releaseVersion).toBe('1.0');
    expect(m.buildVersion).toBe('1');
    expect(m.displayName).toBe('Demo');
    expect(m.minOsVersion).toBe('14.3');
    expect(m.deviceFamily).toEqual(['iphone', 'ipad']);
    expect(m.icon).toBeNull();
    expect(m.provisioning).toMatchObject({
      name: 'iOS Team Inhouse Provisioning Profile: com.icyleaf.test.Demo',
      teamId: '72LA85G59H',
      teamName: 'Niceliving Beijing Technology Co. Ltd.',
      expiresAt: '2022-01-15T06:40:53.000Z',
      devices: [],
      provisionsAllDevices: true,
      debuggable: false,
    });
    expect(m.releaseType).toBe('enterprise');
    expect(m.extra['architectures']).toEqual(['arm64']);
    expect(m.extra['provisioningKind']).toBe('enterprise');
    expect(m.extra['appExtensions']).toEqual([
      {
        bundleId: 'com.icyleaf.test.Demo.Notification',
        releaseVersion: '1.0',
        buildVersion: '1',
        displayName: 'Notification',
        extensionPoint: 'com.apple.usernotifications.service',
        path: 'Payload/Demo.app/PlugIns/Notification.appex',
      },
    ]);
  });

  it('every profile has expired (the "expired profile" case)', async () => {
    for (const name of ['appinfodemo-1.2.3-b5-iphone-noicon.ipa', 'bundle-1.0-b1-ipad-cgbi-icons.ipa', 'demo-1.0-b1-with-appex-plugin.ipa']) {
      const m = await read(name);
      expect(Date.parse(m.provisioning?.expiresAt as string)).toBeLessThan(Date.now());
    }
  });

  it('readBinary picks the ipa reader by extension', async () => {
    const m = await readBinary(fixture('ios', 'demo-1.0-b1-with-appex-plugin.ipa'), 'Demo.IPA');
    expect(m.format).toBe('ipa');
    expect(m.bundleId).toBe('com.icyleaf.test.Demo');
  });

  it('a profile-less copy reads as debug', async () => {
    // the demo ipa without its embedded.mobileprovision, rebuilt in a temp dir
    const entries: Record<string, Buffer> = {};
    await withZip(fixture('ios', 'demo-1.0-b1-with-appex-plugin.ipa'), 'an .ipa', async (zip) => {
      for (const { name } of zip.entries) if (name !== 'Payload/Demo.app/embedded.mobileprovision') entries[name] = await zip.read(name);
    });
    const m = await ipaReader.read(writeZip(join(temp, 'no-profile.ipa'), entries), 'no-profile.ipa');
    expect(m.provisioning).toBeNull();
    expect(m.releaseType).toBe('debug');
    expect(m.extra['provisioningKind']).toBeNull();
  });
});

describe.skipIf(fixturesMissing !== null)('ipa: broken uploads are ParseErrors with a clear message', () => {
  it('a truncated copy of a fixture (first half of its bytes)', async () => {
    const whole = readFileSync(fixture('ios', 'bundle-1.0-b1-ipad-cgbi-icons.ipa'));
    const path = join(temp, 'truncated.ipa');
    writeFileSync(path, whole.subarray(0, Math.floor(whole.length / 2)));
    await expectParseError(ipaReader.read(path, 'truncated.ipa'), /^not an \.ipa: it is not a readable zip archive/);
    await expectParseError(readBinary(path, 'truncated.ipa'), /not an \.ipa: it is not a readable zip archive/);
  });
});

describe('ipa: broken uploads (generated)', () => {
  it('a text file renamed .ipa', async () => {
    const path = join(temp, 'notes.ipa');
    writeFileSync(path, 'These are my release notes, not an app.\n'.repeat(20));
    await expectParseError(ipaReader.read(path, 'notes.ipa'), /^not an \.ipa: it is not a readable zip archive/);
  });

  it('an empty file', async () => {
    const path = join(temp, 'empty.ipa');
    writeFileSync(path, '');
    await expectParseError(ipaReader.read(path, 'empty.ipa'), /^not an \.ipa: it is not a readable zip archive/);
  });

  it('a valid zip without Payload/', async () => {
    const path = writeZip(join(temp, 'no-payload.ipa'), { 'README.txt': 'hello', 'docs/': '', 'docs/a.txt': 'a' });
    await expectParseError(ipaReader.read(path, 'no-payload.ipa'), /^not an \.ipa: Payload\/<App>\.app\/Info\.plist is missing$/);
  });

  it('a zipped macOS app named .ipa gets a hint', async () => {
    const path = writeZip(join(temp, 'mac.ipa'), { 'X.app/Contents/Info.plist': MINIMAL_INFO_PLIST });
    await expectParseError(ipaReader.read(path, 'mac.ipa'), /Info\.plist is missing \(this looks like a zipped macOS app\)/);
  });

  it('an Info.plist that is garbage', async () => {
    const path = writeZip(join(temp, 'garbage.ipa'), { 'Payload/Bad.app/Info.plist': Buffer.from([0x00, 0xff, 0x13, 0x37, 0x42, 0x00, 0x7f]) });
    await expectParseError(ipaReader.read(path, 'garbage.ipa'), /^not a valid \.ipa: Payload\/Bad\.app\/Info\.plist is not a readable property list/);
  });

  it('a binary plist header followed by garbage', async () => {
    const path = writeZip(join(temp, 'bad-bplist.ipa'), { 'Payload/Bad.app/Info.plist': Buffer.concat([Buffer.from('bplist00'), Buffer.alloc(40, 0xee)]) });
    await expectParseError(ipaReader.read(path, 'bad-bplist.ipa'), /Payload\/Bad\.app\/Info\.plist is not a readable property list/);
  });

  it('an Info.plist without CFBundleIdentifier', async () => {
    const plist = MINIMAL_INFO_PLIST.replace('<key>CFBundleIdentifier</key><string>com.example.minimal</string>', '');
    const path = writeZip(join(temp, 'no-id.ipa'), { 'Payload/NoId.app/Info.plist': plist });
    await expectParseError(ipaReader.read(path, 'no-id.ipa'), /^not a valid \.ipa: Payload\/NoId\.app\/Info\.plist has no CFBundleIdentifier$/);
  });

  it('an Info.plist without either version', async () => {
    const plist = MINIMAL_INFO_PLIST.replace(/<key>CFBundle(ShortVersionString|Version)<\/key><string>[^<]*<\/string>/g, '');
    const path = writeZip(join(temp, 'no-version.ipa'), { 'Payload/NoVersion.app/Info.plist': plist });
    await expectParseError(ipaReader.read(path, 'no-version.ipa'), /has neither CFBundleShortVersionString nor CFBundleVersion/);
  });

  it('a minimal valid ipa: defaults (iphone, folder name, no profile: debug)', async () => {
    const plist = MINIMAL_INFO_PLIST.replace('<key>CFBundleVersion</key><string>42</string>', '');
    const path = writeZip(join(temp, 'minimal.ipa'), {
      'Payload/My App.app/Info.plist': plist,
      'Payload/My App.app/embedded.mobileprovision': 'not a profile at all',
      'Payload/My App.app/Minimal': 'not a Mach-O file',
    });
    const m = await ipaReader.read(path, 'minimal.ipa');
    expect(m).toMatchObject({
      bundleId: 'com.example.minimal',
      releaseVersion: '2.0',
      buildVersion: '2.0', // the short version stands in for a missing CFBundleVersion
      displayName: 'My App',
      deviceFamily: ['iphone'],
      minOsVersion: null,
      icon: null,
      provisioning: null,
      releaseType: 'debug',
    });
    // a damaged profile does not fail the upload, but is reported
    expect(m.extra['provisioningError']).toMatch(/embedded\.mobileprovision is not a provisioning profile/);
    expect(m.extra['architectures']).toBeUndefined();
  });
});

describe('ipa helpers', () => {
  it('deviceFamilies maps UIDeviceFamily', () => {
    expect(deviceFamilies(undefined)).toEqual(['iphone']);
    expect(deviceFamilies([])).toEqual(['iphone']);
    expect(deviceFamilies([1, 2])).toEqual(['iphone', 'ipad']);
    expect(deviceFamilies([3, 4, 6])).toEqual(['tv', 'watch', 'mac']);
    expect(deviceFamilies(2)).toEqual(['ipad']);
    expect(deviceFamilies(['1', '2', 2])).toEqual(['iphone', 'ipad']);
    expect(deviceFamilies([99])).toEqual(['iphone']);
  });

  it('declaredIconNames reads modern, ~ipad and legacy keys', () => {
    const { names } = declaredIconNames({
      CFBundleIcons: { CFBundlePrimaryIcon: { CFBundleIconFiles: ['AppIcon60x60'], CFBundleIconName: 'AppIcon' } },
      'CFBundleIcons~ipad': { CFBundlePrimaryIcon: { CFBundleIconFiles: ['AppIcon60x60', 'AppIcon76x76'] } },
      CFBundleIconFiles: ['Icon.png', 'Icon-72.png'],
      CFBundleIconFile: 'Icon.png',
    });
    expect(names).toEqual(['AppIcon60x60', 'AppIcon76x76', 'Icon.png', 'Icon-72.png']);
  });

  it('resolveIconFiles finds @2x/@3x/~ipad variants and .png', () => {
    const files = ['AppIcon60x60@2x.png', 'AppIcon60x60@3x.png', 'AppIcon76x76~ipad.png', 'AppIcon83.5x83.5@2x~ipad.png', 'AppIcon60x60x.png', 'Icon.png', 'Icon@2x.png', 'Info.plist'];
    expect(resolveIconFiles(['AppIcon60x60'], files)).toEqual(['AppIcon60x60@2x.png', 'AppIcon60x60@3x.png']);
    expect(resolveIconFiles(['AppIcon76x76', 'AppIcon83.5x83.5'], files)).toEqual(['AppIcon76x76~ipad.png', 'AppIcon83.5x83.5@2x~ipad.png']);
    expect(resolveIconFiles(['Icon.png'], files)).toEqual(['Icon.png', 'Icon@2x.png']);
  });

  it('releaseTypeOf applies R10 as written', () => {
    const base: ProvisioningProfile = { name: null, uuid: null, teamId: null, teamName: null, createdAt: null, expiresAt: null, devices: [], provisionsAllDevices: false, debuggable: false };
    expect(releaseTypeOf(null)).toBe('debug');
    expect(releaseTypeOf({ ...base, devices: ['x'] })).toBe('adhoc');
    expect(releaseTypeOf({ ...base, devices: ['x'], debuggable: true })).toBe('adhoc');
    expect(releaseTypeOf({ ...base, provisionsAllDevices: true })).toBe('enterprise');
    expect(releaseTypeOf(base)).toBe('release');
  });

  it('a provisioning profile without a plist is a ParseError', () => {
    expect(profilePlistBytes(Buffer.from([0x30, 0x82, 0x01, 0x00]))).toBeNull();
    expect(() => readProvisioningProfile(Buffer.from('garbage'), 'embedded.mobileprovision')).toThrow(ParseError);
    expect(() => readProvisioningProfile(Buffer.from('<?xml version="1.0"?><plist><dict><key>a</key></plist>'), 'p')).toThrow(/not a readable property list/);
  });
});

/** Makes an Apple-style crushed PNG from RGBA pixels: premultiplied BGRA, mixed filters, raw deflate. */
function makeCgbi(width: number, height: number, rgba: Buffer): Buffer {
  const stride = width * 4;
  const raw = Buffer.alloc(stride * height);
  for (let i = 0; i < width * height; i++) {
    const [r, g, b, a] = [rgba[i * 4] as number, rgba[i * 4 + 1] as number, rgba[i * 4 + 2] as number, rgba[i * 4 + 3] as number];
    raw[i * 4] = Math.round((b * a) / 255);
    raw[i * 4 + 1] = Math.round((g * a) / 255);
    raw[i * 4 + 2] = Math.round((r * a) / 255);
    raw[i * 4 + 3] = a;
  }
  const filtered = Buffer.alloc((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    const filter = y % 5; // every filter type
    filtered[y * (stride + 1)] = filter;
    for (let x = 0; x < stride; x++) {
      const value = raw[y * stride + x] as number;
      const left = x >= 4 ? (raw[y * stride + x - 4] as number) : 0;
      const up = y > 0 ? (raw[(y - 1) * stride + x] as number) : 0;
      const upLeft = y > 0 && x >= 4 ? (raw[(y - 1) * stride + x - 4] as number) : 0;
      const p = left + up - upLeft;
      const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)];
      const paeth = pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft;
      const predictor = [0, left, up, (left + up) >> 1, paeth][filter] as number;
      filtered[y * (stride + 1) + 1 + x] = (value - predictor) & 0xff;
    }
  }
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'latin1');
    return Buffer.concat([head, data, Buffer.alloc(4)]); // CgBI readers ignore CRCs; so do we
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('CgBI', Buffer.from([0x50, 0x00, 0x20, 0x02])),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateRawSync(filtered)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('CgBI conversion', () => {
  it('round-trips a generated crushed PNG: channel order, every filter, un-premultiplied alpha', () => {
    const width = 7;
    const height = 11;
    const rgba = Buffer.alloc(width * height * 4);
    for (let i = 0; i < width * height; i++) {
      rgba[i * 4] = (i * 37) & 0xff;
      rgba[i * 4 + 1] = (i * 11 + 40) & 0xff;
      rgba[i * 4 + 2] = (200 - i * 3) & 0xff;
      rgba[i * 4 + 3] = i % 3 === 0 ? 255 : i % 3 === 1 ? 128 : 0;
    }
    const crushed = makeCgbi(width, height, rgba);
    expect(isCgbi(crushed)).toBe(true);
    expect(pngSize(crushed)).toEqual({ width, height });
    const png = PNG.sync.read(cgbiToPng(crushed));
    expect([png.width, png.height]).toEqual([width, height]);
    for (let i = 0; i < width * height; i++) {
      const a = rgba[i * 4 + 3] as number;
      expect(png.data[i * 4 + 3]).toBe(a);
      if (a === 0) continue; // colour is lost under zero alpha
      for (let c = 0; c < 3; c++) {
        // premultiplying at alpha 128 loses the lowest bit
        expect(Math.abs((png.data[i * 4 + c] as number) - (rgba[i * 4 + c] as number))).toBeLessThanOrEqual(a === 255 ? 0 : 2);
      }
    }
  });

  it('leaves a standard PNG as it is, and refuses what is not a PNG', () => {
    const png = new PNG({ width: 2, height: 2 });
    const bytes = PNG.sync.write(png);
    expect(isCgbi(bytes)).toBe(false);
    expect(cgbiToPng(bytes)).toBe(bytes);
    expect(() => cgbiToPng(Buffer.from('GIF89a'))).toThrow(/not a PNG/);
  });

  it.skipIf(fixturesMissing !== null)("converts the iPad fixture's crushed icon into a PNG that sharp decodes", async () => {
    const crushed = await withZip(fixture('ios', 'bundle-1.0-b1-ipad-cgbi-icons.ipa'), 'an .ipa', (zip) => zip.read('Payload/bundle.app/AppIcon83.5x83.5@2x~ipad.png'));
    expect(isCgbi(crushed)).toBe(true);
    await expect(sharp(crushed).metadata().then(() => sharp(crushed).raw().toBuffer())).rejects.toThrow(); // as shipped, unreadable
    const png = cgbiToPng(crushed);
    expect(isCgbi(png)).toBe(false);
    const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height, info.channels]).toEqual([167, 167, 4]);
    const stats = await sharp(png).stats();
    expect(stats.isOpaque).toBe(false); // rounded corners are transparent
    for (const channel of stats.channels.slice(0, 3)) expect(channel.stdev).toBeGreaterThan(20); // not a flat image
    // the gold background: red high, blue low (a B/R swap would make it blue)
    const at = (x: number, y: number) => [...data.subarray((y * info.width + x) * 4, (y * info.width + x) * 4 + 4)];
    const [r, g, b, a] = at(20, 80) as [number, number, number, number];
    expect(a).toBe(255);
    expect(r).toBeGreaterThan(130);
    expect(g).toBeGreaterThan(90);
    expect(b).toBeLessThan(60);
    expect(at(0, 0)[3]).toBe(0); // a transparent corner
  });
});
