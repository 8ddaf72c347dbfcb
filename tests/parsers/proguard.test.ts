/**
 * The Android mapping-archive reader and the guards every debug-symbol zip passes: the archives of
 * ../shared/fixtures/symbols/android (mapping UUIDs as SOURCES.md gives them, in icyleaf's
 * namespace), a compiled AndroidManifest.xml taken from a fixture .apk, and crafted zips: neither
 * kind, both kinds, a file twice, too many entries, too large inflated, entry names that climb out,
 * damaged data.
 */
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readDebugArchive, type ArchiveLimits, type DebugArchive } from '../../src-server/parsers/debug-archive.ts';
import { mappingUuid } from '../../src-server/parsers/proguard.ts';
import { ParseError } from '../../src-server/parsers/types.ts';
import { withZip } from '../../src-server/parsers/zip.ts';
import { fixture, fixturesMissing } from '../helpers/fixtures.ts';
import { makeZip, writeZip, type ZipEntries } from '../helpers/make-zip.ts';
import { writeStoredZip } from '../helpers/zip-writer.ts';
import { dsymEntries, thinMachO } from '../helpers/symbols.ts';

const temp = mkdtempSync(join(tmpdir(), 'hangar-proguard-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const LIMITS: ArchiveLimits = { maxUncompressedBytes: 64 * 1024 * 1024, maxEntries: 100 };
/** SOURCES.md: UUIDv5 in the namespace uuid5(DNS, "icyleaf.com") */
const FULL_MAPPING_UUID = '81384aeb-4837-5f73-a771-417b4399a483';
const INLINES_MAPPING_UUID = '9bc81f68-d806-545f-ac8d-937d1016d7e6';

let zips = 0;
const zipOf = (entries: ZipEntries) => writeZip(join(temp, `${++zips}.zip`), entries);

async function proguardOf(path: string, limits = LIMITS) {
  const archive: DebugArchive = await readDebugArchive(path, limits);
  if (archive.kind !== 'proguard') throw new Error(`${path} read as ${archive.kind}`);
  return archive;
}

async function refused(path: string, limits = LIMITS): Promise<string> {
  const error = await readDebugArchive(path, limits).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ParseError);
  return (error as Error).message;
}

describe.skipIf(fixturesMissing !== null)('the Android fixtures (SOURCES.md, Debug symbols)', () => {
  it('android-mapping-with-manifest-and-rtxt.zip: the mapping UUID, and package and versions from the plain-text manifest', async () => {
    const archive = await proguardOf(fixture('symbols', 'android', 'android-mapping-with-manifest-and-rtxt.zip'));
    expect(archive).toEqual({
      kind: 'proguard',
      uuid: FULL_MAPPING_UUID,
      packageName: 'com.icyleaf.appinfo',
      versionName: '1.0',
      versionCode: '1',
      files: [
        { name: 'AndroidManifest.xml', size: 1268 },
        { name: 'R.txt', size: 147585 },
        { name: 'mapping.txt', size: 1666940 },
      ],
    });
  });

  it('android-mapping-only.zip: the same mapping.txt, so the same UUID; no manifest, no package', async () => {
    const archive = await proguardOf(fixture('symbols', 'android', 'android-mapping-only.zip'));
    expect(archive).toMatchObject({ uuid: FULL_MAPPING_UUID, packageName: null, versionName: null, versionCode: null, files: [{ name: 'mapping.txt', size: 1666940 }] });
  });

  it('mapping-r8-2.0.74-inlines.txt: the UUID of a raw R8 map, hashed as it streams', async () => {
    expect(await mappingUuid(createReadStream(fixture('symbols', 'android', 'mapping-r8-2.0.74-inlines.txt'), { highWaterMark: 1000 }))).toBe(INLINES_MAPPING_UUID);
  });

  it('a compiled (binary) AndroidManifest.xml, as an .apk holds it', async () => {
    const manifest = await withZip(fixture('android', 'appinfodemo-2.1.0-vc10-r8-v2signed.apk'), 'an .apk', (zip) => zip.read('AndroidManifest.xml'));
    expect(manifest.readUInt16LE(0)).toBe(0x0003); // RES_XML_TYPE
    const archive = await proguardOf(zipOf({ 'outputs/mapping/release/mapping.txt': 'a -> b:\n', 'outputs/AndroidManifest.xml': manifest }));
    expect(archive).toMatchObject({ packageName: 'com.icyleaf.appinfodemo', versionName: '2.1.0', versionCode: '10' });
  });
});

describe('Android archives built here', () => {
  it('takes mapping.txt, R.txt and AndroidManifest.xml at any depth, alone or together', async () => {
    const onlyR = await proguardOf(zipOf({ 'app/build/R.txt': 'int string app_name 0x7f0e001b\n' }));
    expect(onlyR).toEqual({ kind: 'proguard', uuid: null, packageName: null, versionName: null, versionCode: null, files: [{ name: 'app/build/R.txt', size: 31 }] });
    const manifest = '<?xml version="1.0"?>\n<manifest xmlns:android="http://schemas.android.com/apk/res/android" package="dev.hangar.sample" android:versionName="3.2" android:versionCode="32"/>';
    const onlyManifest = await proguardOf(zipOf({ 'AndroidManifest.xml': `\uFEFF${manifest}` }));
    expect(onlyManifest).toMatchObject({ uuid: null, packageName: 'dev.hangar.sample', versionName: '3.2', versionCode: '32' });
  });

  it('the UUID depends on the mapping\'s bytes only: another name of the zip or more files around it do not change it', async () => {
    const a = await proguardOf(zipOf({ 'mapping.txt': 'com.example.A -> a:\n' }));
    const b = await proguardOf(zipOf({ 'release/mapping.txt': 'com.example.A -> a:\n', 'release/R.txt': 'x' }));
    const c = await proguardOf(zipOf({ 'mapping.txt': 'com.example.B -> a:\n' }));
    expect(a.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(b.uuid).toBe(a.uuid);
    expect(c.uuid).not.toBe(a.uuid);
  });

  it('refuses a manifest it cannot read, and two files of one kind', async () => {
    expect(await refused(zipOf({ 'mapping.txt': 'x', 'AndroidManifest.xml': '<manifest package="a"><unclosed>' }))).toMatch(/AndroidManifest\.xml cannot be read/);
    expect(await refused(zipOf({ 'AndroidManifest.xml': '<?xml version="1.0"?><application/>' }))).toMatch(/AndroidManifest\.xml cannot be read: its root element is <application>/);
    expect(await refused(zipOf({ 'debug/mapping.txt': 'x', 'release/mapping.txt': 'y' }))).toMatch(/more than one mapping\.txt \(debug\/mapping\.txt and release\/mapping\.txt\)/);
  });
});

describe('guards of every debug-symbol zip', () => {
  it('refuses a zip that is neither kind, or both', async () => {
    expect(await refused(zipOf({ 'notes.txt': 'hello', 'App.app/Info.plist': 'x' }))).toMatch(/neither a dSYM bundle .* nor Android mapping files/);
    expect(await refused(zipOf({ '__MACOSX/._mapping.txt': 'junk only' }))).toMatch(/neither/);
    const both = { ...dsymEntries([{ path: 'A.app.dSYM', objects: { A: thinMachO({ arch: 'arm64', uuid: '00000000-0000-0000-0000-000000000001' }) } }]), 'mapping.txt': 'x' };
    expect(await refused(zipOf(both))).toMatch(/both dSYM bundles and Android mapping files/);
  });

  it('refuses a file that is no zip, or an empty one', async () => {
    const text = join(temp, 'text.zip');
    await writeStoredZip(text, []); // an empty but valid zip
    expect(await refused(text)).toMatch(/neither/);
    const notZip = join(temp, 'not-a-zip.zip');
    writeFileSync(notZip, 'PK but not really a zip archive');
    expect(await refused(notZip)).toMatch(/not a debug-symbol zip: it is not a readable zip archive/);
  });

  it('refuses more entries than the limit, counting directories and junk too', async () => {
    const entries: ZipEntries = { 'mapping.txt': 'x' };
    for (let i = 0; i < 10; i++) entries[`__MACOSX/._${i}`] = 'junk';
    const path = zipOf(entries);
    expect((await proguardOf(path, { ...LIMITS, maxEntries: 11 })).uuid).not.toBeNull();
    expect(await refused(path, { ...LIMITS, maxEntries: 10 })).toBe('the archive holds 11 entries; this server takes at most 10');
  });

  it('refuses a zip bomb: entries that inflate beyond the limit together, before inflating any', async () => {
    // 64 MiB of zeros deflate to 64 KiB; two of them
    const zeros = Buffer.alloc(64 * 1024 * 1024);
    const bomb = makeZip({ 'mapping.txt': zeros, 'R.txt': zeros });
    expect(bomb.length).toBeLessThan(256 * 1024);
    const path = join(temp, 'bomb.zip');
    writeFileSync(path, bomb);
    expect(await refused(path, { ...LIMITS, maxUncompressedBytes: 100 * 1024 * 1024 })).toBe(
      `the archive inflates to ${128 * 1024 * 1024} bytes; this server takes at most ${100 * 1024 * 1024}`,
    );
    expect((await proguardOf(path, { ...LIMITS, maxUncompressedBytes: 128 * 1024 * 1024 })).files).toHaveLength(2);
  });

  it('refuses an entry that inflates beyond the size its directory entry gives', async () => {
    const zip = makeZip({ 'mapping.txt': Buffer.alloc(100_000, 'a') });
    // the central directory's uncompressed size (offset 24 of its header) now says 10 bytes
    const central = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    zip.writeUInt32LE(10, central + 24);
    zip.writeUInt32LE(10, 22); // and the local header's
    const path = join(temp, 'liar.zip');
    writeFileSync(path, zip);
    expect(await refused(path)).toMatch(/not a readable debug-symbol zip: .*(too many bytes|size)/i);
  });

  it('refuses entry names that are absolute or climb out of the archive', async () => {
    for (const name of ['../../etc/cron.d/mapping.txt', '/etc/mapping.txt', 'a/../../mapping.txt', 'C:\\Windows\\mapping.txt', '..\\mapping.txt']) {
      expect(await refused(zipOf({ [name]: 'x' })), name).toMatch(/not a debug-symbol zip: .*(absolute path|invalid relative path)/);
    }
  });

  it('refuses an entry whose deflated data is damaged', async () => {
    const zip = makeZip({ 'mapping.txt': 'com.example.Something -> a:\n'.repeat(2000) });
    zip.fill(0xff, 60, 120); // inside the deflated data of the only entry
    const path = join(temp, 'damaged.zip');
    writeFileSync(path, zip);
    expect(await refused(path)).toMatch(/^not a readable debug-symbol zip: /);
  });
});
