/**
 * macOS icon files (.icns): a big-endian container of typed entries. Since macOS 10.7 the sizes that
 * matter (ic07-ic14, icp4-icp6) hold a whole PNG or JPEG 2000 file; older files hold RLE-packed
 * RGB images (is32, il32, ih32, it32) with separate 8-bit masks (s8mk, l8mk, h8mk, t8mk).
 * iconImages() lists what a file holds, largest first; each image decodes to PNG or JPEG 2000 bytes.
 */
import { PNG } from 'pngjs';
import { isPng, pngSize } from './cgbi.ts';

const JP2_SIGNATURE = Buffer.from([0x00, 0x00, 0x00, 0x0c, 0x6a, 0x50, 0x20, 0x20, 0x0d, 0x0a, 0x87, 0x0a]);
const J2K_CODESTREAM = Buffer.from([0xff, 0x4f, 0xff, 0x51]);

/** Side length of the PNG/JPEG 2000 entry types, in pixels. */
const IMAGE_TYPES: Record<string, number> = {
  icp4: 16,
  icp5: 32,
  icp6: 64,
  ic07: 128,
  ic08: 256,
  ic09: 512,
  ic10: 1024,
  ic11: 32,
  ic12: 64,
  ic13: 256,
  ic14: 512,
};

/** Legacy RGB types: side length and the mask that goes with them. */
const RGB_TYPES: Record<string, { side: number; mask: string }> = {
  is32: { side: 16, mask: 's8mk' },
  il32: { side: 32, mask: 'l8mk' },
  ih32: { side: 48, mask: 'h8mk' },
  it32: { side: 128, mask: 't8mk' },
};

export interface IcnsImage {
  type: string;
  /** side length in pixels (from the PNG header when there is one) */
  side: number;
  format: 'png' | 'jpeg2000' | 'rgb';
  /** PNG or JPEG 2000 bytes; throws when a legacy RGB entry is damaged */
  decode(): Buffer;
}

/** The entries of an icns file, as type -> data. Throws when it is not an icns file. */
export function icnsEntries(data: Buffer): Map<string, Buffer> {
  if (data.length < 8 || data.toString('latin1', 0, 4) !== 'icns') throw new Error('not an icns file (bad magic)');
  const total = Math.min(data.readUInt32BE(4), data.length);
  const entries = new Map<string, Buffer>();
  let offset = 8;
  while (offset + 8 <= total) {
    const type = data.toString('latin1', offset, offset + 4);
    const length = data.readUInt32BE(offset + 4);
    if (length < 8 || offset + length > total) break; // a damaged entry: keep what came before
    if (!entries.has(type)) entries.set(type, data.subarray(offset + 8, offset + length));
    offset += length;
  }
  return entries;
}

/** Unpacks one channel of a legacy RGB entry (Apple's PackBits variant). */
function unpackChannel(data: Buffer, offset: number, count: number): { bytes: Buffer; next: number } {
  const bytes = Buffer.alloc(count);
  let written = 0;
  let i = offset;
  while (written < count) {
    if (i >= data.length) throw new Error('icns RGB data is truncated');
    const n = data[i++] as number;
    if (n < 0x80) {
      const run = Math.min(n + 1, count - written);
      if (i + run > data.length) throw new Error('icns RGB data is truncated');
      data.copy(bytes, written, i, i + run);
      written += run;
      i += n + 1;
    } else {
      const run = Math.min(n - 125, count - written);
      if (i >= data.length) throw new Error('icns RGB data is truncated');
      bytes.fill(data[i] as number, written, written + run);
      written += run;
      i += 1;
    }
  }
  return { bytes, next: i };
}

/** Decodes a legacy RGB entry (plus its mask, when present) to a PNG. */
export function decodeLegacyRgb(type: string, data: Buffer, mask: Buffer | undefined): Buffer {
  const info = RGB_TYPES[type];
  if (!info) throw new Error(`${type} is not a legacy RGB icns type`);
  const pixels = info.side * info.side;
  const png = new PNG({ width: info.side, height: info.side });
  if (data.length === pixels * 4) {
    // uncompressed ARGB (only ever seen in 128 px entries)
    for (let p = 0; p < pixels; p++) {
      png.data[p * 4] = data[p * 4 + 1] as number;
      png.data[p * 4 + 1] = data[p * 4 + 2] as number;
      png.data[p * 4 + 2] = data[p * 4 + 3] as number;
      png.data[p * 4 + 3] = 255;
    }
  } else {
    let offset = type === 'it32' ? 4 : 0; // it32 starts with four zero bytes
    for (let channel = 0; channel < 3; channel++) {
      const { bytes, next } = unpackChannel(data, offset, pixels);
      for (let p = 0; p < pixels; p++) png.data[p * 4 + channel] = bytes[p] as number;
      offset = next;
    }
    for (let p = 0; p < pixels; p++) png.data[p * 4 + 3] = 255;
  }
  if (mask && mask.length >= pixels) {
    for (let p = 0; p < pixels; p++) png.data[p * 4 + 3] = mask[p] as number;
  }
  return PNG.sync.write(png, { colorType: 6 });
}

/** The images an icns file holds, largest first; PNG before JPEG 2000 before RGB at equal size. */
export function iconImages(data: Buffer): IcnsImage[] {
  const entries = icnsEntries(data);
  const images: IcnsImage[] = [];
  for (const [type, body] of entries) {
    const typeSide = IMAGE_TYPES[type];
    if (isPng(body)) {
      const size = pngSize(body);
      images.push({ type, side: size ? Math.max(size.width, size.height) : (typeSide ?? 0), format: 'png', decode: () => body });
    } else if (typeSide !== undefined && (body.subarray(0, 12).equals(JP2_SIGNATURE) || body.subarray(0, 4).equals(J2K_CODESTREAM))) {
      images.push({ type, side: typeSide, format: 'jpeg2000', decode: () => body });
    } else {
      const rgb = RGB_TYPES[type];
      if (rgb) images.push({ type, side: rgb.side, format: 'rgb', decode: () => decodeLegacyRgb(type, body, entries.get(rgb.mask)) });
    }
  }
  const rank = { png: 0, jpeg2000: 1, rgb: 2 } as const;
  return images.sort((a, b) => b.side - a.side || rank[a.format] - rank[b.format]);
}
