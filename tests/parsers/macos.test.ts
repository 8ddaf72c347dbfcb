/**
 * The macOS reader (zipped .app) against ../shared/fixtures/macos (expected values from SOURCES.md),
 * synthetic variants built in a temp dir from fixture pieces, broken uploads, icns decoding, and the
 * .dmg refusal.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { dmgReader } from '../../src-server/parsers/dmg.ts';
import { decodeLegacyRgb, icnsEntries, iconImages } from '../../src-server/parsers/icns.ts';
import { readBinary } from '../../src-server/parsers/index.ts';
import { icnsToPng, macosAppReader, mainAppPlist } from '../../src-server/parsers/macos.ts';
import { ParseError } from '../../src-server/parsers/types.ts';
import { withZip } from '../../src-server/parsers/zip.ts';
import { fixture, fixturesMissing } from '../helpers/fixtures.ts';
import { writeZip } from '../helpers/make-zip.ts';

const temp = mkdtempSync(join(tmpdir(), 'hangar-macos-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const GUIAPP = 'guiapp-1.0-b1-unsigned.app.zip';

async function expectParseError(promise: Promise<unknown>, message: RegExp): Promise<void> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ParseError);
  expect((error as Error).message).toMatch(message);
}

/** All entries of a fixture zip, in memory (they are small). */
async function fixtureEntries(...parts: string[]): Promise<Record<string, Buffer>> {
  const entries: Record<string, Buffer> = {};
  await withZip(fixture(...parts), 'a zip', async (zip) => {
    for (const { name } of zip.entries) entries[name] = await zip.read(name);
  });
  return entries;
}

const INFO_PLIST = (body: string) => `<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict>${body}</dict></plist>`;

