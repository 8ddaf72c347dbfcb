/**
 * A large, parseable iOS package: a real .ipa fixture with one more entry, STORED (uncompressed),
 * under Payload/<Name>.app/, filled with incompressible bytes so that the whole file is exactly the
 * size asked for. The fixture's entries and central directory are copied byte for byte; the new
 * entry is appended before the central directory (no zip64: sizes stay below 4 GiB).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { crc32 } from 'node:zlib';

const EOCD_SIGNATURE = 0x06054b50;
const BLOCK = 1024 * 1024;

interface Eocd {
  entries: number;
  cdSize: number;
  cdOffset: number;
}

function readEocd(zip: Buffer): Eocd {
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - 22 - 65535); at -= 1) {
    if (zip.readUInt32LE(at) === EOCD_SIGNATURE) {
      return { entries: zip.readUInt16LE(at + 10), cdSize: zip.readUInt32LE(at + 12), cdOffset: zip.readUInt32LE(at + 16) };
    }
  }
  throw new Error('no end of central directory record: not a zip');
}

/** The .app directory of an ipa's central directory ("Payload/AppInfoDemo.app/"). */
function appDirOf(zip: Buffer, eocd: Eocd): string {
  let at = eocd.cdOffset;
  for (let i = 0; i < eocd.entries; i += 1) {
    const nameLength = zip.readUInt16LE(at + 28);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    const match = /^Payload\/[^/]+\.app\//.exec(name);
    if (match) return match[0];
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  throw new Error('no Payload/*.app/ in the fixture');
}

export interface BigIpa {
  path: string;
  size: number;
  entryName: string;
  entryBytes: number;
}

/** Writes `outPath`: the fixture plus one stored entry, `totalBytes` long in all. */
export function makeBigIpa(fixturePath: string, outPath: string, totalBytes: number): BigIpa {
  const zip = readFileSync(fixturePath);
  const eocd = readEocd(zip);
  if (eocd.cdOffset + eocd.cdSize > zip.length) throw new Error('unexpected zip layout (zip64?)');
  const entryName = `${appDirOf(zip, eocd)}Assets.bench.bin`;
  const name = Buffer.from(entryName);
  const localLength = 30 + name.length;
  const centralLength = 46 + name.length;
  const entryBytes = totalBytes - (eocd.cdOffset + localLength + eocd.cdSize + centralLength + 22);
  if (entryBytes <= 0 || totalBytes >= 2 ** 32) throw new Error(`cannot make a ${totalBytes}-byte ipa from ${fixturePath}`);

  const block = randomBytes(BLOCK);
  let crc = 0;
  for (let left = entryBytes; left > 0; left -= BLOCK) crc = crc32(left >= BLOCK ? block : block.subarray(0, left), crc);

  const dosTime = 0; // 00:00:00
  const dosDate = ((2026 - 1980) << 9) | (1 << 5) | 1; // 2026-01-01
  const local = Buffer.alloc(localLength);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(10, 4); // version needed: 1.0 (stored)
  local.writeUInt16LE(0, 6); // flags
  local.writeUInt16LE(0, 8); // method: stored
  local.writeUInt16LE(dosTime, 10);
  local.writeUInt16LE(dosDate, 12);
  local.writeUInt32LE(crc >>> 0, 14);
  local.writeUInt32LE(entryBytes, 18);
  local.writeUInt32LE(entryBytes, 22);
  local.writeUInt16LE(name.length, 26);
  local.writeUInt16LE(0, 28);
  name.copy(local, 30);

  const central = Buffer.alloc(centralLength);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE((3 << 8) | 20, 4); // made by: Unix, 2.0
  central.writeUInt16LE(10, 6);
  central.writeUInt16LE(0, 8);
  central.writeUInt16LE(0, 10);
  central.writeUInt16LE(dosTime, 12);
  central.writeUInt16LE(dosDate, 14);
  central.writeUInt32LE(crc >>> 0, 16);
  central.writeUInt32LE(entryBytes, 20);
  central.writeUInt32LE(entryBytes, 24);
  central.writeUInt16LE(name.length, 28);
  central.writeUInt32LE(((0o100644 << 16) >>> 0), 38); // external attributes: a regular file, rw-r--r--
  central.writeUInt32LE(eocd.cdOffset, 42); // local header offset: where the old central directory began
  name.copy(central, 46);

  const newCdOffset = eocd.cdOffset + localLength + entryBytes;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(EOCD_SIGNATURE, 0);
  end.writeUInt16LE(eocd.entries + 1, 8);
  end.writeUInt16LE(eocd.entries + 1, 10);
  end.writeUInt32LE(eocd.cdSize + centralLength, 12);
  end.writeUInt32LE(newCdOffset, 16);

  const fd = openSync(outPath, 'w');
  try {
    writeSync(fd, zip, 0, eocd.cdOffset);
    writeSync(fd, local);
    for (let left = entryBytes; left > 0; left -= BLOCK) writeSync(fd, block, 0, Math.min(BLOCK, left));
    writeSync(fd, zip, eocd.cdOffset, eocd.cdSize);
    writeSync(fd, central);
    writeSync(fd, end);
  } finally {
    closeSync(fd);
  }
  return { path: outPath, size: totalBytes, entryName, entryBytes };
}
