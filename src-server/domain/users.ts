/**
 * Users: accounts with a global role. Rules owned here: usernames and emails are unique regardless
 * of case; there is always at least one unlocked admin (you cannot lock, demote or delete the last
 * one); nobody locks or deletes themselves.
 */
import { and, asc, count, eq, isNull, ne } from 'drizzle-orm';
import { users } from '../storage/schema.ts';
import type { GlobalRole } from '../storage/schema.ts';
import type { DomainContext, User } from './context.ts';
import { isUniqueViolation } from './context.ts';
import { ConflictError, NotFoundError, ValidationError } from './errors.ts';
import { hashPassword } from './secrets.ts';
import type { Appearance, Locale } from './user-settings.ts';

/**
 * What usernames and emails are compared by: compatibility-normalised (NFKC: a full-width "ａ" is an
 * "a") and lower-cased with Unicode rules, which SQLite's lower() lacks (it folds ASCII only).
 */
export function identityKey(value: string): string {
  return value.trim().normalize('NFKC').toLowerCase();
}

export interface UserInput {
  username: string;
  email: string;
  password?: string | undefined;
  role?: GlobalRole | undefined;
  locale?: Locale | undefined;
  appearance?: Appearance | undefined;
  timezone?: string | undefined;
}

export function createUserService(ctx: DomainContext) {
  const { db } = ctx;

  function find(id: number): User {
    const user = db.select().from(users).where(eq(users.id, id)).get();
    if (!user) throw new NotFoundError('User');
    return user;
  }

  function assertUnique(fields: { username?: string | undefined; email?: string | undefined }, exceptId?: number): void {
    const entry: Record<string, string[]> = {};
    const notSelf = exceptId === undefined ? undefined : ne(users.id, exceptId);
    if (fields.username !== undefined) {
      const taken = db.select({ id: users.id }).from(users).where(and(eq(users.usernameKey, identityKey(fields.username)), notSelf)).get();
      if (taken) entry.username = ['has already been taken'];
    }
    if (fields.email !== undefined) {
      const taken = db.select({ id: users.id }).from(users).where(and(eq(users.emailKey, identityKey(fields.email)), notSelf)).get();
      if (taken) entry.email = ['has already been taken'];
    }
    if (Object.keys(entry).length > 0) throw new ValidationError(entry);
  }

  /** Throws when the change would leave no unlocked admin. */
  function assertAnotherAdmin(user: User, action: string): void {
    if (user.role !== 'admin' || user.lockedAt !== null) return;
    const others = db.select({ n: count() }).from(users)
      .where(and(eq(users.role, 'admin'), isNull(users.lockedAt), ne(users.id, user.id))).get();
    if (!others || others.n === 0) throw new ConflictError(`Cannot ${action} the last admin`);
  }

  function insertOrUpdate<T>(write: () => T, fields: { username?: string | undefined; email?: string | undefined }): T {
    try {
      return write();
    } catch (error) {
      // Two requests racing past assertUnique: the unique index decides.
      if (isUniqueViolation(error)) {
        const entry: Record<string, string[]> = {};
        if (fields.username !== undefined) entry.username = ['has already been taken'];
        if (fields.email !== undefined) entry.email = ['has already been taken'];
        throw new ValidationError(entry);
      }
      throw error;
    }
  }

  return {
    find,

    list(): User[] {
      return db.select().from(users).orderBy(asc(users.id)).all();
    },

    findByUsername(username: string): User | undefined {
      return db.select().from(users).where(eq(users.usernameKey, identityKey(username))).get();
    },

    /** Exact, case-insensitive email match (R16): an array of zero or one user. */
    searchByEmail(email: string): User[] {
      return db.select().from(users).where(eq(users.emailKey, identityKey(email))).all();
    },

    count(): number {
      return db.select({ n: count() }).from(users).get()?.n ?? 0;
    },

    async create(input: UserInput): Promise<User> {
      const username = input.username.trim();
      const email = input.email.trim();
      assertUnique({ username, email });
      const passwordHash = input.password ? await hashPassword(input.password) : null;
      const now = ctx.now();
      return insertOrUpdate(
        () =>
          db.insert(users).values({
            username,
            email,
            usernameKey: identityKey(username),
            emailKey: identityKey(email),
            passwordHash,
            role: input.role ?? 'member',
            locale: input.locale ?? null,
            appearance: input.appearance ?? null,
            timezone: input.timezone ?? null,
            createdAt: now,
            updatedAt: now,
          }).returning().get(),
        { username, email },
      );
    },

    async update(id: number, input: Partial<UserInput>): Promise<User> {
      const user = find(id);
      const username = input.username?.trim();
      const email = input.email?.trim();
      assertUnique({ username, email }, id);
      if (input.role !== undefined && input.role !== 'admin') assertAnotherAdmin(user, 'demote');
      const passwordHash = input.password ? await hashPassword(input.password) : undefined;
      return insertOrUpdate(
        () =>
          db.update(users).set({
            username,
            email,
            usernameKey: username === undefined ? undefined : identityKey(username),
            emailKey: email === undefined ? undefined : identityKey(email),
            passwordHash,
            role: input.role,
            locale: input.locale,
            appearance: input.appearance,
            timezone: input.timezone,
            updatedAt: ctx.now(),
          }).where(eq(users.id, id)).returning().get()!,
        { username, email },
      );
    },

    delete(actorId: number, id: number): void {
      const user = find(id);
      if (user.id === actorId) throw new ConflictError('You cannot delete yourself');
      assertAnotherAdmin(user, 'delete');
      // Tokens and collaborations go with the user; apps they own stay, without an owner.
      db.delete(users).where(eq(users.id, id)).run();
    },

    lock(actorId: number, id: number): User {
      const user = find(id);
      if (user.id === actorId) throw new ConflictError('You cannot lock yourself');
      if (user.lockedAt !== null) return user;
      assertAnotherAdmin(user, 'lock');
      return db.update(users).set({ lockedAt: ctx.now(), updatedAt: ctx.now() }).where(eq(users.id, id)).returning().get()!;
    },

    unlock(id: number): User {
      const user = find(id);
      if (user.lockedAt === null) return user;
      return db.update(users).set({ lockedAt: null, updatedAt: ctx.now() }).where(eq(users.id, id)).returning().get()!;
    },
  };
}

export type UserService = ReturnType<typeof createUserService>;
