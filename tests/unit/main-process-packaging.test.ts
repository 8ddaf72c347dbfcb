// Packaging of the desktop app, checked without packaging (electron-builder needs the internet):
// build/electron-builder.yml against electron-builder's own schema and loader, the icons that
// scripts/make-icons.mjs made, and what the bundled server reads from disk at run time.
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { beforeEach, describe, expect, it } from 'vitest';
import { iconImages } from '../../src-server/parsers/icns.ts';
import { parseIconDirectory } from '../../src-server/parsers/ico.ts';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

// electron-builder's configuration loader and schema check live in app-builder-lib, its own
// dependency: resolved from electron-builder so that this follows the version package.json pins.
const fromBuilder = createRequire(createRequire(join(root, 'package.json')).resolve('electron-builder'));
const { getConfig, validateConfiguration } = fromBuilder('app-builder-lib/out/util/config/config.js') as {
  getConfig(projectDir: string, configPath: string, configFromOptions: null): Promise<Record<string, any>>;
  validateConfiguration(config: Record<string, any>, logger: unknown): Promise<void>;
};
const { DebugLogger } = fromBuilder('builder-util') as { DebugLogger: new (enabled: boolean) => unknown };

// Loaded afresh for each test: validation normalises the object in place (e.g. `files`).
let config: Record<string, any>;
beforeEach(async () => {
  config = await getConfig(root, 'build/electron-builder.yml', null);
});

describe('build/electron-builder.yml', () => {
  it('is a configuration electron-builder accepts', async () => {
    await expect(validateConfiguration(config, new DebugLogger(false))).resolves.toBeUndefined();
    // and the check is a real one
    await expect(validateConfiguration({ ...config, asarUnpak: ['x'] }, new DebugLogger(false))).rejects.toThrow(/unknown property 'asarUnpak'/);
  });

  it('builds a dmg for macOS, an NSIS installer for Windows, an AppImage and a deb for Linux', () => {
    expect(config.mac.target).toEqual(['dmg']);
    expect(config.win.target).toEqual(['nsis']);
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.appId).toBe('dev.hangar.app'); // the AppUserModelID src-main/index.ts sets on Windows
  });

  it('unpacks the native modules from the asar and compiles nothing', () => {
    expect(config.asar).toBe(true);
    expect(config.asarUnpack).toEqual(expect.arrayContaining(['node_modules/better-sqlite3/**', 'node_modules/sharp/**', 'node_modules/@img/**']));
    expect(config.npmRebuild).toBe(false);
    expect(config.buildDependenciesFromSource).toBe(false);
  });

  it('ships better-sqlite3 binaries for every target it builds, inside the npm package', async () => {
    const prebuilds = await readdir(join(root, 'node_modules/better-sqlite3/prebuilds'));
    expect(prebuilds).toEqual(expect.arrayContaining(['darwin-arm64.node', 'darwin-x64.node', 'win32-x64.node', 'linux-x64.node', 'linux-arm64.node']));
  });

  it('ships what the bundled server reads from disk at run time', async () => {
    // relative to out/main/index.js: ../../package.json, ../../build-info.json, ../../resources/icon.svg
    const patterns = (config.files as (string | { filter: string[] })[]).flatMap((f) => (typeof f === 'string' ? [f] : f.filter));
    expect(patterns).toEqual(expect.arrayContaining(['out/**', 'package.json', 'build-info.json', 'resources/**']));
    // out/main/migrations: copied there by the main build
    const { default: vite } = await import('../../electron.vite.config.ts');
    const plugins = (vite.main?.plugins ?? []) as { name: string }[];
    expect(plugins.map((p) => p.name)).toContain('hangar:copy-migrations');
    // the Font Awesome files come from node_modules, a production dependency electron-builder adds
    const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
    expect(Object.keys(pkg.dependencies)).toEqual(expect.arrayContaining(['@fortawesome/fontawesome-free', 'better-sqlite3', 'sharp', 'electron-store']));
    expect(pkg.scripts.dist).toBe('npm run build && electron-builder --config build/electron-builder.yml');
  });
});

describe('icons (scripts/make-icons.mjs)', () => {
  it('names an existing icon for every platform', async () => {
    expect(config.mac.icon).toBe('resources/icon.icns');
    expect(config.win.icon).toBe('resources/icon.ico');
    expect(config.linux.icon).toBe('resources/icons');
  });

  it('gives macOS PNG images from 16 to 1024 px', async () => {
    const images = iconImages(await readFile(join(root, 'resources/icon.icns')));
    expect(images.every((i) => i.format === 'png')).toBe(true);
    expect([...new Set(images.map((i) => i.side))].sort((a, b) => a - b)).toEqual([16, 32, 64, 128, 256, 512, 1024]);
  });

  it('gives Windows images from 16 to 256 px whose entries match their PNGs', async () => {
    const ico = await readFile(join(root, 'resources/icon.ico'));
    const entries = parseIconDirectory(ico, 'file');
    expect(entries.map((e) => e.width)).toEqual([16, 24, 32, 48, 64, 128, 256]);
    for (const entry of entries) {
      const meta = await sharp(ico.subarray(entry.ref, entry.ref + entry.size)).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['png', entry.width, entry.height]);
    }
  });

  it('gives Linux one PNG per size, named after it, and the tray its 1x and 2x images', async () => {
    const files = await readdir(join(root, 'resources/icons'));
    expect(files).toEqual(expect.arrayContaining(['16x16.png', '32x32.png', '256x256.png', '512x512.png', '1024x1024.png']));
    for (const file of files) {
      const side = Number(file.split('x')[0]);
      const meta = await sharp(join(root, 'resources/icons', file)).metadata();
      expect([meta.width, meta.height]).toEqual([side, side]);
    }
    expect((await sharp(join(root, 'resources/tray.png')).metadata()).width).toBe(16);
    expect((await sharp(join(root, 'resources/tray@2x.png')).metadata()).width).toBe(32);
  });
});
