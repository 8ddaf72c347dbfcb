/**
 * Apps: the top of the App > Scheme > Channel > Release tree. Rules owned here: the creator owns the
 * app and is its first admin collaborator; an archived app is read-only until unarchived; deleting an
 * app takes its schemes, channels, releases, debug files and their files on disk with it.
 */
import { and, desc, eq, inArray } from 'drizzle-orm';
import { apps, channels, collaborators, schemes, users } from '../storage/schema.ts';
import type { App, AppWithSchemes, Channel, CollaboratorWithUser, DomainContext, Page, SchemeWithChannels } from './context.ts';
import { cleanName, offsetOf } from './context.ts';
import { ConflictError, NotFoundError } from './errors.ts';
import type { Actor, AppStanding } from './policy.ts';
import { mayGlobally } from './policy.ts';

export const APP_SCOPES = ['all', 'active', 'archived'] as const;
export type AppScope = (typeof APP_SCOPES)[number];

export function createAppService(ctx: DomainContext) {
  const { db, files } = ctx;

  function find(id: number): App {
    const app = db.select().from(apps).where(eq(apps.id, id)).get();
    if (!app) throw new NotFoundError('App');
    return app;
  }

  /** Schemes (oldest first) with their channels (oldest first), for each of the given apps. */
  function schemesOf(appIds: number[]): Map<number, SchemeWithChannels[]> {
    const byApp = new Map<number, SchemeWithChannels[]>(appIds.map((id) => [id, []]));
    if (appIds.length === 0) return byApp;
    const schemeRows = db.select().from(schemes).where(inArray(schemes.appId, appIds)).orderBy(schemes.id).all();
    const channelsByScheme = channelsOf(schemeRows.map((s) => s.id));
    for (const scheme of schemeRows) {
      byApp.get(scheme.appId)!.push({ ...scheme, channels: channelsByScheme.get(scheme.id) ?? [] });
    }
    return byApp;
  }

  function channelsOf(schemeIds: number[]): Map<number, Channel[]> {
    const byScheme = new Map<number, Channel[]>();
    if (schemeIds.length === 0) return byScheme;
    for (const channel of db.select().from(channels).where(inArray(channels.schemeId, schemeIds)).orderBy(channels.id).all()) {
      const list = byScheme.get(channel.schemeId) ?? [];
      list.push(channel);
      byScheme.set(channel.schemeId, list);
    }
    return byScheme;
  }

  function withSchemes(rows: App[]): AppWithSchemes[] {
    const byApp = schemesOf(rows.map((a) => a.id));
    return rows.map((app) => ({ ...app, schemes: byApp.get(app.id) ?? [] }));
  }

  return {
    find,
    channelsOf,

    /** Schemes with channels of one app. */
    schemesWithChannels(appId: number): SchemeWithChannels[] {
      return schemesOf([appId]).get(appId) ?? [];
    },

    /** Newest first. Global admins and developers see every app, others the apps they collaborate on. */
    list(actor: Actor, options: Page & { scope: AppScope }): AppWithSchemes[] {
      const conditions = [];
      if (options.scope === 'active') conditions.push(eq(apps.archived, false));
      if (options.scope === 'archived') conditions.push(eq(apps.archived, true));
      if (!mayGlobally(actor, 'apps:see_all')) {
        conditions.push(
          inArray(apps.id, db.select({ id: collaborators.appId }).from(collaborators).where(eq(collaborators.userId, actor.userId))),
        );
      }
      const rows = db
        .select()
        .from(apps)
        .where(and(...conditions))
        .orderBy(desc(apps.createdAt), desc(apps.id))
        .limit(options.perPage)
        .offset(offsetOf(options))
        .all();
      return withSchemes(rows);
    },

    get(id: number): AppWithSchemes {
      return withSchemes([find(id)])[0]!;
    },

    /** The caller's standing on an app, for the policy. Throws NotFound for an unknown app. */
    standing(actor: Actor, appId: number): AppStanding {
      const app = find(appId);
      const membership = db
        .select({ role: collaborators.role })
        .from(collaborators)
        .where(and(eq(collaborators.appId, appId), eq(collaborators.userId, actor.userId)))
        .get();
      return { appRole: membership?.role ?? null, isOwner: app.ownerId === actor.userId };
    },

    collaborators(appId: number): CollaboratorWithUser[] {
      const app = find(appId);
      return db
        .select({ collaborator: collaborators, user: users })
        .from(collaborators)
        .innerJoin(users, eq(users.id, collaborators.userId))
        .where(eq(collaborators.appId, appId))
        .orderBy(collaborators.id)
        .all()
        .map((row) => ({ ...row, isOwner: row.user.id === app.ownerId }));
    },

    create(actor: Actor, input: { name: string }): AppWithSchemes {
      const now = ctx.now();
      const app = db.transaction((tx) => {
        const created = tx.insert(apps).values({ name: cleanName(input.name), ownerId: actor.userId, createdAt: now, updatedAt: now }).returning().get();
        tx.insert(collaborators).values({ appId: created.id, userId: actor.userId, role: 'admin', createdAt: now, updatedAt: now }).run();
        return created;
      });
      return { ...app, schemes: [] };
    },

    /** Rename and/or archive or unarchive. An archived app accepts only being unarchived (and renamed with it). */
    update(id: number, input: { name?: string | undefined; archived?: boolean | undefined }): AppWithSchemes {
      const app = find(id);
      if (app.archived && input.archived !== false) throw archivedError(app);
      db.update(apps)
        .set({ name: input.name === undefined ? undefined : cleanName(input.name), archived: input.archived, updatedAt: ctx.now() })
        .where(eq(apps.id, id))
        .run();
      return withSchemes([find(id)])[0]!;
    },

    /** Deletes the app and everything under it, rows first (one transaction), then its files. */
    async delete(id: number): Promise<void> {
      find(id);
      db.transaction((tx) => {
        const channelIds = tx
          .select({ id: channels.id })
          .from(channels)
          .innerJoin(schemes, eq(schemes.id, channels.schemeId))
          .where(eq(schemes.appId, id))
          .all()
          .map((c) => c.id);
        files.queueDeletion(tx, channelIds.map((cid) => files.channelDir(cid)), ctx.now());
        tx.delete(apps).where(eq(apps.id, id)).run();
      });
      await files.drainDeletions(db);
    },

    /** Throws 409 when the app is archived: schemes, channels and uploads of an archived app are frozen. */
    assertActive(appId: number): void {
      const app = find(appId);
      if (app.archived) throw archivedError(app);
    },
  };
}

function archivedError(app: App): ConflictError {
  return new ConflictError(`App ${app.name} is archived; unarchive it first`);
}

export type AppService = ReturnType<typeof createAppService>;
