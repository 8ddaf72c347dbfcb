/**
 * An upload (R10): a binary already streamed to a temporary file becomes a release.
 *
 * 1. With a channel key: the channel must exist (422 "Unauthorized channel key"), its app must be
 *    active and the caller must manage the app. These cheap refusals come before any parsing.
 * 2. The file is read as the format its name claims (a ParseError is a 422). With a channel, the
 *    build must fit it: same device type, and the same bundle id unless the channel takes any (`*`).
 *    Without one: a new app (named by the uploader or after the build), a scheme named after the
 *    release type and a channel named after the platform, owned by the caller.
 * 3. The release (and the new app, when there is one) is recorded in one transaction; then the
 *    scheme's retention runs and the event bus hears of it.
 */
import { rmSync } from 'node:fs';
import { claimedExtension, readBinary } from '../parsers/index.ts';
import type { AppMetadata } from '../parsers/types.ts';
import type { AppService } from './apps.ts';
import type { ChannelService } from './channels.ts';
import type { App, Channel, DomainContext, Release, Scheme } from './context.ts';
import { ForbiddenError, ValidationError } from './errors.ts';
import type { Actor } from './policy.ts';
import { mayGlobally, mayOnApp } from './policy.ts';
import { PLATFORM_NAMES, type ReleaseFields, type ReleaseService, type StoredBinary } from './releases.ts';
import type { SchemeService } from './schemes.ts';
import { hashPassword } from './secrets.ts';

export const UNKNOWN_CHANNEL_KEY = 'Unauthorized channel key';

/** Scheme names of apps created by an upload, from the release type (R10). */
const SCHEME_NAMES: Record<string, string> = { debug: 'Debug', adhoc: 'AdHoc', enterprise: 'Enterprise', release: 'Release' };

export interface UploadInput extends ReleaseFields {
  channelKey?: string | undefined;
  /** the channel's visit password: set, or cleared with '' (undefined: unchanged) */
  password?: string | undefined;
}

export interface UploadResult {
  release: Release;
  channel: Channel;
  scheme: Scheme;
  app: App;
  /** releases the scheme's retention removed */
  removed: Release[];
  /** set when retention failed after the release was recorded (the upload still succeeded) */
  retentionError: Error | null;
}

export function createUploadService(
  ctx: DomainContext,
  services: { apps: AppService; schemes: SchemeService; channels: ChannelService; releases: ReleaseService },
) {
  const { apps, schemes, channels, releases } = services;

  /** Throws unless the parsed build fits the channel (R10). */
  function assertFits(channel: Channel, metadata: AppMetadata): void {
    if (channel.deviceType !== metadata.platform) {
      throw ValidationError.field('device_type', `is ${metadata.platform} but the channel takes ${channel.deviceType} builds`);
    }
    if (channel.bundleId !== '*' && channel.bundleId !== metadata.bundleId) {
      throw ValidationError.field('bundle_id', `is ${metadata.bundleId} but the channel takes ${channel.bundleId}`);
    }
  }

  return {
    /** The channel an upload names, checked before the binary is parsed (cheap refusals first). */
    channelFor(actor: Actor, channelKey: string): Channel {
      const channel = channels.findByKey(channelKey);
      if (!channel) throw new ValidationError({ channel_key: ['is not a known channel key'] }, UNKNOWN_CHANNEL_KEY);
      const appId = channels.appIdOf(channel);
      if (!mayOnApp(actor, 'manage', apps.standing(actor, appId))) throw new ForbiddenError();
      apps.assertActive(appId);
      return channel;
    },

    /** Turns the binary at `binary.tempPath` into a release; the temporary file is moved, or left for the caller to remove. */
    async upload(actor: Actor, input: UploadInput, binary: Omit<StoredBinary, 'extension'>): Promise<UploadResult> {
      let channel: Channel | undefined;
      if (input.channelKey) channel = this.channelFor(actor, input.channelKey);
      else if (!mayGlobally(actor, 'session')) throw new ForbiddenError();

      const metadata = await readBinary(binary.tempPath, binary.fileName);
      if (channel) assertFits(channel, metadata);
      const passwordHash = input.password === undefined ? undefined : input.password === '' ? null : await hashPassword(input.password);
      const stored: StoredBinary = { ...binary, extension: claimedExtension(binary.fileName) };

      const placed: string[] = [];
      let release: Release;
      try {
        release = ctx.db.transaction(() => {
          if (!channel) {
            const app = apps.create(actor, { name: input.name?.trim() || metadata.displayName });
            const releaseType = metadata.platform === 'ios' ? (metadata.releaseType ?? 'debug') : 'adhoc';
            const scheme = schemes.create(app.id, { name: SCHEME_NAMES[releaseType] ?? 'AdHoc' });
            channel = channels.insert(scheme.id, { name: PLATFORM_NAMES[metadata.platform], deviceType: metadata.platform }, passwordHash ?? null);
          } else if (passwordHash !== undefined) {
            channels.setPasswordHash(channel.id, passwordHash);
          }
          return releases.record(channel.id, metadata, input, stored, placed);
        });
      } catch (error) {
        // the transaction (or its commit) failed after the file was moved: take it away again
        for (const dir of placed) rmSync(ctx.files.resolve(dir), { recursive: true, force: true });
        throw error;
      }

      channel = channels.find(release.channelId);
      const scheme = schemes.find(channel.schemeId);
      const app = apps.find(scheme.appId);
      // The release is committed: what follows must not turn a stored upload into a failed one.
      let removed: Release[] = [];
      let retentionError: Error | null = null;
      try {
        removed = await releases.applyRetention(scheme.id);
      } catch (error) {
        retentionError = error as Error; // the next upload to the scheme tries again
      }

      ctx.events.emit({ type: 'release.created', appId: app.id, schemeId: scheme.id, channelId: channel.id, releaseId: release.id, newBuildCallout: scheme.newBuildCallout });
      if (scheme.newBuildCallout) ctx.events.emit({ type: 'build.available', appId: app.id, schemeId: scheme.id, channelId: channel.id, releaseId: release.id });
      for (const gone of removed) ctx.events.emit({ type: 'release.deleted', appId: app.id, channelId: gone.channelId, releaseId: gone.id, reason: 'retention' });
      return { release, channel, scheme, app, removed, retentionError };
    },
  };
}

export type UploadService = ReturnType<typeof createUploadService>;
