/**
 * Icons: whatever a package holds (PNG, WebP, SVG, JPEG) becomes a PNG, at most 1024 px on a side.
 * sharp (libvips, prebuilt for each platform through npm) does the decoding and encoding.
 */
import sharp from 'sharp';

export const MAX_ICON_SIDE = 1024;

/** Converts an image to PNG; null when it cannot be decoded (a missing icon is not a failed upload). */
export async function toPng(image: Buffer): Promise<Buffer | null> {
  try {
    return await sharp(image, { limitInputPixels: 64 * 1024 * 1024, failOn: 'error' })
      .resize({ width: MAX_ICON_SIDE, height: MAX_ICON_SIDE, fit: 'inside', withoutEnlargement: true })
      .png()
      .toBuffer();
  } catch {
    return null;
  }
}

/** Width and height of an image, or null when it cannot be decoded. */
export async function imageSize(image: Buffer): Promise<{ width: number; height: number } | null> {
  try {
    const { width, height } = await sharp(image).metadata();
    return width && height ? { width, height } : null;
  } catch {
    return null;
  }
}
