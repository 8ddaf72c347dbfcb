// HarmonyOS .hap and .app readers, against the icyleaf fixtures (SOURCES.md, HarmonyOS section) and
// hand-made broken zips.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { hapReader, harmonyAppReader } from '../../src-server/parsers/harmony.ts';
import { readBinary } from '../../src-server/parsers/index.ts';
import { ParseError } from '../../src-server/parsers/types.ts';
import { zipArchive } from '../helpers/builders.ts';
import { fixture, fixturesMissing } from '../helpers/fixtures.ts';

const HAP = 'myapplication-1.0.0-vc1000000.hap';
const APP = 'myapplication-1.0.0-vc1000000.app';
const dir = mkdtempSync(join(tmpdir(), 'hangar-harmony-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, data: Buffer | string): string {
  const path = join(dir, name);
  writeFileSync(path, data);
  return path;
}

async function expectPng(icon: Buffer | null): Promise<void> {
  expect(icon).not.toBeNull();
  const meta = await sharp(icon!).metadata();
  expect(meta.format).toBe('png');
  expect(meta.width).toBeGreaterThan(0);
}

describe.skipIf(fixturesMissing !== null)('HarmonyOS fixtures', () => {
  it('reads the .hap', async () => {
    const m = await hapReader.read(fixture('harmonyos', HAP), HAP);
    expect(m.format).toBe('hap');
    expect(m.platform).toBe('harmonyos');
    expect(m.bundleId).toBe('com.example.myapplication');
    expect(m.releaseVersion).toBe('1.0.0');
    expect(m.buildVersion).toBe('1000000');
    // app.label is "$string:app_name"; resources.index resolves it (icyleaf falls back to the bundleName).
    expect(m.displayName).toBe('MyApplication');
    expect(m.minOsVersion).toBe('50000012');
    expect(m.deviceFamily).toEqual(['phone', 'tablet', '2in1']);
    expect(m.releaseType).toBeNull();
    expect(m.provisioning).toBeNull();
    expect(m.extra).toMatchObject({
      vendor: 'example',
      debug: true,
      compileSdkVersion: '5.0.0.25',
      targetAPIVersion: 50000012,
      minApiLevel: '12',
      targetApiLevel: '12',
    });
    await expectPng(m.icon);
    // $media:app_icon is resources/base/media/app_icon.png (a 2777-byte PNG in the .hap).
    const { width } = await sharp(m.icon!).metadata();
    expect(width).toBeLessThanOrEqual(1024);
  });

  it('reads the entry module of the .app', async () => {
    const m = await harmonyAppReader.read(fixture('harmonyos', APP), APP);
    expect(m.format).toBe('harmony-app');
    expect(m.platform).toBe('harmonyos');
    expect(m.bundleId).toBe('com.example.myapplication');
    expect(m.releaseVersion).toBe('1.0.0');
    expect(m.buildVersion).toBe('1000000');
    expect(m.displayName).toBe('MyApplication');
    expect(m.minOsVersion).toBe('50000012');
    expect(m.deviceFamily).toEqual(['phone', 'tablet', '2in1']);
    expect(m.extra).toMatchObject({ vendor: 'example', entryModule: 'entry-default.hap', modules: ['entry-default.hap'], minApiLevel: '12' });
    await expectPng(m.icon);
  });

  it('is picked by readBinary for .hap and .app, and leaves no temporary file behind', async () => {
    const copy = write('upload.app', readFileSync(fixture('harmonyos', APP)));
    const before = readdirSync(dir).length;
    expect((await readBinary(copy, 'My App.app')).format).toBe('harmony-app');
    expect(readdirSync(dir).length).toBe(before);
    expect((await readBinary(fixture('harmonyos', HAP), 'x.HAP')).format).toBe('hap');
  });

  it('reads an .app without pack.info that holds a single .hap', async () => {
    const path = write('nopack.app', zipArchive([{ name: 'feature.hap', data: readFileSync(fixture('harmonyos', HAP)) }]));
    const m = await harmonyAppReader.read(path, 'nopack.app');
    expect(m.bundleId).toBe('com.example.myapplication');
    expect(m.extra.entryModule).toBe('feature.hap');
  });

  it('refuses a truncated .hap and .app', async () => {
    const hap = readFileSync(fixture('harmonyos', HAP));
    const app = readFileSync(fixture('harmonyos', APP));
    await expect(hapReader.read(write('cut.hap', hap.subarray(0, hap.length - 200)), 'cut.hap')).rejects.toThrow(/^not a \.hap: it is not a readable zip archive/);
    await expect(harmonyAppReader.read(write('cut.app', app.subarray(0, 5000)), 'cut.app')).rejects.toThrow(/^not a HarmonyOS \.app: it is not a readable zip archive/);
  });
});

describe('broken HarmonyOS packages', () => {
  it('refuses a text file named .hap or .app', async () => {
    const path = write('text.hap', 'this is not a zip\n'.repeat(10));
    await expect(hapReader.read(path, 'text.hap')).rejects.toThrow(ParseError);
    await expect(hapReader.read(path, 'text.hap')).rejects.toThrow(/not a \.hap: it is not a readable zip archive/);
    await expect(harmonyAppReader.read(path, 'text.app')).rejects.toThrow(/not a HarmonyOS \.app: it is not a readable zip archive/);
  });

  it('refuses a zip without module.json', async () => {
    const path = write('empty.hap', zipArchive([{ name: 'resources/base/media/app_icon.png', data: 'x' }]));
    await expect(hapReader.read(path, 'empty.hap')).rejects.toThrow('not a valid .hap: module.json is missing');
  });

  it('refuses a module.json that is not JSON or lacks the app fields', async () => {
    await expect(hapReader.read(write('bad.hap', zipArchive([{ name: 'module.json', data: '{nope' }])), 'bad.hap')).rejects.toThrow(/module\.json is not valid JSON/);
    const noBundle = zipArchive([{ name: 'module.json', data: JSON.stringify({ app: { versionName: '1', versionCode: 1 }, module: {} }) }]);
    await expect(hapReader.read(write('nobundle.hap', noBundle), 'nobundle.hap')).rejects.toThrow('app.bundleName is missing');
    const noVersion = zipArchive([{ name: 'module.json', data: JSON.stringify({ app: { bundleName: 'a.b' }, module: {} }) }]);
    await expect(hapReader.read(write('noversion.hap', noVersion), 'noversion.hap')).rejects.toThrow('the app version (versionName, versionCode) is missing');
  });

  it('falls back to the bundleName and no icon without resources', async () => {
    const manifest = { app: { bundleName: 'com.x.y', versionName: '2.0', versionCode: 7, label: '$string:app_name', icon: '$media:app_icon', minAPIVersion: 9 }, module: { deviceTypes: ['tablet'] } };
    const m = await hapReader.read(write('bare.hap', zipArchive([{ name: 'module.json', data: JSON.stringify(manifest) }])), 'bare.hap');
    expect(m).toMatchObject({ bundleId: 'com.x.y', releaseVersion: '2.0', buildVersion: '7', displayName: 'com.x.y', minOsVersion: '9', deviceFamily: ['tablet'], icon: null });
    expect(m.extra).toMatchObject({ minApiLevel: '9', debug: false });
  });

  it('composites a layered icon (foreground over background)', async () => {
    const background = await sharp({ create: { width: 64, height: 64, channels: 4, background: '#ff0000' } }).png().toBuffer();
    const foreground = await sharp({ create: { width: 32, height: 32, channels: 4, background: '#00ff00' } })
      .extend({ top: 16, bottom: 16, left: 16, right: 16, background: { r: 0, g: 0, b: 0, alpha: 0 } })
      .png()
      .toBuffer();
    const manifest = { app: { bundleName: 'com.layered', versionName: '1', versionCode: 1, icon: '$media:layered_image' }, module: {} };
    const zip = zipArchive([
      { name: 'module.json', data: JSON.stringify(manifest) },
      { name: 'resources/base/media/layered_image.json', data: JSON.stringify({ 'layered-image': { background: '$media:background', foreground: '$media:foreground' } }) },
      { name: 'resources/base/media/background.png', data: background },
      { name: 'resources/base/media/foreground.png', data: foreground },
    ]);
    const m = await hapReader.read(write('layered.hap', zip), 'layered.hap');
    const { data, info } = await sharp(m.icon!).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([64, 64]);
    const pixel = (x: number, y: number): number[] => [...data.subarray((y * 64 + x) * info.channels, (y * 64 + x) * info.channels + 3)];
    expect(pixel(0, 0)).toEqual([255, 0, 0]);
    expect(pixel(32, 32)).toEqual([0, 255, 0]);
  });

  it('reads an FA-model .hap (config.json)', async () => {
    const config = { app: { bundleName: 'com.fa.app', vendor: 'fa', version: { name: '1.2', code: 12 }, apiVersion: { compatible: 7, target: 8 } }, module: { deviceType: ['phone'], distro: { moduleType: 'entry' } } };
    const m = await hapReader.read(write('fa.hap', zipArchive([{ name: 'config.json', data: JSON.stringify(config) }])), 'fa.hap');
    expect(m).toMatchObject({ bundleId: 'com.fa.app', releaseVersion: '1.2', buildVersion: '12', minOsVersion: '7', deviceFamily: ['phone'] });
    expect(m.extra).toMatchObject({ model: 'fa', moduleType: 'entry', targetApiLevel: '8' });
  });

  it('refuses an .app whose pack.info names a missing entry module, or that holds no module', async () => {
    const pack = JSON.stringify({ packages: [{ name: 'entry-default', moduleType: 'entry' }] });
    await expect(harmonyAppReader.read(write('nomodule.app', zipArchive([{ name: 'pack.info', data: pack }])), 'nomodule.app')).rejects.toThrow(
      'not a valid HarmonyOS .app: its entry module entry-default.hap is missing',
    );
    await expect(harmonyAppReader.read(write('nothing.app', zipArchive([{ name: 'readme.txt', data: 'hi' }])), 'nothing.app')).rejects.toThrow(
      'not a valid HarmonyOS .app: it holds no .hap module (pack.info is missing too)',
    );
  });

  it('refuses an .app whose entry module is not a .hap', async () => {
    const path = write('badentry.app', zipArchive([{ name: 'entry.hap', data: 'not a zip at all' }]));
    await expect(harmonyAppReader.read(path, 'badentry.app')).rejects.toThrow(/entry\.hap in the \.app.*not a readable zip archive/);
    const inner = zipArchive([{ name: 'other.txt', data: 'x' }]);
    const path2 = write('nomanifest.app', zipArchive([{ name: 'entry.hap', data: inner }]));
    await expect(harmonyAppReader.read(path2, 'nomanifest.app')).rejects.toThrow('not a valid HarmonyOS .app (entry.hap): module.json is missing');
  });
});