describe.skipIf(fixturesMissing !== null)('macOS fixtures (SOURCES.md, macOS)', () => {
  it('guiapp (unsigned, universal, AppIcon.icns plus Assets.car)', async () => {
    const m = await macosAppReader.read(fixture('macos', GUIAPP), GUIAPP);
    expect(m.format).toBe('macos-app');
    expect(m.platform).toBe('macos');
    expect(m.bundleId).toBe('com.icyleaf.macos.GUIApp');
    expect(m.releaseVersion).toBe('1.0');
    expect(m.buildVersion).toBe('1');
    expect(m.displayName).toBe('GuiApp');
    expect(m.minOsVersion).toBe('11.3');
    expect(m.deviceFamily).toEqual(['mac']);
    expect(m.provisioning).toBeNull();
    expect(m.releaseType).toBeNull();
    const meta = await sharp(m.icon as Buffer).metadata();
    expect(meta.format).toBe('png');
    // the largest PNG in AppIcon.icns is ic13 (128 pt @2x = 256 px)
    expect([meta.width, meta.height]).toEqual([256, 256]);
    expect(m.extra).toMatchObject({
      executable: 'GuiApp',
      bundlePath: 'GuiApp.app',
      architectures: ['x86_64', 'arm64'],
      iconFile: 'AppIcon.icns',
      appExtensions: [],
      provisioningKind: null,
      category: 'public.app-category.developer-tools',
    });
  });

  it('readBinary picks the macOS reader for .app.zip and .zip', async () => {
    for (const name of ['GuiApp.app.zip', 'GuiApp.zip']) {
      const m = await readBinary(fixture('macos', GUIAPP), name);
      expect(m.format).toBe('macos-app');
      expect(m.bundleId).toBe('com.icyleaf.macos.GUIApp');
    }
  });

  it('finds the app nested in folders, ignores __MACOSX/, reads embedded.provisionprofile', async () => {
    // The signed macOS zip SOURCES.md describes is not among the fixtures: put a real profile (the
    // iPad fixture's) into a copy of the unsigned app, nested two folders deep, with Finder junk.
    const app = await fixtureEntries('macos', GUIAPP);
    const profile = (await fixtureEntries('ios', 'bundle-1.0-b1-ipad-cgbi-icons.ipa'))['Payload/bundle.app/embedded.mobileprovision'] as Buffer;
    const entries: Record<string, Buffer | string> = {
      '__MACOSX/build/out/GuiApp.app/Contents/._Info.plist': Buffer.from([0x00, 0x05, 0x16, 0x07, 0x00, 0x02]),
      '__MACOSX/build/out/Other.app/Contents/Info.plist': 'junk',
    };
    for (const [name, data] of Object.entries(app)) entries[`build/out/${name}`] = data;
    entries['build/out/GuiApp.app/Contents/embedded.provisionprofile'] = profile;
    // a helper app inside the bundle must not be taken for the main one
    entries['build/out/GuiApp.app/Contents/Library/LoginItems/Helper.app/Contents/Info.plist'] = INFO_PLIST(
      '<key>CFBundleIdentifier</key><string>com.example.helper</string><key>CFBundleVersion</key><string>9</string>',
    );
    const path = writeZip(join(temp, 'nested.zip'), entries);
    const m = await macosAppReader.read(path, 'nested.zip');
    expect(m.bundleId).toBe('com.icyleaf.macos.GUIApp');
    expect(m.extra['bundlePath']).toBe('build/out/GuiApp.app');
    expect(m.icon).not.toBeNull();
    expect(m.provisioning).toMatchObject({ teamId: '5PJA6N5A3B', teamName: 'QYER Inc', name: 'XC: *', expiresAt: '2017-04-12T09:37:18.000Z', provisionsAllDevices: false });
    expect(m.releaseType).toBeNull(); // R10's release types are iOS ones
    expect(m.extra['provisioningKind']).toBe('app-store');
  });

  it('icns: lists PNG entries largest first and decodes the legacy is32 + s8mk entry', async () => {
    const icns = (await fixtureEntries('macos', GUIAPP))['GuiApp.app/Contents/Resources/AppIcon.icns'] as Buffer;
    expect([...icnsEntries(icns).keys()]).toEqual(['TOC ', 'is32', 's8mk', 'ic11', 'ic07', 'ic13']);
    const images = iconImages(icns);
    expect(images.map((i) => [i.type, i.side, i.format])).toEqual([
      ['ic13', 256, 'png'],
      ['ic07', 128, 'png'],
      ['ic11', 32, 'png'],
      ['is32', 16, 'rgb'],
    ]);
    const entries = icnsEntries(icns);
    const legacy = decodeLegacyRgb('is32', entries.get('is32') as Buffer, entries.get('s8mk'));
    const { info } = await sharp(legacy).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([16, 16]);
    const stats = await sharp(legacy).stats();
    expect(stats.channels[0]?.stdev).toBeGreaterThan(10); // a white "A" on dark grey, not a flat square
    // an icns with only the legacy entry still gives an icon
    const entry = (type: string, body: Buffer) => {
      const head = Buffer.alloc(8);
      head.write(type, 0, 'latin1');
      head.writeUInt32BE(body.length + 8, 4);
      return Buffer.concat([head, body]);
    };
    const body = Buffer.concat([entry('is32', entries.get('is32') as Buffer), entry('s8mk', entries.get('s8mk') as Buffer)]);
    const only = Buffer.concat([Buffer.from('icns', 'latin1'), Buffer.alloc(4), body]);
    only.writeUInt32BE(only.length, 4);
    const png = await icnsToPng(only);
    expect((await sharp(png as Buffer).metadata()).width).toBe(16);
    expect(await icnsToPng(Buffer.from('not an icns file'))).toBeNull();
  });

  it('a truncated copy of the fixture', async () => {
    const whole = readFileSync(fixture('macos', GUIAPP));
    const path = join(temp, 'truncated.app.zip');
    writeFileSync(path, whole.subarray(0, Math.floor(whole.length / 2)));
    await expectParseError(macosAppReader.read(path, 'truncated.app.zip'), /^not a zipped macOS \.app: it is not a readable zip archive/);
  });

  it('an .ipa given as a zip gets a hint', async () => {
    await expectParseError(
      macosAppReader.read(fixture('ios', 'demo-1.0-b1-with-appex-plugin.ipa'), 'demo.zip'),
      /^not a zipped macOS \.app: <App>\.app\/Contents\/Info\.plist is missing \(this looks like an iOS \.ipa\)$/,
    );
  });
});

