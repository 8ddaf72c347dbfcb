/**
 * The dSYM reader: the Apple archives of ../shared/fixtures/symbols (UUIDs, architectures, names and
 * bundle ids as SOURCES.md gives them), Mach-O files built here (thin and fat, 32- and 64-bit, both
 * byte orders, damaged), the choice of the main bundle, and how little of a large DWARF file it reads.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readDebugArchive, type DebugArchive } from '../../src-server/parsers/debug-archive.ts';
import { mainBundle, type DsymBundle } from '../../src-server/parsers/dsym.ts';
import { readMachOSlices } from '../../src-server/parsers/macho.ts';
import { ParseError } from '../../src-server/parsers/types.ts';
import { fixture, fixturesMissing } from '../helpers/fixtures.ts';
import { writeZip } from '../helpers/make-zip.ts';
import { dsymEntries, fatMachO, thinMachO } from '../helpers/symbols.ts';

const temp = mkdtempSync(join(tmpdir(), 'hangar-dsym-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const LIMITS = { maxUncompressedBytes: 1024 * 1024 * 1024, maxEntries: 1000 };
const UUID_A = '0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9';
const UUID_B = 'F1E2D3C4-B5A6-9788-6950-413223140506';

let zips = 0;
/** Reads a zip of these entries as a debug archive. */
function readEntries(entries: Parameters<typeof writeZip>[1]): Promise<DebugArchive> {
  return readDebugArchive(writeZip(join(temp, `${++zips}.zip`), entries), LIMITS);
}

async function bundlesOf(path: string): Promise<DsymBundle[]> {
  const archive = await readDebugArchive(path, LIMITS);
  if (archive.kind !== 'dsym') throw new Error(`${path} read as ${archive.kind}`);
  return archive.bundles;
}

/** bundle path, bundle id, versions, and per object its slices as "arch UUID size" */
function summary(bundles: DsymBundle[]) {
  return bundles.map((b) => ({
    path: b.path,
    bundleId: b.bundleId,
    versions: `${b.releaseVersion}/${b.buildVersion}`,
    objects: b.objects.map((o) => ({ name: o.name, slices: o.slices.map((s) => `${s.arch} ${s.uuid}`) })),
  }));
}

async function parseError(promise: Promise<unknown>): Promise<ParseError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ParseError);
  return error as ParseError;
}

/** A stream of `data` in 64 KiB chunks that counts how many bytes were taken from it. */
function countingStream(data: { length: number; at(offset: number, length: number): Buffer }) {
  const counter = { pulled: 0 };
  async function* chunks() {
    for (let offset = 0; offset < data.length; offset += 65536) {
      const chunk = data.at(offset, Math.min(65536, data.length - offset));
      counter.pulled += chunk.length;
      yield chunk;
    }
  }
  return { stream: chunks(), counter };
}

