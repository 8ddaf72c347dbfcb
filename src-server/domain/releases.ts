/**
 * Releases: the builds of a channel. Rules owned here:
 * - `version` is the channel's next sequence number, taken inside the transaction that records the
 *   release: never reused (also not after deletes), distinct for concurrent uploads (R10);
 * - the binary is moved into place inside that same transaction (a crash leaves at most an orphan
 *   file, which the start-up sweep removes; never a row without its file);
 * - "newer than the caller" is release_version >= theirs and build_version > theirs, compared as
 *   versions (R12);
 * - `retained_builds` N > 0 keeps each channel of the scheme at its N newest releases (R13);
 * - an iOS release is "provisioned for" a device when the profile embedded in its build lists the
 *   device's UDID (ad hoc and development profiles), or provisions every device (enterprise, in-house
 *   profiles): those are listed too, marked as such, since the device can install them as well.
 */
import { and, asc, desc, eq, gt, gte, inArray, sql } from 'drizzle-orm';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AppMetadata } from '../parsers/types.ts';
import { channels, releases, schemes } from '../storage/schema.ts';
import type { DeviceType } from '../storage/schema.ts';
import { cleanBranch, parseChangelog, parseCustomFields, type ChangelogEntry } from './changelog.ts';
import type { AppService } from './apps.ts';
import type { ChannelService } from './channels.ts';
import type { DomainContext, Page, Release } from './context.ts';
import { offsetOf } from './context.ts';
import { normalizeUdid } from './devices.ts';
import { NotFoundError } from './errors.ts';
import { versionKey } from './versions.ts';

export const PLATFORM_NAMES: Record<DeviceType, string> = {
  ios: 'iOS',
  android: 'Android',
  harmonyos: 'HarmonyOS',
  macos: 'macOS',
  windows: 'Windows',
  linux: 'Linux',
};

/** What an uploader may say about a build, beyond the binary itself (R10). */
export interface ReleaseFields {
  name?: string | undefined;
  releaseType?: string | undefined;
  source?: string | undefined;
  changelog?: string | unknown[] | undefined;
  branch?: string | undefined;
  gitCommit?: string | undefined;
  ciUrl?: string | undefined;
  customFields?: string | unknown[] | undefined;
}

export interface StoredBinary {
  tempPath: string;
  /** the uploader's file name (base name) */
  fileName: string;
  /** the extension it was read as, e.g. ".ipa", ".app.zip" */
  extension: string;
  size: number;
  sha256: string;
}

/** The stored metadata of a release (everything the reader found but the icon bytes). */
export type ReleaseMetadata = Omit<AppMetadata, 'icon' | 'bundleId' | 'releaseVersion' | 'buildVersion' | 'displayName' | 'platform'>;

/** A release whose provisioning profile lets a device install it. */
export interface ProvisionedRelease {
  release: Release;
  /** true for an enterprise profile, which provisions every device rather than listing this one */
  allDevices: boolean;
}

export function changelogOf(release: Release): ChangelogEntry[] {
  return JSON.parse(release.changelog) as ChangelogEntry[];
}

