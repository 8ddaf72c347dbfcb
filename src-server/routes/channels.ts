/** Channels of a scheme (spec: Channels; R14), plus reading and regenerating a channel's key. */
import type { FastifyRequest } from 'fastify';
import Type from 'typebox';
import type { ChannelInput } from '../domain/channels.ts';
import { ValidationError } from '../domain/errors.ts';
import { access } from '../http/access.ts';
import { channelBody } from '../serializers/apps.ts';
import type { Shape } from '../serializers/shapes.ts';
import type { Api, RouteDeps } from './deps.ts';
import { OK } from './deps.ts';
import { ChannelBody, DeviceTypeInput, DownloadFilenameType, errors, IdParams, Name, OkBody, Slug } from './schemas.ts';

const tags = ['Channels'];

const fields = {
  name: Name,
  device_type: DeviceTypeInput,
  slug: Type.Optional(Slug),
  bundle_id: Type.Optional(Type.String({ maxLength: 255, description: 'bundle id or package name; `*` (default) accepts any' })),
  git_url: Type.Optional(Type.Union([Type.String({ maxLength: 2048 }), Type.Null()])),
  password: Type.Optional(Type.String({ maxLength: 128, description: 'visit password of the device pages; empty clears it' })),
  download_filename_type: Type.Optional(DownloadFilenameType),
};

type Fields = { name?: string; device_type?: ChannelInput['deviceType']; slug?: string; bundle_id?: string; git_url?: string | null; password?: string; download_filename_type?: ChannelInput['downloadFilenameType'] };

/** `device_type` is accepted in any letter case (R9): normalised before validation. */
async function lowercaseDeviceType(request: FastifyRequest): Promise<void> {
  const body = request.body as Record<string, unknown> | undefined;
  if (body && typeof body.device_type === 'string') body.device_type = body.device_type.toLowerCase();
}

function toInput(body: Fields, shape: Shape): Partial<ChannelInput> {
  if (body.device_type === 'harmonyos' && !shape.extendedFields) {
    throw ValidationError.field('device_type', 'is not included in the list');
  }
  return {
    name: body.name,
    deviceType: body.device_type,
    slug: body.slug,
    bundleId: body.bundle_id,
    gitUrl: body.git_url,
    password: body.password,
    downloadFilenameType: body.download_filename_type,
  };
}

export function channelRoutes(api: Api, { domain }: RouteDeps): void {
  api.get('/api/schemes/:id/channels', {
    config: { access: access.app('read', 'scheme') },
    schema: { tags, summary: "List a scheme's channels", params: IdParams, response: { 200: Type.Array(ChannelBody), ...errors(401, 403, 404, 422) } },
    handler: async (request) => domain.channels.listOfScheme(request.params.id).map((c) => channelBody(c, request.shape, 'channel')),
  });

  api.post('/api/schemes/:id/channels', {
    config: { access: access.app('manage', 'scheme') },
    preValidation: lowercaseDeviceType,
    schema: {
      tags,
      summary: 'Create a channel',
      params: IdParams,
      body: Type.Object(fields),
      response: { 201: ChannelBody, ...errors(400, 401, 403, 404, 409, 422) },
    },
    handler: async (request, reply) => {
      const channel = await domain.channels.create(request.params.id, toInput(request.body, request.shape) as ChannelInput);
      reply.code(201);
      return channelBody(channel, request.shape, 'channel');
    },
  });

  api.get('/api/channels/:id', {
    config: { access: access.app('read', 'channel') },
    schema: { tags, summary: 'Get a channel', params: IdParams, response: { 200: ChannelBody, ...errors(401, 403, 404, 422) } },
    handler: async (request) => channelBody(domain.channels.find(request.params.id), request.shape, 'channel'),
  });

  for (const method of ['put', 'patch'] as const) {
    api[method]('/api/channels/:id', {
      config: { access: access.app('manage', 'channel') },
      preValidation: lowercaseDeviceType,
      schema: {
        tags,
        summary: method === 'put' ? 'Update a channel' : 'Change some fields of a channel',
        description: 'A `slug` sent empty gets a new random one; a `slug` not sent stays. A `password` sent empty removes the visit password.',
        params: IdParams,
        body: method === 'put' ? Type.Object(fields) : Type.Partial(Type.Object(fields)),
        response: { 200: ChannelBody, ...errors(400, 401, 403, 404, 409, 422) },
      },
      handler: async (request) => {
        const channel = await domain.channels.update(request.params.id, toInput(request.body, request.shape));
        return channelBody(channel, request.shape, 'channel');
      },
    });
  }

  api.delete('/api/channels/:id', {
    config: { access: access.app('manage', 'channel') },
    schema: {
      tags,
      summary: 'Delete a channel',
      description: 'With its releases, debug files and their files on disk.',
      params: IdParams,
      response: { 200: OkBody, ...errors(401, 403, 404, 409, 422) },
    },
    handler: async (request) => {
      await domain.channels.delete(request.params.id);
      return OK;
    },
  });

  const KeyBody = Type.Object({ key: Type.String({ description: 'the channel key (`channel_key`)' }) });

  api.get('/api/channels/:id/key', {
    config: { access: access.app('read', 'channel') },
    schema: {
      tags,
      summary: "Get a channel's key",
      description: 'Beyond the spec: the extended shape carries no `key` in channel bodies, so consoles read it here.',
      params: IdParams,
      response: { 200: KeyBody, ...errors(401, 403, 404, 422) },
    },
    handler: async (request) => ({ key: domain.channels.find(request.params.id).key }),
  });

  api.post('/api/channels/:id/key', {
    config: { access: access.app('manage', 'channel') },
    schema: {
      tags,
      summary: "Regenerate a channel's key",
      description: 'The old key stops working at once (R14).',
      params: IdParams,
      response: { 200: KeyBody, ...errors(401, 403, 404, 409, 422) },
    },
    handler: async (request) => ({ key: domain.channels.regenerateKey(request.params.id).key }),
  });
}
