/**
 * Channels: where releases are uploaded and from where devices install (R14). Rules owned here:
 * - `slug` names the channel's device pages (`/<slug>`): random when not given, or given empty;
 *   unique; url-safe; never one of the server's own top-level paths;
 * - `key` (the `channel_key` of uploads and client endpoints) is random, 128 bits, and changes only
 *   when regenerated on request;
 * - the visit password is stored as a salted hash; an empty password on update clears it;
 * - an archived app's channels are frozen; deleting a channel takes its releases and files.
 */
import { eq, sql } from 'drizzle-orm';
import { channels } from '../storage/schema.ts';
import type { DeviceType, DownloadFilenameType } from '../storage/schema.ts';
import type { AppService } from './apps.ts';
import type { Channel, DomainContext } from './context.ts';
import { cleanName, isUniqueViolation } from './context.ts';
import { NotFoundError, ValidationError } from './errors.ts';
import type { SchemeService } from './schemes.ts';
import { hashPassword, newChannelKey, newSlug } from './secrets.ts';

/** Top-level paths of the server that a channel slug must not shadow (device pages live at `/<slug>`). */
export const RESERVED_SLUGS = new Set([
  'api', 'apps', 'assets', 'ca', 'channels', 'console', 'debug_files', 'docs', 'download', 'downloads', 'favicon',
  'health', 'install', 'login', 'logout', 'manifest', 'qrcode', 'releases', 'robots', 'settings', 'static', 'udid',
  'uploads', 'well-known',
]);

/** Slugs are unique regardless of case (the unique index is on lower(slug)). */
function slugIs(slug: string) {
  return sql`lower(${channels.slug}) = lower(${slug})`;
}

export interface ChannelInput {
  name: string;
  deviceType: DeviceType;
  /** undefined: keep (update) or random (create); '': random */
  slug?: string | undefined;
  bundleId?: string | undefined;
  gitUrl?: string | null | undefined;
  /** undefined: keep; '': no password */
  password?: string | undefined;
  downloadFilenameType?: DownloadFilenameType | undefined;
}

export function createChannelService(ctx: DomainContext, appService: AppService, schemeService: SchemeService) {
  const { db, files } = ctx;

  function find(id: number): Channel {
    const channel = db.select().from(channels).where(eq(channels.id, id)).get();
    if (!channel) throw new NotFoundError('Channel');
    return channel;
  }

  function appIdOf(channel: Channel): number {
    return schemeService.find(channel.schemeId).appId;
  }

  function checkSlug(slug: string, exceptId?: number): void {
    if (RESERVED_SLUGS.has(slug.toLowerCase())) throw ValidationError.field('slug', 'is reserved');
    const taken = db.select({ id: channels.id }).from(channels).where(slugIs(slug)).get();
    if (taken && taken.id !== exceptId) throw ValidationError.field('slug', 'has already been taken');
  }

  function freeRandomSlug(): string {
    for (;;) {
      const slug = newSlug();
      if (!db.select({ id: channels.id }).from(channels).where(slugIs(slug)).get()) return slug;
    }
  }

  /** Runs a write; a UNIQUE failure on slug (two requests racing for one) becomes a 422. */
  function write<T>(run: () => T): T {
    try {
      return run();
    } catch (error) {
      if (isUniqueViolation(error) && /channels_slug_unique|channels\.slug/.test(String((error as Error).message))) {
        throw ValidationError.field('slug', 'has already been taken');
      }
      throw error;
    }
  }

  async function passwordHashFor(password: string | undefined): Promise<string | null | undefined> {
    if (password === undefined) return undefined;
    return password === '' ? null : hashPassword(password);
  }

  return {
    find,
    appIdOf,

    findByKey(key: string): Channel | undefined {
      return db.select().from(channels).where(eq(channels.key, key)).get();
    },

    /** Slugs are matched regardless of case: a tester may type one from a screen. */
    findBySlug(slug: string): Channel | undefined {
      return db.select().from(channels).where(slugIs(slug)).get();
    },

    listOfScheme(schemeId: number): Channel[] {
      schemeService.find(schemeId);
      return db.select().from(channels).where(eq(channels.schemeId, schemeId)).orderBy(channels.id).all();
    },

    async create(schemeId: number, input: ChannelInput): Promise<Channel> {
      return this.insert(schemeId, input, (await passwordHashFor(input.password)) ?? null);
    },

    /** Creates a channel whose password (if any) is already hashed: synchronous, for use inside a transaction. */
    insert(schemeId: number, input: Omit<ChannelInput, 'password'>, passwordHash: string | null): Channel {
      const scheme = schemeService.find(schemeId);
      appService.assertActive(scheme.appId);
      const slug = input.slug ? input.slug : freeRandomSlug();
      if (input.slug) checkSlug(slug);
      const now = ctx.now();
      return write(() =>
        db
          .insert(channels)
          .values({
            schemeId,
            name: cleanName(input.name),
            slug,
            key: newChannelKey(),
            deviceType: input.deviceType,
            bundleId: input.bundleId?.trim() || '*',
            gitUrl: input.gitUrl?.trim() || null,
            passwordHash,
            downloadFilenameType: input.downloadFilenameType ?? 'version_datetime',
            createdAt: now,
            updatedAt: now,
          })
          .returning()
          .get(),
      );
    },

    async update(id: number, input: Partial<ChannelInput>): Promise<Channel> {
      const channel = find(id);
      appService.assertActive(appIdOf(channel));
      let slug: string | undefined;
      if (input.slug === '') slug = freeRandomSlug();
      else if (input.slug !== undefined && input.slug !== channel.slug) {
        checkSlug(input.slug, id);
        slug = input.slug;
      }
      const passwordHash = await passwordHashFor(input.password);
      return write(
        () =>
          db
            .update(channels)
            .set({
              name: input.name === undefined ? undefined : cleanName(input.name),
              slug,
              deviceType: input.deviceType,
              bundleId: input.bundleId === undefined ? undefined : input.bundleId.trim() || '*',
              gitUrl: input.gitUrl === undefined ? undefined : input.gitUrl?.trim() || null,
              passwordHash,
              downloadFilenameType: input.downloadFilenameType,
              updatedAt: ctx.now(),
            })
            .where(eq(channels.id, id))
            .returning()
            .get()!,
      );
    },

    /** Sets (a hash from secrets.hashPassword) or, with null, clears the visit password; synchronous. */
    setPasswordHash(id: number, passwordHash: string | null): Channel {
      return db.update(channels).set({ passwordHash, updatedAt: ctx.now() }).where(eq(channels.id, id)).returning().get()!;
    },

    /** A new channel key; the old one stops working at once. */
    regenerateKey(id: number): Channel {
      const channel = find(id);
      appService.assertActive(appIdOf(channel));
      return db.update(channels).set({ key: newChannelKey(), updatedAt: ctx.now() }).where(eq(channels.id, id)).returning().get()!;
    },

    async delete(id: number): Promise<void> {
      const channel = find(id);
      appService.assertActive(appIdOf(channel));
      db.transaction((tx) => {
        files.queueDeletion(tx, [files.channelDir(id)], ctx.now());
        tx.delete(channels).where(eq(channels.id, id)).run();
      });
      await files.drainDeletions(db);
    },
  };
}

export type ChannelService = ReturnType<typeof createChannelService>;
