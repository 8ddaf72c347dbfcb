/**
 * The .aab reader against the real App Bundle in shared/fixtures/android (expected values:
 * SOURCES.md; app-info-parser cannot read it at all), and broken bundles.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aabReader, readAab } from '../../src-server/parsers/aab.ts';
import { parseProtoXml } from '../../src-server/parsers/android-proto.ts';
import { ProtoMessage } from '../../src-server/parsers/protobuf.ts';
import { readBinary, readerFor } from '../../src-server/parsers/index.ts';
import { ParseError } from '../../src-server/parsers/types.ts';
import { fixture, fixturesMissing } from '../helpers/fixtures.ts';
import { writeStoredZip } from '../helpers/zip-writer.ts';
import { entriesOf, expectPng, makeTempDir, parseErrorOf } from './android-helpers.ts';

const AAB = 'appinfodemo-2.1.0-vc10.aab';

describe.skipIf(fixturesMissing !== null)('aab reader: fixture', () => {
  it('is the reader for .aab names', () => {
    expect(readerFor('release.AAB')).toBe(aabReader);
    expect(aabReader.format).toBe('aab');
    expect(aabReader.extensions).toEqual(['.aab']);
  });

  it(`reads ${AAB}`, async () => {
    const meta = await aabReader.read(fixture('android', AAB), AAB);
    expect(meta.format).toBe('aab');
    expect(meta.platform).toBe('android');
    expect(meta.bundleId).toBe('com.icyleaf.appinfodemo');
    expect(meta.releaseVersion).toBe('2.1.0');
    expect(meta.buildVersion).toBe('10');
    // android:label="@string/app_name", resolved through base/resources.pb
    expect(meta.displayName).toBe('AppInfoDemo');
    expect(meta.minOsVersion).toBe('14');
    expect(meta.deviceFamily).toEqual([]);
    expect(meta.releaseType).toBeNull();
    expect(meta.provisioning).toBeNull();
    expect(meta.extra.targetSdkVersion).toBe('31');
    expect(meta.extra.compileSdkVersion).toBe('31');
    expect(meta.extra.permissions).toEqual(['android.permission.ACCESS_NETWORK_STATE']);
    expect(meta.extra.debuggable).toBe(false);
    expect(meta.extra.localizedLabels).toEqual({ 'zh-CN': 'AppInfo演示' });

    // @mipmap/ic_launcher: the xxxhdpi WebP of mdpi..xxxhdpi (not the anydpi-v26 adaptive XML), as PNG
    const icon = await expectPng(meta.icon);
    expect(icon.width).toBe(192);
    expect(icon.height).toBe(192);
    expect(icon.stdev).toBeGreaterThan(0);
  });

  it('draws the adaptive icon (mipmap-anydpi-v26) when asked to, from its vector layers and gradient', async () => {
    const meta = await readAab(fixture('android', AAB), { preferDrawn: true });
    const icon = await expectPng(meta.icon);
    expect(icon.width).toBe(288);
    expect(icon.height).toBe(288);
    expect(icon.corner[3]).toBe(255);
    expect(icon.corner[1]!).toBeGreaterThan(icon.corner[0]! + 60);
    expect(icon.center.slice(0, 3).every((c) => c > 200)).toBe(true);
  });

  it('reads the same manifest as the .apk built from the same project', async () => {
    const [bundle, apk] = await Promise.all([
      readAab(fixture('android', AAB)),
      readBinary(fixture('android', 'appinfodemo-2.1.0-vc10-r8-v2signed.apk'), 'app.apk'),
    ]);
    for (const key of ['bundleId', 'releaseVersion', 'buildVersion', 'displayName', 'minOsVersion'] as const) {
      expect(bundle[key]).toBe(apk[key]);
    }
    expect(bundle.extra.targetSdkVersion).toBe(apk.extra.targetSdkVersion);
    expect(bundle.extra.permissions).toEqual(apk.extra.permissions);
  });
});

describe('protobuf reading', () => {
  it('decodes varints, negative int32s, strings, nested and repeated messages', () => {
    // field 1: varint 300; field 2: int32 -2 (ten-byte varint); field 3: "hi"; field 4: { 1: 7 } twice; field 5: float 1.5
    const bytes = Buffer.from([
      0x08, 0xac, 0x02, 0x10, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x1a, 0x02, 0x68, 0x69, 0x22, 0x02, 0x08, 0x07, 0x22,
      0x02, 0x08, 0x07, 0x2d, 0x00, 0x00, 0xc0, 0x3f,
    ]);
    const m = ProtoMessage.decode(bytes);
    expect(m.uint(1)).toBe(300);
    expect(m.int32(2)).toBe(-2);
    expect(m.string(3)).toBe('hi');
    expect([...m.messages(4)].map((n) => n.uint(1))).toEqual([7, 7]);
    expect(m.float(5)).toBe(1.5);
    expect(m.uint(9, 42)).toBe(42);
  });

  it('refuses truncated and malformed input instead of reading past it', () => {
    expect(() => ProtoMessage.decode(Buffer.from([0x1a, 0x05, 0x68]))).toThrow(/past the end/);
    expect(() => ProtoMessage.decode(Buffer.from([0x08]))).toThrow(/truncated varint/);
    expect(() => ProtoMessage.decode(Buffer.from([0x0b]))).toThrow(/wire type 3/);
    expect(() => parseProtoXml(Buffer.from([0x12, 0x01, 0x41]))).toThrow(/no element/);
  });
});

describe.skipIf(fixturesMissing !== null)('aab reader: broken files', () => {
  let dir = '';
  let cleanup: () => Promise<void> = async () => {};

  beforeAll(async () => {
    ({ dir, cleanup } = await makeTempDir());
  });
  afterAll(() => cleanup());

  it('refuses a truncated copy', async () => {
    const bytes = await readFile(fixture('android', AAB));
    const path = join(dir, 'truncated.aab');
    await writeFile(path, bytes.subarray(0, Math.floor(bytes.length / 2)));
    expect(await parseErrorOf(() => aabReader.read(path, 'truncated.aab'))).toMatch(/^not an \.aab: it is not a readable zip archive/);
  });

  it('refuses a text file named .aab', async () => {
    const path = join(dir, 'notes.aab');
    await writeFile(path, 'not a bundle\n'.repeat(50));
    expect(await parseErrorOf(() => aabReader.read(path, 'notes.aab'))).toMatch(/^not an \.aab: it is not a readable zip archive/);
    await expect(readBinary(path, 'notes.aab')).rejects.toBeInstanceOf(ParseError);
  });

  it('refuses a zip without base/manifest/AndroidManifest.xml', async () => {
    const path = join(dir, 'no-manifest.aab');
    await writeStoredZip(path, [{ name: 'BundleConfig.pb', data: Buffer.from([0x0a, 0x00]) }]);
    expect(await parseErrorOf(() => aabReader.read(path, 'no-manifest.aab'))).toBe('not an .aab: base/manifest/AndroidManifest.xml is missing');
  });

  it('says so when an .apk was uploaded as .aab', async () => {
    const path = join(dir, 'really-an-apk.aab');
    const entries = await entriesOf(fixture('android', 'contactmanager-1.0-vc1-minsdk5-v1signed.apk'));
    await writeStoredZip(path, entries);
    expect(await parseErrorOf(() => aabReader.read(path, 'really-an-apk.aab'))).toBe(
      'not an .aab: base/manifest/AndroidManifest.xml is missing (this is an .apk: upload it as .apk)',
    );
  });

  it('refuses a manifest of garbage bytes', async () => {
    const path = join(dir, 'garbage.aab');
    await writeStoredZip(path, [{ name: 'base/manifest/AndroidManifest.xml', data: Buffer.from('this is not a protocol buffer at all') }]);
    expect(await parseErrorOf(() => aabReader.read(path, 'garbage.aab'))).toMatch(
      /^not an \.aab: base\/manifest\/AndroidManifest\.xml cannot be decoded \(unsupported wire type/,
    );
  });

  it('refuses a binary-XML (apk) manifest in the protobuf slot', async () => {
    const entries = await entriesOf(fixture('android', 'contactmanager-1.0-vc1-minsdk5-v1signed.apk'));
    const manifest = entries.find((e) => e.name === 'AndroidManifest.xml')!;
    const path = join(dir, 'binary-manifest.aab');
    await writeStoredZip(path, [{ name: 'base/manifest/AndroidManifest.xml', data: manifest.data! }]);
    expect(await parseErrorOf(() => aabReader.read(path, 'binary-manifest.aab'))).toMatch(/^not an \.aab: base\/manifest\/AndroidManifest\.xml cannot be decoded \(/);
  });

  it('still reads a bundle whose resources.pb is missing (label falls back to the package)', async () => {
    const entries = await entriesOf(fixture('android', AAB));
    const path = join(dir, 'no-resources.aab');
    await writeStoredZip(
      path,
      entries.filter((e) => e.name !== 'base/resources.pb'),
    );
    const meta = await aabReader.read(path, 'no-resources.aab');
    expect(meta.bundleId).toBe('com.icyleaf.appinfodemo');
    expect(meta.displayName).toBe('com.icyleaf.appinfodemo');
    expect(meta.buildVersion).toBe('10');
    expect(meta.icon).toBeNull();
  });
});