describe.skipIf(fixturesMissing !== null)('the Apple fixtures (SOURCES.md, Debug symbols)', () => {
  it('dsym-ios-single-arm64.zip: the upper-case ios.DSYM bundle, one arm64 slice', async () => {
    const bundles = await bundlesOf(fixture('symbols', 'apple', 'dsym-ios-single-arm64.zip'));
    expect(summary(bundles)).toEqual([
      { path: 'ios.DSYM', bundleId: 'com.icyleaf.iOS', versions: '1.0/1', objects: [{ name: 'iOS', slices: ['arm64 EA9BBF2D-BFDD-3CE0-85B2-1CBE7152FCA5'] }] },
    ]);
    expect(bundles[0]!.objects[0]!.slices[0]!.size).toBe(866911); // the whole DWARF file
  });

  it('dsym-ios-single-fat-armv7-arm64.zip: one fat binary, two slices in the file\'s order with their sizes', async () => {
    const bundles = await bundlesOf(fixture('symbols', 'apple', 'dsym-ios-single-fat-armv7-arm64.zip'));
    expect(summary(bundles)).toEqual([
      {
        path: 'iOS.app.dSYM',
        bundleId: 'com.icyleaf.iOS',
        versions: '1.0/2',
        objects: [{ name: 'iOS', slices: ['armv7 26DFC15D-BDCE-351F-B5DE-6EE9F5DD6D85', 'arm64 17F58291-DD25-3FC8-9417-CCBE8163D33E'] }],
      },
    ]);
    // the fat header's sizes: 0xd38de and 0xd3a5f
    expect(bundles[0]!.objects[0]!.slices.map((s) => s.size)).toEqual([866526, 866911]);
  });

  it('dsym-ios-two-bundles-at-root-with-macosx-junk.zip: two bundles, the __MACOSX AppleDouble files ignored', async () => {
    const bundles = await bundlesOf(fixture('symbols', 'apple', 'dsym-ios-two-bundles-at-root-with-macosx-junk.zip'));
    expect(summary(bundles)).toEqual([
      { path: 'AppInfo.app.dSYM', bundleId: 'im.ews.ios.AppInfo', versions: '1.0/1', objects: [{ name: 'AppInfo', slices: ['arm64 52E65DBE-8234-3387-B733-C5044E26653F'] }] },
      {
        path: 'AppInfoNotificationCenter.appex.dSYM',
        bundleId: 'im.ews.ios.AppInfo.AppInfoNotificationCenter',
        versions: '1.0/1',
        objects: [{ name: 'AppInfoNotificationCenter', slices: ['arm64 628E9796-746C-3FEC-91E7-586B4BED352A'] }],
      },
    ]);
    expect(mainBundle(bundles, null)!.path).toBe('AppInfo.app.dSYM');
    expect(mainBundle(bundles, 'im.ews.ios.AppInfo.AppInfoNotificationCenter')!.path).toBe('AppInfoNotificationCenter.appex.dSYM');
    expect(mainBundle(bundles, 'com.example.other')).toBeNull();
  });

  it('dsym-macos-Example.framework-fat-x86_64-arm64.zip: a macOS framework, fat x86_64 + arm64', async () => {
    const bundles = await bundlesOf(fixture('symbols', 'apple', 'dsym-macos-Example.framework-fat-x86_64-arm64.zip'));
    expect(summary(bundles)).toEqual([
      {
        path: 'Example.framework.dSYM',
        bundleId: 'com.example.Example',
        versions: '1.0/1',
        objects: [{ name: 'Example', slices: ['x86_64 3B4566E4-491B-3DCF-94F5-AE51F624DD87', 'arm64 2556F151-5A40-3847-BE6C-E2C1B5BE4DF8'] }],
      },
    ]);
    // no .app.dSYM in the zip: the first bundle is the main one
    expect(mainBundle(bundles, null)!.path).toBe('Example.framework.dSYM');
  });
});

describe('Mach-O headers built here', () => {
  const slicesOf = (data: Buffer) => readMachOSlices(countingStream({ length: data.length, at: (o, l) => data.subarray(o, o + l) }).stream, data.length, 'DWARF/App');

  it('reads thin 64-bit and 32-bit files, little- and big-endian', async () => {
    expect(await slicesOf(thinMachO({ arch: 'arm64', uuid: UUID_A }))).toEqual([{ arch: 'arm64', uuid: UUID_A, size: 32 + 48 + 64 }]);
    expect(await slicesOf(thinMachO({ arch: 'i386', uuid: UUID_B, padding: 10 }))).toEqual([{ arch: 'i386', uuid: UUID_B, size: 28 + 48 + 10 }]);
    expect((await slicesOf(thinMachO({ arch: 'ppc', uuid: UUID_A, bigEndian: true })))[0]).toMatchObject({ arch: 'ppc', uuid: UUID_A });
  });

  it('reads fat files with 32- and 64-bit slice tables, in the table\'s order', async () => {
    for (const wide of [false, true]) {
      const fat = fatMachO([thinMachO({ arch: 'armv7', uuid: UUID_A, padding: 5000 }), thinMachO({ arch: 'arm64', uuid: UUID_B, padding: 100 })], { wide });
      expect(await slicesOf(fat), wide ? 'fat64' : 'fat').toEqual([
        { arch: 'armv7', uuid: UUID_A, size: 28 + 48 + 5000 },
        { arch: 'arm64', uuid: UUID_B, size: 32 + 48 + 100 },
      ]);
    }
  });

  it('refuses what is not a usable Mach-O file, saying which file and why', async () => {
    const cases: [Buffer, RegExp][] = [
      [Buffer.from('just some DWARF-less text, long enough to hold a header'), /DWARF\/App: it is not a Mach-O file/],
      [thinMachO({ arch: 'arm64', uuid: null }), /DWARF\/App: the arm64 slice has no LC_UUID/],
      [thinMachO({ arch: 'arm64', uuid: UUID_A }).subarray(0, 50), /DWARF\/App: the file ends inside the arm64 load commands/],
      [Buffer.from([0xca, 0xfe, 0xba, 0xbe, 0x00, 0x00, 0x00, 0x34, 0, 0, 0, 0]), /not a Mach-O file/], // a Java class file
    ];
    for (const [data, message] of cases) expect((await parseError(slicesOf(data))).message).toMatch(message);
    // a slice table pointing past the end of the file
    const fat = fatMachO([thinMachO({ arch: 'arm64', uuid: UUID_A })]);
    fat.writeUInt32BE(1 << 20, 16);
    expect((await parseError(slicesOf(fat))).message).toMatch(/slice 1 lies outside the file/);
    // load commands that claim more than they hold
    const damaged = thinMachO({ arch: 'arm64', uuid: UUID_A });
    damaged.writeUInt32LE(4000, 32 + 4);
    expect((await parseError(slicesOf(damaged))).message).toMatch(/load commands are damaged/);
  });

  it('reads only the headers of a large file: a 512 MiB DWARF file is not inflated past its load commands', async () => {
    const header = thinMachO({ arch: 'arm64', uuid: UUID_A, padding: 0 });
    const size = 512 * 1024 * 1024;
    const zeros = Buffer.alloc(65536);
    const { stream, counter } = countingStream({ length: size, at: (o, l) => (o === 0 ? Buffer.concat([header, zeros]).subarray(0, l) : zeros.subarray(0, l)) });
    expect(await readMachOSlices(stream, size, 'DWARF/Big')).toEqual([{ arch: 'arm64', uuid: UUID_A, size }]);
    expect(counter.pulled).toBe(65536); // the first chunk, nothing more
  });

  it('of a fat file, skips to each slice and stops after the last one\'s load commands', async () => {
    const armv7 = thinMachO({ arch: 'armv7', uuid: UUID_A, padding: 300_000 });
    const arm64 = thinMachO({ arch: 'arm64', uuid: UUID_B, padding: 0 });
    const fat = fatMachO([armv7, arm64]);
    const tail = 256 * 1024 * 1024; // DWARF data of the last slice, never reached
    const total = fat.length + tail;
    const { stream, counter } = countingStream({ length: total, at: (o, l) => (o < fat.length ? fat.subarray(o, o + l) : Buffer.alloc(l)) });
    const slices = await readMachOSlices(stream, total, 'DWARF/Fat');
    expect(slices.map((s) => `${s.arch} ${s.uuid}`)).toEqual([`armv7 ${UUID_A}`, `arm64 ${UUID_B}`]);
    expect(counter.pulled).toBeLessThan(fat.length + 65536);
  });
});

