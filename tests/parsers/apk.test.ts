/**
 * The .apk reader against the real APKs in shared/fixtures/android (expected values: SOURCES.md),
 * broken files, and a 200 MB APK that must be read without loading it whole.
 */
import { copyFile, readFile, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apkReader, readApk } from '../../src-server/parsers/apk.ts';
import { readBinary, readerFor } from '../../src-server/parsers/index.ts';
import { ParseError } from '../../src-server/parsers/types.ts';
import { fixture, fixturesMissing } from '../helpers/fixtures.ts';
import { writeStoredZip } from '../helpers/zip-writer.ts';
import { entriesOf, expectPng, makeTempDir, parseErrorOf } from './android-helpers.ts';

interface Expected {
  file: string;
  package: string;
  versionName: string;
  versionCode: string;
  label: string;
  minSdk: string;
  targetSdk: string;
  compileSdk: string | undefined;
  permissions: string[];
  debuggable: boolean;
  /** the largest raster icon's side, in pixels */
  iconSide: number;
}

const APKS: Expected[] = [
  {
    file: 'contactmanager-1.0-vc1-minsdk5-v1signed.apk',
    package: 'com.example.android.contactmanager',
    versionName: '1.0',
    versionCode: '1',
    label: 'Contact Manager',
    minSdk: '5',
    targetSdk: '5',
    compileSdk: undefined,
    permissions: ['android.permission.GET_ACCOUNTS', 'android.permission.READ_CONTACTS', 'android.permission.WRITE_CONTACTS'],
    debuggable: true,
    iconSide: 72, // res/drawable-hdpi/icon.png, of ldpi/mdpi/hdpi
  },
  {
    file: 'helloapp-1.0-vc1-debug-unaligned.apk',
    package: 'com.example.hello.helloapp.app',
    versionName: '1.0',
    versionCode: '1',
    label: 'HelloApp',
    minSdk: '7',
    targetSdk: '19',
    compileSdk: undefined,
    permissions: [],
    debuggable: true,
    iconSide: 144, // res/drawable-xxhdpi/ic_launcher.png
  },
  {
    file: 'appinfodemo-2.1.0-vc10-r8-v2signed.apk',
    package: 'com.icyleaf.appinfodemo',
    versionName: '2.1.0',
    versionCode: '10',
    label: 'AppInfoDemo',
    minSdk: '14',
    targetSdk: '31',
    compileSdk: '31',
    permissions: ['android.permission.ACCESS_NETWORK_STATE'],
    debuggable: false,
    iconSide: 192, // the xxxhdpi WebP (res/xC.webp), converted to PNG
  },
];

describe.skipIf(fixturesMissing !== null)('apk reader: fixtures', () => {
  it('is the reader for .apk names', () => {
    expect(readerFor('Some App.APK')).toBe(apkReader);
    expect(apkReader.format).toBe('apk');
    expect(apkReader.extensions).toEqual(['.apk']);
  });

  for (const expected of APKS) {
    it(`reads ${expected.file}`, async () => {
      const meta = await apkReader.read(fixture('android', expected.file), expected.file);
      expect(meta.format).toBe('apk');
      expect(meta.platform).toBe('android');
      expect(meta.bundleId).toBe(expected.package);
      expect(meta.releaseVersion).toBe(expected.versionName);
      expect(meta.buildVersion).toBe(expected.versionCode);
      expect(meta.displayName).toBe(expected.label);
      expect(meta.displayName).not.toContain('\u0000');
      expect(meta.minOsVersion).toBe(expected.minSdk);
      expect(meta.deviceFamily).toEqual([]);
      expect(meta.releaseType).toBeNull();
      expect(meta.provisioning).toBeNull();
      expect(meta.extra.targetSdkVersion).toBe(expected.targetSdk);
      expect(meta.extra.compileSdkVersion).toBe(expected.compileSdk);
      expect(meta.extra.permissions).toEqual(expected.permissions);
      expect(meta.extra.debuggable).toBe(expected.debuggable);
      // none of these APKs has another locale's label (the zh-CN one exists only in the .aab)
      expect(meta.extra.localizedLabels).toBeUndefined();
      expect(JSON.stringify(meta.extra)).not.toContain('\\u0000');

      const icon = await expectPng(meta.icon);
      expect(icon.width).toBe(expected.iconSide);
      expect(icon.height).toBe(expected.iconSide);
      expect(icon.stdev).toBeGreaterThan(0);
    });
  }

  it('agrees with app-info-parser on the manifest fields it reads correctly', async () => {
    // app-info-parser 1.1.6's own binary XML parser, as an independent decoder of the same bytes
    const require = createRequire(import.meta.url);
    type Parsed = { package: string; versionName: string; versionCode: number; usesSdk: Record<string, number>; usesPermissions: { name: string }[] };
    const ManifestParser = require('app-info-parser/src/xml-parser/manifest.js') as new (buffer: Buffer) => { parse(): Parsed };
    const { ZipArchive } = await import('../../src-server/parsers/zip.ts');
    for (const expected of APKS) {
      const zip = await ZipArchive.open(fixture('android', expected.file), 'an .apk');
      const theirs = new ManifestParser(await zip.read('AndroidManifest.xml')).parse();
      zip.close();
      const ours = await readApk(fixture('android', expected.file));
      expect(ours.bundleId).toBe(theirs.package);
      expect(ours.releaseVersion).toBe(theirs.versionName);
      expect(ours.buildVersion).toBe(String(theirs.versionCode));
      expect(ours.minOsVersion).toBe(String(theirs.usesSdk.minSdkVersion));
      expect(ours.extra.targetSdkVersion).toBe(String(theirs.usesSdk.targetSdkVersion));
      expect(ours.extra.permissions).toEqual(theirs.usesPermissions.map((p) => p.name));
    }
  });

  it('draws the adaptive icon (res/uF.xml) when asked to, from its vector layers', async () => {
    const meta = await readApk(fixture('android', 'appinfodemo-2.1.0-vc10-r8-v2signed.apk'), { preferDrawn: true });
    const icon = await expectPng(meta.icon);
    // the visible 72dp of the 108dp layers, drawn at 4x
    expect(icon.width).toBe(288);
    expect(icon.height).toBe(288);
    // an opaque green background (the template's #3DDC84), a white robot head in the middle
    expect(icon.corner[3]).toBe(255);
    expect(icon.corner[1]!).toBeGreaterThan(icon.corner[0]! + 60);
    expect(icon.center.slice(0, 3).every((c) => c > 200)).toBe(true);
  });

  it('does not need the temporary file to end in .apk', async () => {
    const { dir, cleanup } = await makeTempDir();
    try {
      const upload = join(dir, 'upload-1f3a9c');
      await copyFile(fixture('android', 'helloapp-1.0-vc1-debug-unaligned.apk'), upload);
      const meta = await readBinary(upload, 'HelloApp.apk');
      expect(meta.bundleId).toBe('com.example.hello.helloapp.app');
      expect(meta.displayName).toBe('HelloApp');
    } finally {
      await cleanup();
    }
  });
});

