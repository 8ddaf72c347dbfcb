/**
 * Writes small test archives: a plain zip of stored (uncompressed) entries, streamed to disk, so a
 * test can build a package with a missing or damaged member, or one with a huge entry, without
 * holding it in memory or depending on a zip tool.
 */
import { open } from 'node:fs/promises';
import { crc32 } from 'node:zlib';

export interface ZipEntrySource {
  name: string;
  /** the entry's bytes */
  data?: Buffer;
  /** or: `size` bytes of junk, written in chunks (for large entries) */
  junkSize?: number;
}

const CHUNK = 1024 * 1024;
// 1981-01-01 00:00, as DOS time and date
const DOS_TIME = 0;
const DOS_DATE = ((1981 - 1980) << 9) | (1 << 5) | 1;

export async function writeStoredZip(path: string, entries: ZipEntrySource[]): Promise<void> {
  const file = await open(path, 'w');
  let offset = 0;
  const central: Buffer[] = [];
  const write = async (buf: Buffer): Promise<void> => {
    await file.write(buf, 0, buf.length, offset);
    offset += buf.length;
  };
  try {
    for (const entry of entries) {
      const name = Buffer.from(entry.name, 'utf8');
      const size = entry.data ? entry.data.length : (entry.junkSize ?? 0);
      if (size >= 0xffffffff) throw new Error('zip64 is not supported here');
      const headerAt = offset;
      const local = Buffer.alloc(30);
      local.writeUInt32LE(0x04034b50, 0);
      local.writeUInt16LE(20, 4); // version needed
      local.writeUInt16LE(0x0800, 6); // UTF-8 names
      local.writeUInt16LE(0, 8); // stored
      local.writeUInt16LE(DOS_TIME, 10);
      local.writeUInt16LE(DOS_DATE, 12);
      // the CRC is filled in once the data is written
      local.writeUInt32LE(size, 18);
      local.writeUInt32LE(size, 22);
      local.writeUInt16LE(name.length, 26);
      local.writeUInt16LE(0, 28);
      await write(local);
      await write(name);
      let crc = 0;
      if (entry.data) {
        crc = crc32(entry.data);
        await write(entry.data);
      } else {
        const chunk = Buffer.alloc(CHUNK);
        for (let i = 0; i < chunk.length; i++) chunk[i] = (i * 31 + 7) & 0xff;
        let left = size;
        while (left > 0) {
          const part = left >= CHUNK ? chunk : chunk.subarray(0, left);
          crc = crc32(part, crc);
          await write(part);
          left -= part.length;
        }
      }
      const crcBuf = Buffer.alloc(4);
      crcBuf.writeUInt32LE(crc >>> 0);
      await file.write(crcBuf, 0, 4, headerAt + 14);

      const header = Buffer.alloc(46);
      header.writeUInt32LE(0x02014b50, 0);
      header.writeUInt16LE(20, 4); // made by
      header.writeUInt16LE(20, 6); // needed
      header.writeUInt16LE(0x0800, 8);
      header.writeUInt16LE(0, 10);
      header.writeUInt16LE(DOS_TIME, 12);
      header.writeUInt16LE(DOS_DATE, 14);
      header.writeUInt32LE(crc >>> 0, 16);
      header.writeUInt32LE(size, 20);
      header.writeUInt32LE(size, 24);
      header.writeUInt16LE(name.length, 28);
      header.writeUInt32LE(headerAt, 42);
      central.push(header, name);
    }
    const centralAt = offset;
    for (const part of central) await write(part);
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(entries.length, 8);
    end.writeUInt16LE(entries.length, 10);
    end.writeUInt32LE(offset - centralAt, 12);
    end.writeUInt32LE(centralAt, 16);
    await write(end);
  } finally {
    await file.close();
  }
}