export function createReleaseService(ctx: DomainContext, services: { apps: AppService; channels: ChannelService }) {
  const { db, files } = ctx;
  const { apps, channels: channelService } = services;

  /** The app of a release, which must be active for the release to change. */
  function activeAppOf(release: Release): number {
    const appId = channelService.appIdOf(channelService.find(release.channelId));
    apps.assertActive(appId);
    return appId;
  }

  function find(id: number): Release {
    const release = db.select().from(releases).where(eq(releases.id, id)).get();
    if (!release) throw new NotFoundError('Release');
    return release;
  }

  /** Deletes releases (rows in one transaction, then their files); returns them. */
  async function remove(rows: Release[]): Promise<Release[]> {
    if (rows.length === 0) return [];
    db.transaction((tx) => {
      files.queueDeletion(tx, rows.map((r) => files.releaseDir(r.channelId, r.id)), ctx.now());
      tx.delete(releases).where(inArray(releases.id, rows.map((r) => r.id))).run();
    });
    await files.drainDeletions(db);
    return rows;
  }

  /** Takes the next version, inserts the row, moves the file and writes the icon: one transaction. */
  function recordInTransaction(channelId: number, metadata: AppMetadata, fields: ReleaseFields, binary: StoredBinary, placed: string[]): Release {
    return db.transaction((tx) => {
        const channel = tx.select().from(channels).where(eq(channels.id, channelId)).get();
        if (!channel) throw new NotFoundError('Channel');
        const version = channel.nextReleaseVersion;
        tx.update(channels).set({ nextReleaseVersion: version + 1 }).where(eq(channels.id, channelId)).run();
        const { icon, bundleId, releaseVersion, buildVersion, displayName, platform, ...rest } = metadata;
        const now = ctx.now();
        const row = tx
          .insert(releases)
          .values({
            channelId,
            version,
            appName: fields.name?.trim() || displayName,
            bundleId,
            releaseVersion,
            buildVersion,
            releaseVersionKey: versionKey(releaseVersion),
            buildVersionKey: versionKey(buildVersion),
            releaseType: fields.releaseType?.trim() || metadata.releaseType,
            source: fields.source?.trim() || 'api',
            branch: cleanBranch(fields.branch),
            gitCommit: fields.gitCommit?.trim() || null,
            ciUrl: fields.ciUrl?.trim() || null,
            platform: PLATFORM_NAMES[platform],
            deviceType: platform,
            changelog: JSON.stringify(parseChangelog(fields.changelog)),
            customFields: parseCustomFields(fields.customFields),
            metadata: JSON.stringify(rest satisfies ReleaseMetadata),
            filePath: '',
            fileName: binary.fileName,
            size: binary.size,
            sha256: binary.sha256,
            createdAt: now,
            updatedAt: now,
          })
          .returning()
          .get();
        const dir = files.releaseDir(channelId, row.id);
        const filePath = join(dir, `release${binary.extension.replace(/[^a-z0-9.]/g, '')}`);
        placed.push(dir);
        files.moveIntoPlace(binary.tempPath, filePath);
        let iconPath: string | null = null;
        if (icon) {
          iconPath = join(dir, 'icon.png');
          writeFileSync(files.resolve(iconPath), icon);
        }
        return tx.update(releases).set({ filePath, iconPath }).where(eq(releases.id, row.id)).returning().get()!;
      });
  }

  return {
    find,

    /** A channel's releases, newest (highest version) first. */
    listOfChannel(channelId: number, page: Page): Release[] {
      return db.select().from(releases).where(eq(releases.channelId, channelId)).orderBy(desc(releases.version)).limit(page.perPage).offset(offsetOf(page)).all();
    },

    newest(channelId: number, bundleId?: string): Release | undefined {
      return db
        .select()
        .from(releases)
        .where(and(eq(releases.channelId, channelId), bundleId ? eq(releases.bundleId, bundleId) : undefined))
        .orderBy(desc(releases.version))
        .limit(1)
        .get();
    },

    /** Releases newer than the caller's build (R12), newest first. */
    newerThan(channelId: number, releaseVersion: string, buildVersion: string, bundleId?: string): Release[] {
      return db
        .select()
        .from(releases)
        .where(
          and(
            eq(releases.channelId, channelId),
            gte(releases.releaseVersionKey, versionKey(releaseVersion)),
            gt(releases.buildVersionKey, versionKey(buildVersion)),
            bundleId ? eq(releases.bundleId, bundleId) : undefined,
          ),
        )
        .orderBy(desc(releases.version))
        .all();
    },

    /**
     * iOS releases whose embedded profile provisions the device with this UDID, newest first. The
     * profile's facts are in the metadata JSON (`provisioning.devices`, `provisioning.provisionsAllDevices`);
     * the UDIDs in a profile may be in either case.
     */
    provisionedFor(udid: string, limit: number): ProvisionedRelease[] {
      const allDevices = sql<number>`coalesce(json_extract(${releases.metadata}, '$.provisioning.provisionsAllDevices'), 0)`;
      const listed = sql`exists (select 1 from json_each(${releases.metadata}, '$.provisioning.devices') where upper(json_each.value) = ${normalizeUdid(udid)})`;
      return db
        .select({ release: releases, allDevices })
        .from(releases)
        .where(and(eq(releases.deviceType, 'ios'), sql`(${allDevices} = 1 or ${listed})`))
        .orderBy(desc(releases.createdAt), desc(releases.id))
        .limit(limit)
        .all()
        .map((row) => ({ release: row.release, allDevices: row.allDevices === 1 }));
    },

    /** version_exist (R12): by bundle id and versions, or by bundle id and commit. */
    findExisting(channelId: number, query: { bundleId: string; releaseVersion?: string; buildVersion?: string; gitCommit?: string }): Release | undefined {
      const byCommit = query.gitCommit !== undefined;
      return db
        .select()
        .from(releases)
        .where(
          and(
            eq(releases.channelId, channelId),
            eq(releases.bundleId, query.bundleId),
            byCommit ? eq(releases.gitCommit, query.gitCommit!) : eq(releases.releaseVersion, query.releaseVersion!),
            byCommit ? undefined : eq(releases.buildVersion, query.buildVersion!),
          ),
        )
        .orderBy(desc(releases.version))
        .limit(1)
        .get();
    },

    /**
     * Records a release of `channelId` from a parsed binary at `binary.tempPath`: takes the next
     * version, inserts the row, moves the file and writes the icon, all in one transaction. Call it
     * inside a transaction of your own to create other rows (a new app) together with it.
     */
    record(channelId: number, metadata: AppMetadata, fields: ReleaseFields, binary: StoredBinary, placed: string[] = []): Release {
      // `placed` collects the release directory as soon as the file is moved into it: when anything
      // after that fails (this transaction or, for a new app, the caller's), the directory is removed
      // before the error goes on, so a failed upload leaves no file behind.
      const firstPlaced = placed.length;
      try {
        return recordInTransaction(channelId, metadata, fields, binary, placed);
      } catch (error) {
        for (const dir of placed.splice(firstPlaced)) rmSync(files.resolve(dir), { recursive: true, force: true });
        throw error;
      }
    },


    /** Changes what an uploader said about a build (PUT/PATCH /api/releases/:id). */
    update(id: number, fields: ReleaseFields & { releaseVersion?: string | undefined; buildVersion?: string | undefined }): Release {
      const release = find(id);
      const appId = activeAppOf(release);
      const changelog = fields.changelog === undefined ? undefined : JSON.stringify(parseChangelog(fields.changelog));
      const updated = db
        .update(releases)
        .set({
          releaseVersion: fields.releaseVersion,
          buildVersion: fields.buildVersion,
          releaseVersionKey: fields.releaseVersion === undefined ? undefined : versionKey(fields.releaseVersion),
          buildVersionKey: fields.buildVersion === undefined ? undefined : versionKey(fields.buildVersion),
          releaseType: fields.releaseType,
          source: fields.source,
          changelog,
          branch: fields.branch === undefined ? undefined : cleanBranch(fields.branch),
          gitCommit: fields.gitCommit,
          ciUrl: fields.ciUrl,
          customFields: fields.customFields === undefined ? undefined : parseCustomFields(fields.customFields),
          updatedAt: ctx.now(),
        })
        .where(eq(releases.id, id))
        .returning()
        .get()!;
      const changelogChanged = changelog !== undefined && changelog !== release.changelog;
      ctx.events.emit({ type: 'release.updated', appId, channelId: updated.channelId, releaseId: id, changelogChanged });
      return updated;
    },

    async delete(id: number): Promise<Release> {
      const release = find(id);
      const appId = activeAppOf(release);
      await remove([release]);
      ctx.events.emit({ type: 'release.deleted', appId, channelId: release.channelId, releaseId: id, reason: 'request' });
      return release;
    },

    /** R13: each channel of the scheme keeps its `retained_builds` newest releases. Returns those removed. */
    async applyRetention(schemeId: number): Promise<Release[]> {
      const scheme = db.select().from(schemes).where(eq(schemes.id, schemeId)).get();
      if (!scheme || scheme.retainedBuilds <= 0) return [];
      const channelIds = db.select({ id: channels.id }).from(channels).where(eq(channels.schemeId, schemeId)).orderBy(asc(channels.id)).all();
      const doomed: Release[] = [];
      for (const { id } of channelIds) {
        // (drizzle drops a negative LIMIT, and SQLite refuses OFFSET without one: slice here instead)
        doomed.push(...db.select().from(releases).where(eq(releases.channelId, id)).orderBy(desc(releases.version)).all().slice(scheme.retainedBuilds));
      }
      return remove(doomed);
    },

  };
}

export type ReleaseService = ReturnType<typeof createReleaseService>;
