#!/usr/bin/env node
// Renders resources/icon.svg into every icon the desktop app and its installers need, with sharp:
//   resources/icon.png        1024 px, the master (and the window icon)
//   resources/icon.icns       macOS (PNG entries, 16 to 1024 px with @2x)
//   resources/icon.ico        Windows (PNG entries, 16 to 256 px)
//   resources/icons/NxN.png   Linux (AppImage, deb), the size in each name as electron-builder wants
//   resources/tray.png, tray@2x.png   the tray icon (16 px, and 32 px for high-density screens)
// The outputs are committed; run `node scripts/make-icons.mjs` again after changing the SVG.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';

const resources = fileURLToPath(new URL('../resources/', import.meta.url));
const svg = await readFile(`${resources}icon.svg`);

/** The SVG rendered at `size` px square (densities above 72 keep small sizes sharp). */
function png(size) {
  return sharp(svg, { density: Math.max(72, Math.ceil((72 * size) / 512)) })
    .resize(size, size)
    .png({ compressionLevel: 9 })
    .toBuffer();
}

/** Apple icon family: 'icns', total length, then (type, length, PNG) entries. */
async function icns() {
  const types = [
    ['icp4', 16], ['icp5', 32], ['ic11', 32], ['ic07', 128], ['ic12', 64],
    ['ic08', 256], ['ic13', 256], ['ic09', 512], ['ic14', 512], ['ic10', 1024],
  ];
  const entries = [];
  for (const [type, size] of types) {
    const data = await png(size);
    const header = Buffer.alloc(8);
    header.write(type, 0, 'ascii');
    header.writeUInt32BE(data.length + 8, 4);
    entries.push(header, data);
  }
  const body = Buffer.concat(entries);
  const header = Buffer.alloc(8);
  header.write('icns', 0, 'ascii');
  header.writeUInt32BE(body.length + 8, 4);
  return Buffer.concat([header, body]);
}

/** Windows icon: ICONDIR, one ICONDIRENTRY per size, then the PNG images (Vista and later). */
async function ico() {
  const sizes = [16, 24, 32, 48, 64, 128, 256];
  const images = await Promise.all(sizes.map(png));
  const directory = Buffer.alloc(6 + 16 * sizes.length);
  directory.writeUInt16LE(0, 0);
  directory.writeUInt16LE(1, 2); // 1: icon
  directory.writeUInt16LE(sizes.length, 4);
  let offset = directory.length;
  sizes.forEach((size, i) => {
    const at = 6 + 16 * i;
    directory.writeUInt8(size % 256, at); // 0 means 256
    directory.writeUInt8(size % 256, at + 1);
    directory.writeUInt16LE(1, at + 4); // colour planes
    directory.writeUInt16LE(32, at + 6); // bits per pixel
    directory.writeUInt32LE(images[i].length, at + 8);
    directory.writeUInt32LE(offset, at + 12);
    offset += images[i].length;
  });
  return Buffer.concat([directory, ...images]);
}

await mkdir(`${resources}icons`, { recursive: true });
await writeFile(`${resources}icon.png`, await png(1024));
await writeFile(`${resources}icon.icns`, await icns());
await writeFile(`${resources}icon.ico`, await ico());
for (const size of [16, 32, 48, 64, 128, 256, 512, 1024]) {
  await writeFile(`${resources}icons/${size}x${size}.png`, await png(size));
}
await writeFile(`${resources}tray.png`, await png(16));
await writeFile(`${resources}tray@2x.png`, await png(32));
console.log(`icons written to ${resources}`);
