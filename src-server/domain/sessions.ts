/**
 * Console sign-in from a browser (/console): a username or email and a password give a session,
 * held by an HttpOnly cookie; API tokens stay what scripts and the desktop app use.
 *
 * - The cookie value carries 256 random bits and is stored only as its SHA-256 (like tokens).
 * - A session lasts while it is used: each use moves its expiry IDLE_MS ahead (written at most once
 *   a minute), never beyond ABSOLUTE_MS after sign-in.
 * - Requests that change something must also send the session's CSRF token (an HMAC of the session
 *   with the installation's secret, so nothing more is stored): a page on another site can make the
 *   browser send the cookie, but cannot read the token.
 * - Wrong credentials, an unknown user and a user without a password all get the same answer, after
 *   the same scrypt work; a locked user is told so only once the password was right.
 */
import { and, eq, lt, ne } from 'drizzle-orm';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { sessions, users } from '../storage/schema.ts';
import type { DomainContext, User } from './context.ts';
import { ForbiddenError, UnauthorizedError } from './errors.ts';
import { hashPassword, hashToken, newTokenValue, verifyPassword } from './secrets.ts';
import type { Authenticated } from './tokens.ts';
import { identityKey } from './users.ts';

export const SESSION_COOKIE = 'hangar_session';
export const SESSION_IDLE_MS = 7 * 24 * 3600 * 1000;
export const SESSION_ABSOLUTE_MS = 30 * 24 * 3600 * 1000;
const LAST_SEEN_RESOLUTION_MS = 60_000;

export type Session = typeof sessions.$inferSelect;

export interface SignedIn {
  /** the cookie value: shown to the browser once, stored only hashed */
  value: string;
  session: Session;
  user: User;
  csrfToken: string;
}

export function createSessionService(ctx: DomainContext) {
  const { db } = ctx;
  /** scrypt work for a sign-in that has no password to check, so that it takes as long as one that has */
  const decoy = hashPassword('no such user');

  const csrfOf = (tokenHash: string) => createHmac('sha256', ctx.secret).update(`csrf:${tokenHash}`).digest('base64url');

  function find(value: string): { session: Session; user: User } | undefined {
    return db.select({ session: sessions, user: users }).from(sessions).innerJoin(users, eq(users.id, sessions.userId)).where(eq(sessions.tokenHash, hashToken(value))).get();
  }

  const service = {
    async signIn(login: string, password: string, userAgent: string | null): Promise<SignedIn> {
      const key = identityKey(login);
      const user = db.select().from(users).where(eq(key.includes('@') ? users.emailKey : users.usernameKey, key)).get();
      const ok = user?.passwordHash ? await verifyPassword(password, user.passwordHash) : (await verifyPassword(password, await decoy), false);
      if (!user || !ok) throw new UnauthorizedError('Wrong username or password');
      if (user.lockedAt !== null) throw new ForbiddenError('This account is locked');
      const now = ctx.now();
      // sessions that ran out are removed as new ones come: the table never grows without bound
      db.delete(sessions).where(lt(sessions.expiresAt, now)).run();
      const value = newTokenValue();
      const session = db
        .insert(sessions)
        .values({ userId: user.id, tokenHash: hashToken(value), userAgent: userAgent?.slice(0, 255) ?? null, createdAt: now, lastSeenAt: now, expiresAt: now + SESSION_IDLE_MS })
        .returning()
        .get();
      return { value, session, user, csrfToken: csrfOf(session.tokenHash) };
    },

    /** The caller of a session cookie; 401 for an unknown or expired session, 403 for a locked user. */
    authenticate(value: string): Authenticated & { session: Session } {
      const row = find(value);
      const now = ctx.now();
      if (!row || row.session.expiresAt <= now) throw new UnauthorizedError('Your session has ended; sign in again');
      if (row.user.lockedAt !== null) throw new ForbiddenError('User is locked');
      if (now - row.session.lastSeenAt >= LAST_SEEN_RESOLUTION_MS) {
        const expiresAt = Math.min(now + SESSION_IDLE_MS, row.session.createdAt + SESSION_ABSOLUTE_MS);
        db.update(sessions).set({ lastSeenAt: now, expiresAt }).where(eq(sessions.id, row.session.id)).run();
      }
      return { actor: { userId: row.user.id, role: row.user.role }, user: row.user, credential: { kind: 'session', id: row.session.id }, session: row.session };
    },

    /** The caller again, for connections that outlive a request (event streams); null once it ended. */
    recheck(sessionId: number): Authenticated | null {
      const row = db.select({ session: sessions, user: users }).from(sessions).innerJoin(users, eq(users.id, sessions.userId)).where(eq(sessions.id, sessionId)).get();
      if (!row || row.user.lockedAt !== null || row.session.expiresAt <= ctx.now()) return null;
      return { actor: { userId: row.user.id, role: row.user.role }, user: row.user, credential: { kind: 'session', id: row.session.id } };
    },

    /** The CSRF token of the session a cookie holds (a reloaded page asks for it again). */
    csrfTokenOf(cookieValue: string): string {
      return csrfOf(hashToken(cookieValue));
    },

    /** Is `given` the CSRF token of this session? (constant time) */
    checkCsrf(session: Session, given: string | undefined): boolean {
      if (!given) return false;
      const expected = Buffer.from(csrfOf(session.tokenHash));
      const actual = Buffer.from(given);
      return actual.length === expected.length && timingSafeEqual(actual, expected);
    },

    signOut(sessionId: number): void {
      db.delete(sessions).where(eq(sessions.id, sessionId)).run();
    },

    /** Ends every session of a user but `except` (after a password change). */
    signOutEverywhere(userId: number, except: number | null = null): void {
      const mine = eq(sessions.userId, userId);
      db.delete(sessions).where(except === null ? mine : and(mine, ne(sessions.id, except))).run();
    },
  };
  return service;
}

export type SessionService = ReturnType<typeof createSessionService>;
