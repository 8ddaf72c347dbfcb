/**
 * Release bodies (spec: Release). The same release appears in three places:
 * - the upload answer (R5): with id, release_url, qrcode_url, text_changelog, and its app, scheme and
 *   channel (in the extended shape the app is the full App);
 * - lists and single reads (versions, latest, version_exist, release update): id, text_changelog,
 *   platform and device_type only in the extended shape.
 * And the channel envelope of versions/latest around them (R12).
 */
import type { App, AppWithSchemes, Channel, CollaboratorWithUser, Release, Scheme } from '../domain/context.ts';
import { changelogOf } from '../domain/releases.ts';
import { textChangelog } from '../domain/changelog.ts';
import type { Urls } from '../network/urls.ts';
import { appBody, channelBody } from './apps.ts';
import type { Shape } from './shapes.ts';

export interface UploadContext {
  app: AppWithSchemes;
  collaborators: CollaboratorWithUser[];
  scheme: Scheme;
}

export function releaseBody(release: Release, channel: Channel, shape: Shape, urls: Urls, upload?: UploadContext) {
  const changelog = changelogOf(release);
  const extended = shape.extendedFields;
  return {
    ...((upload || extended) && { id: release.id }),
    version: release.version,
    app_name: release.appName,
    bundle_id: release.bundleId,
    release_version: release.releaseVersion,
    build_version: release.buildVersion,
    source: release.source,
    branch: release.branch,
    git_commit: release.gitCommit,
    ci_url: release.ciUrl,
    size: release.size,
    icon_url: release.iconPath ? urls.icon(release.id) : null,
    ...(upload && { release_url: urls.release(channel.slug, release.id) }),
    install_url: urls.install(release.deviceType, channel.slug, release.id),
    ...(upload && { qrcode_url: urls.qrcode(channel.slug, release.id) }),
    changelog,
    ...((upload || extended) && { text_changelog: textChangelog(changelog) }),
    custom_fields: JSON.parse(release.customFields) as unknown,
    ...(extended && { platform: release.platform, device_type: release.deviceType }),
    created_at: shape.timestamp(release.createdAt),
    ...(upload && {
      app: extended ? appBody(upload.app, shape, upload.collaborators) : { id: upload.app.id, name: upload.app.name },
      scheme: { id: upload.scheme.id, name: upload.scheme.name },
      channel: channelBody(channel, shape, 'app'),
    }),
  };
}

/** The channel envelope of versions and latest (R12); `releases` is filled in by the caller. */
export function channelEnvelope(channel: Channel, app: App | AppWithSchemes, scheme: Scheme, shape: Shape) {
  return {
    ...(shape.extendedFields && { id: channel.id }),
    app_name: app.name,
    bundle_id: channel.bundleId,
    git_url: channel.gitUrl,
    app: shape.extendedFields && 'schemes' in app ? appBody(app, shape) : { id: app.id, name: app.name },
    scheme: { id: scheme.id, name: scheme.name },
  };
}
