/**
 * Visiting a channel that has a visit password (R14): the device pages ask for the password once,
 * then a cookie proves it; downloads and install manifests of such a channel need that cookie, or
 * a signed link (iOS fetches the manifest and the .ipa itself, without the browser's cookies).
 *
 * Both are HMACs with the installation's secret, bound to the channel's current password hash
 * (changing the password signs every visitor out and voids every link); a link also to one release
 * and an expiry.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Channel } from './context.ts';
import { verifyPassword } from './secrets.ts';

export const VISIT_COOKIE_PREFIX = 'hangar_visit_';
export const VISIT_COOKIE_MAX_AGE_S = 30 * 24 * 3600;

function hmac(secret: Buffer, text: string): string {
  return createHmac('sha256', secret).update(text).digest('base64url');
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function createVisitService(secret: Buffer, now: () => number) {
  const cookieValue = (channel: Channel) => hmac(secret, `visit:${channel.id}:${channel.passwordHash}`);

  return {
    cookieName: (channel: Channel) => `${VISIT_COOKIE_PREFIX}${channel.id}`,

    /** True when the channel has no visit password, or `cookie` proves it was given. */
    admits(channel: Channel, cookie: string | undefined): boolean {
      if (channel.passwordHash === null) return true;
      return cookie !== undefined && same(cookie, cookieValue(channel));
    },

    /** The cookie value for a correct password, or null for a wrong one. */
    async enter(channel: Channel, password: string): Promise<string | null> {
      if (channel.passwordHash === null) return cookieValue(channel);
      return (await verifyPassword(password, channel.passwordHash)) ? cookieValue(channel) : null;
    },

    /**
     * Query parameters that let anyone holding them fetch one release until `expiresAt` (ms), as long
     * as the channel's password stays the same.
     */
    signRelease(channel: Channel, releaseId: number, expiresAt: number): { exp: string; sig: string } {
      const exp = String(Math.floor(expiresAt / 1000));
      return { exp, sig: hmac(secret, `release:${releaseId}:${exp}:${channel.passwordHash}`) };
    },

    admitsSigned(channel: Channel, releaseId: number, exp: unknown, sig: unknown): boolean {
      if (typeof exp !== 'string' || typeof sig !== 'string' || !/^\d{1,12}$/.test(exp)) return false;
      if (Number(exp) * 1000 < now()) return false;
      return same(sig, hmac(secret, `release:${releaseId}:${exp}:${channel.passwordHash}`));
    },
  };
}

export type VisitService = ReturnType<typeof createVisitService>;
