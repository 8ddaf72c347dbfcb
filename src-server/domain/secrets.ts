/**
 * Secrets: API token values, user passwords, channel visit passwords and channel keys.
 *
 * - Token values carry 256 random bits, so a plain SHA-256 is the right stored form (as GitHub does):
 *   it is not reversible, and a lookup by hash stays one indexed query.
 * - Passwords are low-entropy, so they get scrypt (memory-hard, in Node's crypto, no native add-on)
 *   with a random salt per password, compared in constant time.
 */
import { createHash, randomBytes, randomInt, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const TOKEN_PREFIX = 'hgr_';
const SLUG_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789'; // no 0/o, 1/l
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, keylen: 32, maxmem: 64 * 1024 * 1024 } as const;

function scrypt(password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCallback(password, salt, keylen, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** A new API token value, e.g. `hgr_3q2+...`: the prefix lets secret scanners recognise it. */
export function newTokenValue(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

export function hashToken(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** What a token list shows of a value: enough to tell tokens apart, far too little to use one. */
export function tokenDisplayPrefix(value: string): string {
  return value.slice(0, TOKEN_PREFIX.length + 4);
}

/** A channel key: 128 random bits as 32 hex characters (the form Zealot clients are used to). */
export function newChannelKey(): string {
  return randomBytes(16).toString('hex');
}

/** A random slug for a channel's device pages: easy to read aloud and to type from a screen. */
export function newSlug(length = 8): string {
  let slug = '';
  for (let i = 0; i < length; i += 1) slug += SLUG_ALPHABET[randomInt(SLUG_ALPHABET.length)];
  return slug;
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const { N, r, p, keylen, maxmem } = SCRYPT;
  const key = await scrypt(password, salt, keylen, { N, r, p, maxmem });
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64');
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: SCRYPT.maxmem,
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
