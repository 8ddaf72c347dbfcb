/**
 * App, Scheme and Channel bodies (spec: Resources). Field order follows the spec's tables.
 *
 * Where a body appears matters in the base shape: a scheme carries its `app` only on scheme
 * endpoints, and a channel carries its `key` only on channel and scheme endpoints.
 */
import type { App, AppWithSchemes, Channel, CollaboratorWithUser, SchemeWithChannels } from '../domain/context.ts';
import { collaboratorBody } from './users.ts';
import type { Shape } from './shapes.ts';

/** Which endpoint family the body is part of. */
export type Endpoint = 'app' | 'scheme' | 'channel';

export function channelBody(channel: Channel, shape: Shape, endpoint: Endpoint) {
  return {
    ...(shape.extendedFields && { id: channel.id }),
    slug: channel.slug,
    name: channel.name,
    device_type: channel.deviceType,
    bundle_id: channel.bundleId,
    git_url: channel.gitUrl,
    has_password: channel.passwordHash !== null,
    ...(shape.baseFields && endpoint !== 'app' && { key: channel.key }),
    ...(shape.extendedFields && { download_filename_type: channel.downloadFilenameType }),
  };
}

export function schemeBody(scheme: SchemeWithChannels, shape: Shape, endpoint: Endpoint, app?: Pick<App, 'id' | 'name'>) {
  return {
    id: scheme.id,
    name: scheme.name,
    new_build_callout: scheme.newBuildCallout,
    retained_builds: scheme.retainedBuilds,
    ...(shape.baseFields && endpoint === 'scheme' && app && { app: { id: app.id, name: app.name } }),
    channels: scheme.channels.map((c) => channelBody(c, shape, endpoint)),
  };
}

export function appBody(app: AppWithSchemes, shape: Shape, collaborators?: CollaboratorWithUser[]) {
  return {
    id: app.id,
    name: app.name,
    ...(shape.extendedFields && { archived: app.archived }),
    schemes: app.schemes.map((s) => schemeBody(s, shape, 'app')),
    ...(shape.extendedFields && collaborators && { collaborators: collaborators.map((c) => collaboratorBody(c, shape)) }),
  };
}