describe('dSYM archives built here', () => {
  const app = (uuid: string, extra: Partial<Parameters<typeof dsymEntries>[0][number]> = {}) => ({
    path: 'App.app.dSYM',
    bundleId: 'com.example.app',
    releaseVersion: '2.4.1',
    buildVersion: '241',
    objects: { App: thinMachO({ arch: 'arm64', uuid }) },
    ...extra,
  });

  it('finds bundles at any depth, with several binaries, and with or without Info.plist', async () => {
    const archive = await readEntries({
      ...dsymEntries([
        app(UUID_A, { path: 'build/Release-iphoneos/App.app.dSYM' }),
        { path: 'dSYMs/Kit.framework.dSYM', objects: { Kit: fatMachO([thinMachO({ arch: 'armv7', uuid: UUID_B }), thinMachO({ arch: 'arm64', uuid: UUID_A.replace('0A', 'AA') })]) } },
      ]),
      'build/Release-iphoneos/._App.app.dSYM': 'AppleDouble junk',
      'README.txt': 'not part of any bundle',
    });
    expect(archive.kind).toBe('dsym');
    if (archive.kind !== 'dsym') return;
    expect(summary(archive.bundles)).toEqual([
      { path: 'build/Release-iphoneos/App.app.dSYM', bundleId: 'com.example.app', versions: '2.4.1/241', objects: [{ name: 'App', slices: [`arm64 ${UUID_A}`] }] },
      { path: 'dSYMs/Kit.framework.dSYM', bundleId: null, versions: 'null/null', objects: [{ name: 'Kit', slices: [`armv7 ${UUID_B}`, `arm64 ${UUID_A.replace('0A', 'AA')}`] }] },
    ]);
  });

  it('a DWARF file that is not Mach-O, or a damaged Info.plist, makes the archive unreadable (ParseError)', async () => {
    const notMachO = await parseError(readEntries(dsymEntries([app(UUID_A, { objects: { App: Buffer.from('this is no Mach-O file at all, only text') } })])));
    expect(notMachO.message).toMatch(/App\.app\.dSYM\/Contents\/Resources\/DWARF\/App: it is not a Mach-O file/);
    const badPlist = await parseError(readEntries({ ...dsymEntries([app(UUID_A)]), 'App.app.dSYM/Contents/Info.plist': '<plist><dict><key>x' }));
    expect(badPlist.message).toMatch(/App\.app\.dSYM: .*Info\.plist/);
  });
});
