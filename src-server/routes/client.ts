/**
 * The endpoints of the Zealot SDKs and fastlane's version check (R12): public, keyed by
 * `channel_key` (an unknown key is 422 "Unauthorized channel key", so that 404 keeps meaning
 * "release absent" on version_exist).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import type { Channel, Release } from '../domain/context.ts';
import { NotFoundError, ValidationError } from '../domain/errors.ts';
import { UNKNOWN_CHANNEL_KEY } from '../domain/uploads.ts';
import { access } from '../http/access.ts';
import { ResponseCache } from '../http/response-cache.ts';
import { channelEnvelope, releaseBody } from '../serializers/releases.ts';
import type { Api, RouteDeps } from './deps.ts';
import { errors, Pagination } from './schemas.ts';

const tags = ['Client'];
/** Optional in the schema so that a missing key answers like an unknown one (R2), not as a blank field. */
const ChannelKey = Type.Optional(Type.String({ maxLength: 128, description: "the channel's key (required)" }));
const VersionText = Type.String({ minLength: 1, maxLength: 255 });
const Envelope = Type.Object({}, { additionalProperties: true, description: 'app_name, bundle_id, git_url, app, scheme and releases (extended: also id and the full app)' });
const ReleaseObject = Type.Object({}, { additionalProperties: true, description: 'a Release' });

export function clientRoutes(api: Api, { domain, urls, dataVersion }: RouteDeps): void {
  // Devices and SDKs poll these far more often than builds arrive: answers are served from a cache
  // that every write to the database invalidates (http/response-cache.ts).
  const cache = new ResponseCache(dataVersion);
  const cached = (request: FastifyRequest, reply: FastifyReply, build: () => unknown) =>
    reply.type('application/json; charset=utf-8').send(cache.get(`${request.shape.name} ${urls().base} ${request.url}`, build));

  function channelOf(key: string | undefined): Channel {
    const channel = key ? domain.channels.findByKey(key) : undefined;
    if (!channel) throw new ValidationError({ channel_key: ['is not a known channel key'] }, UNKNOWN_CHANNEL_KEY);
    return channel;
  }

  function envelope(request: FastifyRequest, channel: Channel) {
    const scheme = domain.schemes.find(channel.schemeId);
    const app = request.shape.extendedFields ? domain.apps.get(scheme.appId) : domain.apps.find(scheme.appId);
    return channelEnvelope(channel, app, scheme, request.shape);
  }

  const body = (request: FastifyRequest, channel: Channel, release: Release) => releaseBody(release, channel, request.shape, urls());

  api.get('/api/apps/versions', {
    config: { access: access.public(), accessLog: 'debug' },
    schema: {
      tags,
      summary: "A channel's releases",
      description: 'The channel envelope with a page of its releases, highest `version` first.',
      querystring: Type.Object({ channel_key: ChannelKey, ...Pagination }),
      response: { 200: Envelope, ...errors(422) },
    },
    handler: async (request, reply) =>
      cached(request, reply, () => {
        const { channel_key: key, page, per_page: perPage } = request.query;
        const channel = channelOf(key);
        return { ...envelope(request, channel), releases: domain.releases.listOfChannel(channel.id, { page, perPage }).map((r) => body(request, channel, r)) };
      }),
  });

  api.get('/api/apps/latest', {
    config: { access: access.public(), accessLog: 'debug' },
    schema: {
      tags,
      summary: 'Builds newer than the caller',
      description:
        'Newer = release_version >= the given one and build_version > the given one, compared as version numbers. ' +
        'Extended shape: `releases` is an array, newest first (empty when up to date; without versions, the newest release). ' +
        'Base shape: `release_version` and `build_version` are required and `releases` is the newest newer build, or null.',
      querystring: Type.Object({
        channel_key: ChannelKey,
        release_version: Type.Optional(VersionText),
        build_version: Type.Optional(VersionText),
        bundle_id: Type.Optional(Type.String({ maxLength: 255 })),
      }),
      response: { 200: Envelope, ...errors(422) },
    },
    handler: async (request, reply) =>
      cached(request, reply, () => {
        const { channel_key: key, release_version: rv, build_version: bv, bundle_id: bundleId } = request.query;
        const channel = channelOf(key);
        const extended = request.shape.extendedFields;
        if (!extended && (!rv || !bv)) {
          const entry: Record<string, string[]> = {};
          if (!rv) entry.release_version = ["can't be blank"];
          if (!bv) entry.build_version = ["can't be blank"];
          throw new ValidationError(entry);
        }
        let found: Release[];
        if (rv && bv) found = domain.releases.newerThan(channel.id, rv, bv, bundleId);
        else {
          const newest = domain.releases.newest(channel.id, bundleId);
          found = newest ? [newest] : [];
        }
        const releases = found.map((r) => body(request, channel, r));
        return { ...envelope(request, channel), releases: extended ? releases : (releases[0] ?? null) };
      }),
  });

  api.get('/api/apps/version_exist', {
    config: { access: access.public(), accessLog: 'debug' },
    schema: {
      tags,
      summary: 'Whether a build exists',
      description: 'Give `bundle_id` with `release_version` and `build_version`, or `bundle_id` with `git_commit`. 200 with the release, or 404 `{"error":"Not found release"}`.',
      querystring: Type.Object({
        channel_key: ChannelKey,
        bundle_id: Type.String({ minLength: 1, maxLength: 255 }),
        release_version: Type.Optional(VersionText),
        build_version: Type.Optional(VersionText),
        git_commit: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
      }),
      response: { 200: ReleaseObject, ...errors(404, 422) },
    },
    handler: async (request, reply) =>
      cached(request, reply, () => {
        const { channel_key: key, bundle_id: bundleId, release_version: rv, build_version: bv, git_commit: gitCommit } = request.query;
        const channel = channelOf(key);
        const byVersions = rv !== undefined && bv !== undefined;
        if (!byVersions && gitCommit === undefined) {
          throw new ValidationError(
            { base: ['give release_version and build_version, or git_commit'] },
            'Unprocessable entity',
          );
        }
        const release = domain.releases.findExisting(channel.id, byVersions ? { bundleId, releaseVersion: rv, buildVersion: bv } : { bundleId, gitCommit });
        if (!release) throw new NotFoundError('Release', 'Not found release');
        return body(request, channel, release);
      }),
  });
}
