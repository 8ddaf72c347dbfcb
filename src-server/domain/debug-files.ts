/**
 * Debug files (R15): the symbols of a build (zipped dSYM bundles, or an Android mapping archive),
 * stored per channel for crash symbolication. Rules owned here:
 * - uploading, replacing and deleting need the manage right on the channel's app (which must not be
 *   archived); reading one by id needs the read right; the list and the download need only the
 *   channel key (R2);
 * - the archive must be of the channel's platform: dSYM bundles for iOS and macOS, mapping files for
 *   Android; and of the channel's bundle id, unless it takes any (`*`);
 * - a channel never holds the same zip twice (422 `entry.checksum`), checked before the zip is read;
 * - versions: of a dSYM, from its app bundle's Info.plist (the form's stand in only where it has
 *   none); of an Android archive, from the form, where they are required;
 * - the zip is moved into place inside the transaction that records it, into a directory of its own
 *   per upload: a replace removes the file it supersedes only once the new one is committed;
 * - the download picks a file by versions, or the latest by version or upload order, and hands out
 *   a signed link to it that stays good for an hour.
 */
import { and, asc, desc, eq, inArray, ne, type SQL } from 'drizzle-orm';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readDebugArchive, type ArchiveLimits, type DebugArchive } from '../parsers/debug-archive.ts';
import { mainBundle, type DsymBundle } from '../parsers/dsym.ts';
import { debugFileMetadata, debugFiles, type DeviceType } from '../storage/schema.ts';
import type { AppService } from './apps.ts';
import type { ChannelService } from './channels.ts';
import type { Channel, DebugFile, DomainContext, Page } from './context.ts';
import { isUniqueViolation, offsetOf } from './context.ts';
import { ForbiddenError, NotFoundError, ValidationError } from './errors.ts';
import type { Actor, AppAction } from './policy.ts';
import { mayOnApp } from './policy.ts';
import { UNKNOWN_CHANNEL_KEY } from './uploads.ts';
import { versionKey } from './versions.ts';

export type DebugFileMetadatum = typeof debugFileMetadata.$inferSelect;

/** A debug file with what the API shows of it. */
export interface DebugFileView {
  file: DebugFile;
  metadata: DebugFileMetadatum[];
  appName: string;
}

/** The zip of an upload, streamed to a temporary file (routes/debug-files.ts). */
export interface StoredArchive {
  tempPath: string;
  /** the uploader's file name (base name) */
  fileName: string;
  size: number;
  sha256: string;
}

/** What the uploader says besides the zip: versions, needed for Android archives only. */
export interface DebugFileForm {
  releaseVersion?: string | undefined;
  buildVersion?: string | undefined;
}

export const DOWNLOAD_ORDERS = ['version', 'upload_date'] as const;
export type DownloadOrder = (typeof DOWNLOAD_ORDERS)[number];

export interface DownloadQuery {
  /** a release version, or `latest` */
  releaseVersion: string;
  buildVersion?: string | undefined;
  order: DownloadOrder;
}

/** The platforms whose channels take each kind of archive. */
const PLATFORMS_OF: Record<DebugArchive['kind'], DeviceType[]> = { dsym: ['ios', 'macos'], proguard: ['android'] };
const KIND_NAMES: Record<DebugArchive['kind'], string> = { dsym: 'a dSYM archive', proguard: 'an Android mapping archive' };
/** The name of the stored zip in its directory (the uploader's name is kept in the row). */
const STORED_NAME = 'symbols.zip';
const SIGNED_LINK_TTL_MS = 3600 * 1000;

type NewMetadatum = Omit<typeof debugFileMetadata.$inferInsert, 'debugFileId' | 'createdAt' | 'updatedAt'>;

