/** Shared by the .apk and .aab reader tests. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { expect } from 'vitest';
import { ParseError } from '../../src-server/parsers/types.ts';
import { ZipArchive } from '../../src-server/parsers/zip.ts';
import type { ZipEntrySource } from '../helpers/zip-writer.ts';

/** Asserts `icon` is a PNG sharp decodes, and returns its size. */
export async function expectPng(icon: Buffer | null): Promise<{ width: number; height: number; stdev: number; corner: number[]; center: number[] }> {
  expect(icon).not.toBeNull();
  const png = icon!;
  expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  const image = sharp(png);
  const meta = await image.metadata();
  expect(meta.format).toBe('png');
  expect(meta.width).toBeGreaterThan(0);
  expect(meta.height).toBeGreaterThan(0);
  const stats = await image.stats();
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const pixel = (x: number, y: number) => [...data.subarray((y * info.width + x) * 4, (y * info.width + x) * 4 + 4)];
  return {
    width: meta.width!,
    height: meta.height!,
    stdev: Math.max(...stats.channels.slice(0, 3).map((c) => c.stdev)),
    corner: pixel(2, 2),
    center: pixel(Math.floor(info.width / 2), Math.floor(info.height / 2)),
  };
}

/** Runs `body`, expects a ParseError, and returns its message. */
export async function parseErrorOf(body: () => Promise<unknown>): Promise<string> {
  try {
    await body();
  } catch (error) {
    expect(error).toBeInstanceOf(ParseError);
    return (error as ParseError).message;
  }
  throw new Error('expected a ParseError, but the file was read');
}

/** Every entry of a zip, decompressed (fixtures are small), for rebuilding variants of it. */
export async function entriesOf(path: string): Promise<ZipEntrySource[]> {
  const zip = await ZipArchive.open(path, 'a zip');
  try {
    const result: ZipEntrySource[] = [];
    for (const entry of zip.entries) {
      if (entry.name.endsWith('/')) continue;
      result.push({ name: entry.name, data: await zip.read(entry.name) });
    }
    return result;
  } finally {
    zip.close();
  }
}

export async function makeTempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'hangar-android-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
