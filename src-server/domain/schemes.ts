/**
 * Schemes: build flavours of an app (Debug, AdHoc, Release...), each holding channels. Rules owned
 * here: `new_build_callout` defaults to on, `retained_builds` to 0 (keep all); an archived app's
 * schemes are frozen; deleting a scheme takes its channels, releases and their files.
 */
import { eq } from 'drizzle-orm';
import { channels, schemes } from '../storage/schema.ts';
import type { AppService } from './apps.ts';
import type { DomainContext, Scheme, SchemeWithChannels } from './context.ts';
import { cleanName } from './context.ts';
import { NotFoundError } from './errors.ts';

export interface SchemeInput {
  name: string;
  newBuildCallout?: boolean | undefined;
  retainedBuilds?: number | undefined;
}

export function createSchemeService(ctx: DomainContext, appService: AppService) {
  const { db, files } = ctx;

  function find(id: number): Scheme {
    const scheme = db.select().from(schemes).where(eq(schemes.id, id)).get();
    if (!scheme) throw new NotFoundError('Scheme');
    return scheme;
  }

  function withChannels(scheme: Scheme): SchemeWithChannels {
    return { ...scheme, channels: appService.channelsOf([scheme.id]).get(scheme.id) ?? [] };
  }

  return {
    find,
    get: (id: number) => withChannels(find(id)),

    listOfApp(appId: number): SchemeWithChannels[] {
      appService.find(appId);
      return appService.schemesWithChannels(appId);
    },

    create(appId: number, input: SchemeInput): SchemeWithChannels {
      appService.assertActive(appId);
      const now = ctx.now();
      const scheme = db
        .insert(schemes)
        .values({
          appId,
          name: cleanName(input.name),
          newBuildCallout: input.newBuildCallout ?? true,
          retainedBuilds: input.retainedBuilds ?? 0,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
        .get();
      return { ...scheme, channels: [] };
    },

    update(id: number, input: Partial<SchemeInput>): SchemeWithChannels {
      const scheme = find(id);
      appService.assertActive(scheme.appId);
      const updated = db
        .update(schemes)
        .set({
          name: input.name === undefined ? undefined : cleanName(input.name),
          newBuildCallout: input.newBuildCallout,
          retainedBuilds: input.retainedBuilds,
          updatedAt: ctx.now(),
        })
        .where(eq(schemes.id, id))
        .returning()
        .get()!;
      return withChannels(updated);
    },

    async delete(id: number): Promise<void> {
      const scheme = find(id);
      appService.assertActive(scheme.appId);
      db.transaction((tx) => {
        const channelIds = tx.select({ id: channels.id }).from(channels).where(eq(channels.schemeId, id)).all();
        files.queueDeletion(tx, channelIds.map((c) => files.channelDir(c.id)), ctx.now());
        tx.delete(schemes).where(eq(schemes.id, id)).run();
      });
      await files.drainDeletions(db);
    },
  };
}

export type SchemeService = ReturnType<typeof createSchemeService>;