/** One metadata row per Mach-O slice, or one for an Android archive (R15). */
function metadataOf(archive: DebugArchive, main: DsymBundle | null): NewMetadatum[] {
  if (archive.kind === 'proguard') {
    const manifest = archive.packageName === null ? {} : { package_name: archive.packageName, version_name: archive.versionName, version_code: archive.versionCode };
    return [
      {
        uuid: archive.uuid,
        type: 'proguard',
        object: archive.packageName,
        size: archive.files.reduce((sum, f) => sum + f.size, 0),
        data: JSON.stringify({ files: archive.files, ...manifest }),
      },
    ];
  }
  return archive.bundles.flatMap((bundle) =>
    bundle.objects.flatMap((object) =>
      object.slices.map((slice) => ({
        uuid: slice.uuid,
        type: slice.arch,
        object: object.name,
        size: slice.size,
        data: JSON.stringify({ main: bundle === main, identifier: bundle.bundleId }),
      })),
    ),
  );
}

function hmac(secret: Buffer, text: string): string {
  return createHmac('sha256', secret).update(text).digest('base64url');
}

export function createDebugFileService(ctx: DomainContext, services: { apps: AppService; channels: ChannelService }) {
  const { db, files } = ctx;
  const { apps, channels } = services;

  function find(id: number): DebugFile {
    const file = db.select().from(debugFiles).where(eq(debugFiles.id, id)).get();
    if (!file) throw new NotFoundError('Debug file');
    return file;
  }

  /** The channel a `channel_key` names: 422 "Unauthorized channel key" when none does (R2). */
  function channelByKey(key: string | undefined): Channel {
    const channel = key ? channels.findByKey(key) : undefined;
    if (!channel) throw new ValidationError({ channel_key: ['is not a known channel key'] }, UNKNOWN_CHANNEL_KEY);
    return channel;
  }

  /** 403 unless the caller may do `action` on the channel's app; writes also need it not archived. */
  function authorize(actor: Actor, channel: Channel, action: AppAction): void {
    const appId = channels.appIdOf(channel);
    if (!mayOnApp(actor, action, apps.standing(actor, appId))) throw new ForbiddenError();
    if (action !== 'read') apps.assertActive(appId);
  }

  /** A debug file by id, for `action`; a `channel_key`, when given, must be its channel's. */
  function fileFor(actor: Actor, id: number, action: AppAction, channelKey: string | undefined): { file: DebugFile; channel: Channel } {
    const file = find(id);
    if (channelKey !== undefined && channelByKey(channelKey).id !== file.channelId) throw new NotFoundError('Debug file');
    const channel = channels.find(file.channelId);
    authorize(actor, channel, action);
    return { file, channel };
  }

  function views(rows: DebugFile[], channel: Channel): DebugFileView[] {
    if (rows.length === 0) return [];
    const appName = apps.find(channels.appIdOf(channel)).name;
    const metadata = db
      .select()
      .from(debugFileMetadata)
      .where(inArray(debugFileMetadata.debugFileId, rows.map((r) => r.id)))
      .orderBy(asc(debugFileMetadata.id))
      .all();
    return rows.map((file) => ({ file, appName, metadata: metadata.filter((m) => m.debugFileId === file.id) }));
  }

  /** 422 `entry.checksum` when the channel holds this zip already (as another debug file than `exceptId`). */
  function assertNew(channelId: number, sha256: string, exceptId?: number): void {
    const taken = db
      .select({ id: debugFiles.id })
      .from(debugFiles)
      .where(and(eq(debugFiles.channelId, channelId), eq(debugFiles.sha256, sha256), exceptId === undefined ? undefined : ne(debugFiles.id, exceptId)))
      .get();
    if (taken) throw ValidationError.field('checksum', 'has already been taken');
  }

  /** Reads the zip and checks it fits the channel; returns its metadata rows and versions. */
  async function readFor(channel: Channel, archive: StoredArchive, form: DebugFileForm, limits: ArchiveLimits) {
    const parsed = await readDebugArchive(archive.tempPath, limits);
    if (!PLATFORMS_OF[parsed.kind].includes(channel.deviceType)) {
      throw ValidationError.field('device_type', `is ${KIND_NAMES[parsed.kind]} but the channel takes ${channel.deviceType} builds`);
    }
    const wanted = channel.bundleId === '*' ? null : channel.bundleId;
    let main: DsymBundle | null = null;
    if (parsed.kind === 'dsym') {
      main = mainBundle(parsed.bundles, wanted);
      if (!main) throw ValidationError.field('bundle_id', `is ${parsed.bundles.map((b) => b.bundleId ?? '(none)').join(', ')} but the channel takes ${wanted}`);
    } else if (wanted !== null && parsed.packageName !== null && parsed.packageName !== wanted) {
      throw ValidationError.field('bundle_id', `is ${parsed.packageName} but the channel takes ${wanted}`);
    }
    const releaseVersion = main?.releaseVersion ?? form.releaseVersion?.trim();
    const buildVersion = main?.buildVersion ?? form.buildVersion?.trim();
    if (!releaseVersion || !buildVersion) {
      const entry: Record<string, string[]> = {};
      if (!releaseVersion) entry.release_version = ["can't be blank"];
      if (!buildVersion) entry.build_version = ["can't be blank"];
      throw new ValidationError(entry);
    }
    return { metadata: metadataOf(parsed, main), releaseVersion, buildVersion };
  }

  /**
   * Records the zip as the debug file `existing` (a replace) or as a new one of `channel`, with its
   * metadata, and moves it into place: one transaction. Returns the row.
   */
  function record(channel: Channel, archive: StoredArchive, read: Awaited<ReturnType<typeof readFor>>, existing: DebugFile | null): DebugFile {
    const placed: string[] = [];
    try {
      return db.transaction((tx) => {
        const now = ctx.now();
        const values = {
          releaseVersion: read.releaseVersion,
          buildVersion: read.buildVersion,
          releaseVersionKey: versionKey(read.releaseVersion),
          buildVersionKey: versionKey(read.buildVersion),
          fileName: archive.fileName,
          size: archive.size,
          sha256: archive.sha256,
          updatedAt: now,
        };
        let row: DebugFile;
        if (existing) {
          row = tx.update(debugFiles).set(values).where(eq(debugFiles.id, existing.id)).returning().get()!;
          tx.delete(debugFileMetadata).where(eq(debugFileMetadata.debugFileId, row.id)).run();
          files.queueDeletion(tx, [dirname(existing.filePath)], now);
        } else {
          row = tx.insert(debugFiles).values({ ...values, channelId: channel.id, deviceType: channel.deviceType, filePath: '', createdAt: now }).returning().get();
        }
        tx.insert(debugFileMetadata)
          .values(read.metadata.map((m) => ({ ...m, debugFileId: row.id, createdAt: now, updatedAt: now })))
          .run();
        // a directory per upload: the file a replace supersedes stays where its row names it until commit
        const dir = join(files.debugFileDir(channel.id, row.id), randomBytes(8).toString('hex'));
        const filePath = join(dir, STORED_NAME);
        placed.push(existing ? dir : files.debugFileDir(channel.id, row.id));
        files.moveIntoPlace(archive.tempPath, filePath);
        return tx.update(debugFiles).set({ filePath }).where(eq(debugFiles.id, row.id)).returning().get()!;
      });
    } catch (error) {
      // the transaction (or its commit) failed after the file was moved: take it away again
      for (const dir of placed) rmSync(files.resolve(dir), { recursive: true, force: true });
      if (isUniqueViolation(error)) throw ValidationError.field('checksum', 'has already been taken');
      throw error;
    }
  }

  const signature = (file: DebugFile, exp: string) => hmac(ctx.secret, `debug-file:${file.id}:${file.sha256}:${exp}`);

  return {
    find,
    channelByKey,

    /** A channel's debug files, newest first (R8). */
    list(channel: Channel, page: Page): DebugFileView[] {
      const rows = db
        .select()
        .from(debugFiles)
        .where(eq(debugFiles.channelId, channel.id))
        .orderBy(desc(debugFiles.createdAt), desc(debugFiles.id))
        .limit(page.perPage)
        .offset(offsetOf(page))
        .all();
      return views(rows, channel);
    },

    get(actor: Actor, id: number, channelKey: string | undefined): DebugFileView {
      const { file, channel } = fileFor(actor, id, 'read', channelKey);
      return views([file], channel)[0]!;
    },

    /** Stores the zip at `archive.tempPath` as a new debug file; the temporary file is moved, or left for the caller. */
    async upload(actor: Actor, channelKey: string | undefined, form: DebugFileForm, archive: StoredArchive, limits: ArchiveLimits): Promise<DebugFileView> {
      const channel = channelByKey(channelKey);
      authorize(actor, channel, 'manage');
      assertNew(channel.id, archive.sha256);
      const read = await readFor(channel, archive, form, limits);
      return views([record(channel, archive, read, null)], channel)[0]!;
    },

    /** Replaces a debug file's zip, and with it its versions and metadata. */
    async replace(actor: Actor, id: number, channelKey: string | undefined, form: DebugFileForm, archive: StoredArchive, limits: ArchiveLimits): Promise<DebugFileView> {
      const { file, channel } = fileFor(actor, id, 'manage', channelKey);
      assertNew(channel.id, archive.sha256, file.id);
      const read = await readFor(channel, archive, form, limits);
      const replaced = record(channel, archive, read, file);
      await files.drainDeletions(db);
      return views([replaced], channel)[0]!;
    },

    /** Deletes a debug file, rows first, then its files. */
    async delete(actor: Actor, id: number, channelKey: string | undefined): Promise<void> {
      const { file, channel } = fileFor(actor, id, 'manage', channelKey);
      db.transaction((tx) => {
        files.queueDeletion(tx, [files.debugFileDir(channel.id, file.id)], ctx.now());
        tx.delete(debugFiles).where(eq(debugFiles.id, file.id)).run();
      });
      await files.drainDeletions(db);
    },

    /**
     * The file a download asks for (R15): that release version (and build version, when given), or
     * any with `latest`; of those, the highest version (`version`) or the last uploaded (`upload_date`).
     */
    pick(channel: Channel, query: DownloadQuery): DebugFile | undefined {
      const conditions: (SQL | undefined)[] = [eq(debugFiles.channelId, channel.id)];
      if (query.releaseVersion !== 'latest') {
        conditions.push(eq(debugFiles.releaseVersion, query.releaseVersion));
        if (query.buildVersion !== undefined) conditions.push(eq(debugFiles.buildVersion, query.buildVersion));
      }
      const order = query.order === 'version' ? [desc(debugFiles.releaseVersionKey), desc(debugFiles.buildVersionKey), desc(debugFiles.id)] : [desc(debugFiles.id)];
      return db.select().from(debugFiles).where(and(...conditions)).orderBy(...order).limit(1).get();
    },

    /** `exp=…&sig=…`: lets whoever holds it fetch this file (as it is now) for an hour. */
    signedQuery(file: DebugFile): string {
      const exp = String(Math.floor((ctx.now() + SIGNED_LINK_TTL_MS) / 1000));
      return `exp=${exp}&sig=${signature(file, exp)}`;
    },

    /** Whether a request for the file shows its channel's key or a signed link still good. */
    admitsDownload(file: DebugFile, proof: { channelKey?: unknown; exp?: unknown; sig?: unknown }): boolean {
      if (typeof proof.channelKey === 'string' && proof.channelKey !== '') return channels.findByKey(proof.channelKey)?.id === file.channelId;
      const { exp, sig } = proof;
      if (typeof exp !== 'string' || typeof sig !== 'string' || !/^\d{1,12}$/.test(exp) || Number(exp) * 1000 < ctx.now()) return false;
      const expected = Buffer.from(signature(file, exp));
      const given = Buffer.from(sig);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}

export type DebugFileService = ReturnType<typeof createDebugFileService>;
