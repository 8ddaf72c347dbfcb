/**
 * Windows icon images as PNG: an icon image is either a PNG (Vista+ 256 px icons) or a DIB (a
 * BITMAPINFOHEADER, an optional palette, the colour rows bottom-up, then a 1-bit AND mask). Used for
 * an .exe's RT_ICON resources and for .ico files (an MSI's Icon table).
 */
import sharp from 'sharp';
import { toPng } from './images.ts';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const MAX_SIDE = 1024;

export interface IconDirEntry {
  width: number;
  height: number;
  bitCount: number;
  size: number;
  /** RT_ICON id (group icon directories) or file offset (.ico files) */
  ref: number;
}

/** Largest first (area, then colour depth). */
export function byLargest(a: IconDirEntry, b: IconDirEntry): number {
  return b.width * b.height - a.width * a.height || b.bitCount - a.bitCount;
}

/**
 * Parses an icon directory: a .ico file's (16-byte entries ending in a file offset) or a group icon
 * resource's (14-byte entries ending in an RT_ICON id). Empty when it is not one.
 */
export function parseIconDirectory(data: Buffer, kind: 'file' | 'group'): IconDirEntry[] {
  if (data.length < 6 || data.readUInt16LE(0) !== 0 || data.readUInt16LE(2) !== 1) return [];
  const count = data.readUInt16LE(4);
  const size = kind === 'file' ? 16 : 14;
  const entries: IconDirEntry[] = [];
  for (let i = 0; i < count && 6 + (i + 1) * size <= data.length; i++) {
    const at = 6 + i * size;
    entries.push({
      width: data[at] || 256,
      height: data[at + 1] || 256,
      bitCount: data.readUInt16LE(at + 6),
      size: data.readUInt32LE(at + 8),
      ref: kind === 'file' ? data.readUInt32LE(at + 12) : data.readUInt16LE(at + 12),
    });
  }
  return entries;
}

/** Decodes a DIB icon image to RGBA and encodes it as PNG; null when it is not one we can read. */
export async function dibToPng(data: Buffer): Promise<Buffer | null> {
  if (data.length < 40) return null;
  const headerSize = data.readUInt32LE(0);
  if (headerSize < 40 || headerSize > data.length) return null;
  const width = data.readInt32LE(4);
  const height = Math.floor(Math.abs(data.readInt32LE(8)) / 2); // colour rows + mask rows
  const bitCount = data.readUInt16LE(14);
  const compression = data.readUInt32LE(16);
  const colorsUsed = data.readUInt32LE(32);
  if (width <= 0 || height <= 0 || width > MAX_SIDE || height > MAX_SIDE) return null;
  if (![1, 4, 8, 24, 32].includes(bitCount) || (compression !== 0 && !(compression === 3 && bitCount === 32))) return null;
  let offset = headerSize + (compression === 3 && headerSize === 40 ? 12 : 0);
  const paletteSize = bitCount <= 8 ? colorsUsed || 1 << bitCount : 0;
  if (paletteSize > 256) return null;
  const palette = data.subarray(offset, offset + paletteSize * 4);
  offset += paletteSize * 4;
  const stride = Math.floor((width * bitCount + 31) / 32) * 4;
  const maskStride = Math.floor((width + 31) / 32) * 4;
  const colours = data.subarray(offset, offset + stride * height);
  const mask = data.subarray(offset + stride * height, offset + stride * height + maskStride * height);
  if (colours.length < stride * height || palette.length < paletteSize * 4) return null;

  const rgba = Buffer.alloc(width * height * 4);
  let anyAlpha = false;
  for (let y = 0; y < height; y++) {
    const row = (height - 1 - y) * stride; // bottom-up
    for (let x = 0; x < width; x++) {
      const out = (y * width + x) * 4;
      let b = 0;
      let g = 0;
      let r = 0;
      let a = 255;
      if (bitCount === 32 || bitCount === 24) {
        const at = row + (x * bitCount) / 8;
        b = colours[at]!;
        g = colours[at + 1]!;
        r = colours[at + 2]!;
        if (bitCount === 32) {
          a = colours[at + 3]!;
          if (a !== 0) anyAlpha = true;
        }
      } else {
        const bitOffset = x * bitCount;
        const byte = colours[row + (bitOffset >> 3)]!;
        const index = (byte >> (8 - bitCount - (bitOffset & 7))) & ((1 << bitCount) - 1);
        if (index < paletteSize) {
          b = palette[index * 4]!;
          g = palette[index * 4 + 1]!;
          r = palette[index * 4 + 2]!;
        }
      }
      rgba[out] = r;
      rgba[out + 1] = g;
      rgba[out + 2] = b;
      rgba[out + 3] = a;
    }
  }
  // Without an alpha channel (or an all-zero one), transparency comes from the AND mask.
  if (bitCount !== 32 || !anyAlpha) {
    const hasMask = mask.length >= maskStride * height;
    for (let y = 0; y < height; y++) {
      const row = (height - 1 - y) * maskStride;
      for (let x = 0; x < width; x++) {
        const transparent = hasMask && ((mask[row + (x >> 3)]! >> (7 - (x & 7))) & 1) === 1;
        rgba[(y * width + x) * 4 + 3] = transparent ? 0 : 255;
      }
    }
  }
  try {
    return await sharp(rgba, { raw: { width, height, channels: 4 } }).png().toBuffer();
  } catch {
    return null;
  }
}

/** One icon image (PNG or DIB) as PNG, or null. */
export async function iconImageToPng(data: Buffer): Promise<Buffer | null> {
  if (data.subarray(0, 8).equals(PNG_SIGNATURE)) return toPng(data);
  return dibToPng(data);
}

/** The largest readable image of a .ico file, as PNG, or null. */
export async function icoToPng(ico: Buffer): Promise<Buffer | null> {
  for (const entry of parseIconDirectory(ico, 'file').sort(byLargest)) {
    if (entry.ref + entry.size > ico.length || entry.size === 0) continue;
    const png = await iconImageToPng(ico.subarray(entry.ref, entry.ref + entry.size));
    if (png) return png;
  }
  return null;
}
