/** Property lists, XML or binary (Info.plist, provisioning profiles), read with `plist`. */
import { DOMParser } from '@xmldom/xmldom';
import { parse, parseBinary } from 'plist';
import { ParseError } from './types.ts';

export type PlistValue = string | number | bigint | boolean | Date | Uint8Array | PlistValue[] | { [key: string]: PlistValue } | null;
export type PlistDict = { [key: string]: PlistValue };

export function parsePlist(data: Buffer, what: string): PlistDict {
  try {
    const binary = data.subarray(0, 6).toString('latin1') === 'bplist';
    if (!binary) assertWellFormed(data.toString('utf8'));
    const value: unknown = binary ? parseBinary(data) : parse(data.toString('utf8'));
    if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof Uint8Array || value instanceof Date) {
      throw new Error('its root is not a dictionary');
    }
    return value as PlistDict;
  } catch (error) {
    throw new ParseError(`${what} is not a readable property list: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * `plist` parses XML with a DOMParser that prints errors to the console; a parser of our own that
 * throws instead turns a damaged plist into a clean ParseError first.
 */
function assertWellFormed(xml: string): void {
  const parser = new DOMParser({
    onError: (level, message) => {
      if (level !== 'warning') throw new Error(message);
    },
  });
  parser.parseFromString(xml, 'text/xml');
}

/** A string value (numbers written as text), or null when absent. */
export function plistString(dict: PlistDict, key: string): string | null {
  const value = dict[key];
  return typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'bigint' ? String(value) : null;
}
