/**
 * Apple-crushed PNGs ("CgBI"): Xcode rewrites the PNGs of an iOS app so that only iOS can show
 * them. Compared with a standard PNG:
 *  - a `CgBI` chunk comes before IHDR;
 *  - the IDAT stream is raw deflate, without the zlib header and Adler-32 trailer;
 *  - pixels are BGRA (BGR without alpha), and the colour channels are premultiplied by alpha.
 * The scanline filters are the standard ones. We undo all of that and write a normal PNG with pngjs.
 */
import { inflateRawSync, inflateSync } from 'node:zlib';
import { PNG } from 'pngjs';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Icons are small: refuse anything past this many pixels rather than inflate it. */
const MAX_PIXELS = 4096 * 4096;

interface Chunk {
  type: string;
  data: Buffer;
}

export function isPng(data: Buffer): boolean {
  return data.length >= 8 && data.subarray(0, 8).equals(PNG_SIGNATURE);
}

/** The chunks of a PNG, up to IEND; throws when the chunk structure is broken. */
function chunksOf(png: Buffer): Chunk[] {
  if (!isPng(png)) throw new Error('not a PNG (bad signature)');
  const chunks: Chunk[] = [];
  let offset = 8;
  while (offset + 8 <= png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('latin1', offset + 4, offset + 8);
    const end = offset + 8 + length;
    if (end + 4 > png.length) throw new Error(`PNG chunk ${type} runs past the end of the file`);
    chunks.push({ type, data: png.subarray(offset + 8, end) });
    offset = end + 4; // skip the CRC
    if (type === 'IEND') break;
  }
  return chunks;
}

/** True for an Apple-crushed PNG (a CgBI chunk before IHDR). */
export function isCgbi(data: Buffer): boolean {
  return isPng(data) && data.length >= 16 && data.toString('latin1', 12, 16) === 'CgBI';
}

/** Width and height from the IHDR of a PNG, standard or CgBI; null when it is not a PNG. */
export function pngSize(data: Buffer): { width: number; height: number } | null {
  if (!isPng(data)) return null;
  try {
    // IHDR is the first chunk, or the second after CgBI: never walk further than that.
    const head = data.subarray(0, Math.min(data.length, 64));
    let offset = 8;
    for (let i = 0; i < 2 && offset + 16 <= head.length; i++) {
      const length = head.readUInt32BE(offset);
      if (head.toString('latin1', offset + 4, offset + 8) === 'IHDR') {
        return { width: head.readUInt32BE(offset + 8), height: head.readUInt32BE(offset + 12) };
      }
      offset += 12 + length;
    }
  } catch {
    // fall through
  }
  return null;
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** Undoes the PNG scanline filters in place; returns the unfiltered rows without filter bytes. */
function unfilter(filtered: Buffer, width: number, height: number, bpp: number): Buffer {
  const stride = width * bpp;
  const out = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = filtered[y * (stride + 1)];
    const src = y * (stride + 1) + 1;
    const row = y * stride;
    const prev = row - stride;
    for (let x = 0; x < stride; x++) {
      const raw = filtered[src + x] as number;
      const left = x >= bpp ? (out[row + x - bpp] as number) : 0;
      const up = y > 0 ? (out[prev + x] as number) : 0;
      const upLeft = y > 0 && x >= bpp ? (out[prev + x - bpp] as number) : 0;
      let value: number;
      switch (filter) {
        case 0:
          value = raw;
          break;
        case 1:
          value = raw + left;
          break;
        case 2:
          value = raw + up;
          break;
        case 3:
          value = raw + ((left + up) >> 1);
          break;
        case 4:
          value = raw + paeth(left, up, upLeft);
          break;
        default:
          throw new Error(`unknown PNG filter type ${filter} in row ${y}`);
      }
      out[row + x] = value & 0xff;
    }
  }
  return out;
}

/**
 * Converts an Apple-crushed (CgBI) PNG to a standard RGBA PNG. A PNG without the CgBI chunk is
 * returned unchanged. Throws an Error when the image is damaged or of a kind Xcode does not write
 * (interlaced, palette, grey, 16-bit).
 */
export function cgbiToPng(data: Buffer): Buffer {
  if (!isCgbi(data)) {
    if (!isPng(data)) throw new Error('not a PNG (bad signature)');
    return data;
  }
  const chunks = chunksOf(data);
  const ihdr = chunks.find((c) => c.type === 'IHDR')?.data;
  if (!ihdr || ihdr.length < 13) throw new Error('CgBI PNG without an IHDR chunk');
  const width = ihdr.readUInt32BE(0);
  const height = ihdr.readUInt32BE(4);
  const bitDepth = ihdr[8];
  const colorType = ihdr[9];
  const interlace = ihdr[12];
  if (width === 0 || height === 0 || width * height > MAX_PIXELS) throw new Error(`CgBI PNG of unsupported size ${width}x${height}`);
  if (bitDepth !== 8 || (colorType !== 6 && colorType !== 2)) throw new Error(`CgBI PNG of unsupported kind (bit depth ${bitDepth}, colour type ${colorType})`);
  if (interlace !== 0) throw new Error('interlaced CgBI PNGs are not supported');

  const bpp = colorType === 6 ? 4 : 3;
  const expected = height * (width * bpp + 1);
  const compressed = Buffer.concat(chunks.filter((c) => c.type === 'IDAT').map((c) => c.data));
  let filtered: Buffer;
  try {
    filtered = inflateRawSync(compressed, { maxOutputLength: expected + 1024 });
  } catch {
    // Some tools leave the zlib header in place.
    filtered = inflateSync(compressed, { maxOutputLength: expected + 1024 });
  }
  if (filtered.length < expected) throw new Error(`CgBI image data is truncated (${filtered.length} of ${expected} bytes)`);

  const pixels = unfilter(filtered, width, height, bpp);
  const png = new PNG({ width, height });
  const rgba = png.data;
  for (let i = 0, o = 0; o < rgba.length; i += bpp, o += 4) {
    const b = pixels[i] as number;
    const g = pixels[i + 1] as number;
    const r = pixels[i + 2] as number;
    const a = bpp === 4 ? (pixels[i + 3] as number) : 255;
    if (a === 255) {
      rgba[o] = r;
      rgba[o + 1] = g;
      rgba[o + 2] = b;
    } else if (a === 0) {
      rgba[o] = 0;
      rgba[o + 1] = 0;
      rgba[o + 2] = 0;
    } else {
      // un-premultiply
      rgba[o] = Math.min(255, Math.round((r * 255) / a));
      rgba[o + 1] = Math.min(255, Math.round((g * 255) / a));
      rgba[o + 2] = Math.min(255, Math.round((b * 255) / a));
    }
    rgba[o + 3] = a;
  }
  return PNG.sync.write(png, { colorType: 6 });
}