describe('macOS: broken uploads (generated)', () => {
  it('a text file renamed .app.zip', async () => {
    const path = join(temp, 'notes.app.zip');
    writeFileSync(path, 'plain text\n'.repeat(50));
    await expectParseError(macosAppReader.read(path, 'notes.app.zip'), /^not a zipped macOS \.app: it is not a readable zip archive/);
  });

  it('a zip without an .app (only __MACOSX junk looks like one)', async () => {
    const path = writeZip(join(temp, 'no-app.zip'), { 'readme.txt': 'x', '__MACOSX/A.app/Contents/Info.plist': 'junk' });
    await expectParseError(macosAppReader.read(path, 'no-app.zip'), /^not a zipped macOS \.app: <App>\.app\/Contents\/Info\.plist is missing$/);
  });

  it('a garbage Info.plist', async () => {
    const path = writeZip(join(temp, 'garbage.app.zip'), { 'A.app/Contents/Info.plist': Buffer.from('\u0000\u0001garbage<<<') });
    await expectParseError(macosAppReader.read(path, 'garbage.app.zip'), /^not a valid macOS \.app: A\.app\/Contents\/Info\.plist is not a readable property list/);
  });

  it('an Info.plist without CFBundleIdentifier', async () => {
    const path = writeZip(join(temp, 'no-id.app.zip'), { 'A.app/Contents/Info.plist': INFO_PLIST('<key>CFBundleVersion</key><string>1</string>') });
    await expectParseError(macosAppReader.read(path, 'no-id.app.zip'), /A\.app\/Contents\/Info\.plist has no CFBundleIdentifier/);
  });

  it('a minimal app: name from the folder, no icon, no architectures', async () => {
    const path = writeZip(join(temp, 'minimal.app.zip'), {
      'Tiny Tool.app/Contents/Info.plist': INFO_PLIST(
        '<key>CFBundleIdentifier</key><string>com.example.tiny</string><key>CFBundleShortVersionString</key><string>3.1</string><key>CFBundleVersion</key><string>310</string><key>CFBundleIconFile</key><string>Missing</string>',
      ),
    });
    const m = await macosAppReader.read(path, 'minimal.app.zip');
    expect(m).toMatchObject({ bundleId: 'com.example.tiny', releaseVersion: '3.1', buildVersion: '310', displayName: 'Tiny Tool', minOsVersion: null, icon: null, provisioning: null, releaseType: null });
    expect(m.extra['architectures']).toBeUndefined();
  });

  it('mainAppPlist prefers the outermost app', () => {
    expect(
      mainAppPlist([
        'X.app/Contents/Frameworks/Y.framework/Versions/A/Resources/Helper.app/Contents/Info.plist',
        '__MACOSX/X.app/Contents/Info.plist',
        'X.app/Contents/Info.plist',
      ]),
    ).toBe('X.app/Contents/Info.plist');
    expect(mainAppPlist(['a/b.txt'])).toBeNull();
  });
});

describe('dmg', () => {
  it('is refused with advice', async () => {
    const path = join(temp, 'app.dmg');
    writeFileSync(path, Buffer.alloc(1024));
    await expectParseError(dmgReader.read(path, 'app.dmg'), /^disk images \(\.dmg\) cannot be read; upload the zipped \.app instead$/);
    await expectParseError(readBinary(path, 'My App.dmg'), /upload the zipped \.app instead/);
  });
});