describe.skipIf(fixturesMissing !== null)('apk reader: broken files', () => {
  let dir = '';
  let cleanup: () => Promise<void> = async () => {};
  const source = () => fixture('android', 'contactmanager-1.0-vc1-minsdk5-v1signed.apk');

  beforeAll(async () => {
    ({ dir, cleanup } = await makeTempDir());
  });
  afterAll(() => cleanup());

  it('refuses a truncated copy', async () => {
    const bytes = await readFile(source());
    const path = join(dir, 'truncated.apk');
    await writeFile(path, bytes.subarray(0, Math.floor(bytes.length / 2)));
    expect(await parseErrorOf(() => apkReader.read(path, 'truncated.apk'))).toMatch(/^not an \.apk: it is not a readable zip archive/);
  });

  it('refuses a text file named .apk', async () => {
    const path = join(dir, 'notes.apk');
    await writeFile(path, 'These are my release notes, not an app.\n'.repeat(20));
    expect(await parseErrorOf(() => apkReader.read(path, 'notes.apk'))).toMatch(/^not an \.apk: it is not a readable zip archive/);
    // through the dispatcher too
    await expect(readBinary(path, 'notes.apk')).rejects.toBeInstanceOf(ParseError);
  });

  it('refuses a zip without AndroidManifest.xml', async () => {
    const path = join(dir, 'no-manifest.apk');
    await writeStoredZip(path, [
      { name: 'classes.dex', data: Buffer.from('dex\n035\0') },
      { name: 'res/drawable/icon.png', data: Buffer.alloc(16) },
    ]);
    expect(await parseErrorOf(() => apkReader.read(path, 'no-manifest.apk'))).toBe('not an .apk: AndroidManifest.xml is missing');
  });

  it('says so when an App Bundle was uploaded as .apk', async () => {
    const path = join(dir, 'bundle.apk');
    await writeStoredZip(path, [{ name: 'base/manifest/AndroidManifest.xml', data: Buffer.from([0x0a, 0x00]) }]);
    expect(await parseErrorOf(() => apkReader.read(path, 'bundle.apk'))).toBe(
      'not an .apk: AndroidManifest.xml is missing (this is an Android App Bundle: upload it as .aab)',
    );
  });

  it('refuses a manifest of garbage bytes', async () => {
    const path = join(dir, 'garbage.apk');
    const garbage = Buffer.alloc(2048);
    for (let i = 0; i < garbage.length; i++) garbage[i] = (i * 151 + 89) & 0xff;
    await writeStoredZip(path, [{ name: 'AndroidManifest.xml', data: garbage }]);
    expect(await parseErrorOf(() => apkReader.read(path, 'garbage.apk'))).toMatch(/^not an \.apk: AndroidManifest\.xml cannot be decoded \(not compiled XML/);
  });

  it('refuses a manifest cut short', async () => {
    const entries = await entriesOf(source());
    const manifest = entries.find((e) => e.name === 'AndroidManifest.xml')!;
    const path = join(dir, 'short-manifest.apk');
    await writeStoredZip(path, [{ name: 'AndroidManifest.xml', data: manifest.data!.subarray(0, 600) }]);
    expect(await parseErrorOf(() => apkReader.read(path, 'short-manifest.apk'))).toMatch(/^not an \.apk: AndroidManifest\.xml cannot be decoded \(/);
  });

  it('refuses compiled XML that is not a manifest', async () => {
    const entries = await entriesOf(source());
    const layout = entries.find((e) => e.name === 'res/layout/contact_entry.xml')!;
    const path = join(dir, 'layout-manifest.apk');
    await writeStoredZip(path, [{ name: 'AndroidManifest.xml', data: layout.data! }]);
    expect(await parseErrorOf(() => apkReader.read(path, 'layout-manifest.apk'))).toMatch(
      /^not an \.apk: AndroidManifest\.xml is not a usable manifest: its root element is <\w+>, not <manifest>$/,
    );
  });

  it('still reads an APK whose resources.arsc is missing or damaged (label falls back to the package)', async () => {
    const entries = await entriesOf(source());
    for (const [name, table] of [
      ['no-arsc.apk', null],
      ['bad-arsc.apk', Buffer.from('not a resource table')],
    ] as const) {
      const path = join(dir, name);
      const kept = entries.filter((e) => e.name !== 'resources.arsc');
      await writeStoredZip(path, table ? [...kept, { name: 'resources.arsc', data: table }] : kept);
      const meta = await apkReader.read(path, name);
      expect(meta.bundleId).toBe('com.example.android.contactmanager');
      expect(meta.displayName).toBe('com.example.android.contactmanager');
      expect(meta.releaseVersion).toBe('1.0');
      expect(meta.icon).toBeNull();
    }
  });
});

describe.skipIf(fixturesMissing !== null)('apk reader: damaged manifests and tables', () => {
  it('either reads a mutated APK or refuses it with a ParseError, never anything else', { timeout: 120_000 }, async () => {
    const { dir, cleanup } = await makeTempDir();
    try {
      const entries = await entriesOf(fixture('android', 'contactmanager-1.0-vc1-minsdk5-v1signed.apk'));
      let seed = 0x2545f491;
      const random = () => {
        seed ^= seed << 13;
        seed ^= seed >>> 17;
        seed ^= seed << 5;
        return (seed >>> 0) / 0x100000000;
      };
      let refused = 0;
      let read = 0;
      for (let round = 0; round < 120; round++) {
        const target = round % 2 === 0 ? 'AndroidManifest.xml' : 'resources.arsc';
        const mutated = entries.map((e) => {
          if (e.name !== target) return e;
          const data = Buffer.from(e.data!);
          for (let i = 0; i < 1 + Math.floor(random() * 8); i++) data[Math.floor(random() * data.length)] = Math.floor(random() * 256);
          return { name: e.name, data };
        });
        const path = join(dir, `mutant-${round}.apk`);
        await writeStoredZip(path, mutated);
        try {
          const meta = await apkReader.read(path, 'mutant.apk');
          expect(typeof meta.bundleId).toBe('string');
          expect(meta.displayName).not.toContain('\u0000');
          read++;
        } catch (error) {
          expect(error).toBeInstanceOf(ParseError);
          expect((error as ParseError).message).toMatch(/^not an \.apk: AndroidManifest\.xml /);
          refused++;
        }
      }
      expect(read + refused).toBe(120);
      // a damaged resources.arsc never refuses the upload: only the manifest can
      expect(refused).toBeGreaterThan(0);
      expect(read).toBeGreaterThanOrEqual(60);
    } finally {
      await cleanup();
    }
  });
});

describe.skipIf(fixturesMissing !== null)('apk reader: memory', () => {
  it('reads a 200 MB APK without loading it whole', { timeout: 120_000 }, async () => {
    const { dir, cleanup } = await makeTempDir();
    try {
      const path = join(dir, 'large.apk');
      const entries = await entriesOf(fixture('android', 'appinfodemo-2.1.0-vc10-r8-v2signed.apk'));
      // the junk comes first, so the manifest and resources lie past it
      await writeStoredZip(path, [{ name: 'assets/junk.bin', junkSize: 200 * 1024 * 1024 }, ...entries]);
      const size = (await stat(path)).size;
      expect(size).toBeGreaterThan(200 * 1024 * 1024);

      // warm up sharp and the parsers, so the measurement is of reading this file
      await readApk(fixture('android', 'appinfodemo-2.1.0-vc10-r8-v2signed.apk'));
      const baseline = process.memoryUsage().rss;
      let peak = baseline;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 2);
      let meta;
      try {
        meta = await apkReader.read(path, 'large.apk');
      } finally {
        clearInterval(sampler);
      }
      peak = Math.max(peak, process.memoryUsage().rss);

      expect(meta.bundleId).toBe('com.icyleaf.appinfodemo');
      expect(meta.displayName).toBe('AppInfoDemo');
      await expectPng(meta.icon);
      // a whole-file read would add the file's size; reading entries adds a few megabytes
      console.log(`large.apk: ${size} bytes, RSS grew by ${peak - baseline} bytes`);
      expect(peak - baseline).toBeLessThan(size / 5);
    } finally {
      await cleanup();
    }
  });
});
