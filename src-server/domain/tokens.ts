/**
 * Personal access tokens (R2): many per user, each named, shown once at creation, stored only as a
 * hash, listed, revoked, optionally expiring; `last_used_at` is kept (written at most once a minute
 * per token so that a polling client does not turn every read into a write).
 */
import { and, desc, eq } from 'drizzle-orm';
import { apiTokens, users } from '../storage/schema.ts';
import type { ApiToken, DomainContext, User } from './context.ts';
import { ForbiddenError, NotFoundError, UnauthorizedError } from './errors.ts';
import type { Actor } from './policy.ts';
import { hashToken, newTokenValue, tokenDisplayPrefix } from './secrets.ts';

const LAST_USED_RESOLUTION_MS = 60_000;

/** How a caller proved who they are: an API token, or a console session (sessions.ts). */
export type Credential = { kind: 'token'; id: number } | { kind: 'session'; id: number };

export interface Authenticated {
  actor: Actor;
  user: User;
  credential: Credential;
}

export function createTokenService(ctx: DomainContext) {
  const { db } = ctx;

  return {
    /** Resolves a token value to its user; 401 for unknown or expired tokens, 403 for locked users. */
    authenticate(value: string): Authenticated {
      const row = db
        .select({ token: apiTokens, user: users })
        .from(apiTokens)
        .innerJoin(users, eq(users.id, apiTokens.userId))
        .where(eq(apiTokens.tokenHash, hashToken(value)))
        .get();
      const now = ctx.now();
      if (!row) throw new UnauthorizedError();
      if (row.token.expiresAt !== null && row.token.expiresAt <= now) throw new UnauthorizedError('Token expired');
      if (row.user.lockedAt !== null) throw new ForbiddenError('User is locked');
      if (row.token.lastUsedAt === null || now - row.token.lastUsedAt >= LAST_USED_RESOLUTION_MS) {
        db.update(apiTokens).set({ lastUsedAt: now }).where(eq(apiTokens.id, row.token.id)).run();
      }
      return { actor: { userId: row.user.id, role: row.user.role }, user: row.user, credential: { kind: 'token', id: row.token.id } };
    },

    /**
     * The caller of a token again, for connections that outlive a request (event streams): null once
     * the token is revoked or expired or its user locked; the user's current role otherwise.
     */
    recheck(tokenId: number): Authenticated | null {
      const row = db.select({ token: apiTokens, user: users }).from(apiTokens).innerJoin(users, eq(users.id, apiTokens.userId)).where(eq(apiTokens.id, tokenId)).get();
      if (!row || row.user.lockedAt !== null || (row.token.expiresAt !== null && row.token.expiresAt <= ctx.now())) return null;
      return { actor: { userId: row.user.id, role: row.user.role }, user: row.user, credential: { kind: 'token', id: row.token.id } };
    },

    /** Creates a token; the returned value is the only time it is ever available. */
    create(userId: number, input: { name: string; expiresAt?: number | null; value?: string }): { token: ApiToken; value: string } {
      const value = input.value ?? newTokenValue();
      const token = db
        .insert(apiTokens)
        .values({
          userId,
          name: input.name.trim(),
          tokenHash: hashToken(value),
          prefix: tokenDisplayPrefix(value),
          expiresAt: input.expiresAt ?? null,
          createdAt: ctx.now(),
        })
        .returning()
        .get();
      return { token, value };
    },

    list(userId: number): ApiToken[] {
      return db.select().from(apiTokens).where(eq(apiTokens.userId, userId)).orderBy(desc(apiTokens.id)).all();
    },

    revoke(userId: number, tokenId: number): void {
      const result = db.delete(apiTokens).where(and(eq(apiTokens.id, tokenId), eq(apiTokens.userId, userId))).run();
      if (result.changes === 0) throw new NotFoundError('Token');
    },
  };
}

export type TokenService = ReturnType<typeof createTokenService>;
