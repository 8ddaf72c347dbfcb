/**
 * A minimal reader of tar archives held in memory (a .deb's control.tar, already decompressed and
 * capped): ustar, GNU long names ('L') and pax headers ('x', for `path`). Only what finding one small
 * file needs; no links, no sparse files.
 */
import { ParseError } from './types.ts';

export interface TarEntry {
  /** the path as written, e.g. "./control" */
  name: string;
  /** '0' (or NUL) regular file, '5' directory, '2' symlink, ... */
  type: string;
  data: Buffer;
}

const BLOCK = 512;

function field(header: Buffer, start: number, length: number): string {
  const raw = header.subarray(start, start + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end === -1 ? raw.length : end).toString('utf8');
}

function octal(header: Buffer, start: number, length: number, what: string): number {
  const raw = header.subarray(start, start + length);
  // GNU base-256 for large values: the high bit of the first byte is set.
  if ((raw[0] ?? 0) & 0x80) {
    let value = 0;
    for (let i = 1; i < raw.length; i++) value = value * 256 + (raw[i] ?? 0);
    return value;
  }
  const text = raw.toString('latin1').replace(/\0.*$/s, '').trim();
  if (text === '') return 0;
  if (!/^[0-7]+$/.test(text)) throw new ParseError(`${what} is not a valid tar archive (bad number "${text}")`);
  return parseInt(text, 8);
}

function checksumOk(header: Buffer): boolean {
  const stored = header.subarray(148, 156).toString('latin1').replace(/\0.*$/s, '').trim();
  if (!/^[0-7]+$/.test(stored)) return false;
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : (header[i] ?? 0);
  return sum === parseInt(stored, 8);
}

/** The entries of a tar archive, in order. `what` names it in error messages ("control.tar.xz"). */
export function* tarEntries(tar: Buffer, what: string): Generator<TarEntry> {
  let offset = 0;
  let longName: string | null = null;
  let paxPath: string | null = null;
  while (offset + BLOCK <= tar.length) {
    const header = tar.subarray(offset, offset + BLOCK);
    if (header.every((b) => b === 0)) return; // end of archive
    if (!checksumOk(header)) throw new ParseError(`${what} is not a valid tar archive (header checksum mismatch at ${offset})`);
    const size = octal(header, 124, 12, what);
    const type = String.fromCharCode(header[156] ?? 0);
    const dataStart = offset + BLOCK;
    if (dataStart + size > tar.length) throw new ParseError(`${what} is truncated (an entry lies beyond its end)`);
    const data = tar.subarray(dataStart, dataStart + size);
    offset = dataStart + Math.ceil(size / BLOCK) * BLOCK;

    if (type === 'L') {
      longName = data.toString('utf8').replace(/\0+$/, '');
      continue;
    }
    if (type === 'x') {
      for (const match of data.toString('utf8').matchAll(/^\d+ path=(.*)$/gm)) paxPath = match[1] ?? null;
      continue;
    }
    if (type === 'g') continue; // global pax header
    const magic = header.subarray(257, 263).toString('latin1');
    const prefix = magic.startsWith('ustar') ? field(header, 345, 155) : '';
    const name = paxPath ?? longName ?? (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100));
    longName = null;
    paxPath = null;
    yield { name, type: type === '\0' ? '0' : type, data };
  }
}

/** Normalises a tar path for comparison: "./control" and "control" are the same file. */
export function tarPath(name: string): string {
  return name.replace(/^(\.\/)+/, '').replace(/^\/+/, '');
}
