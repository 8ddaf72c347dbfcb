/** Test devices (R6): fastlane's device sync upserts them; the console lists and forgets them. */
import Type from 'typebox';
import { access } from '../http/access.ts';
import { deviceBody } from '../serializers/devices.ts';
import type { Api, RouteDeps } from './deps.ts';
import { OK } from './deps.ts';
import { DeviceBody, errors, Name, OkBody, Pagination } from './schemas.ts';

const tags = ['Devices'];
const UdidParams = Type.Object({
  udid: Type.String({ minLength: 8, maxLength: 64, pattern: '^[A-Za-z0-9-]+$', description: 'the device UDID' }),
});

export function deviceRoutes(api: Api, { domain }: RouteDeps): void {
  api.put('/api/devices/:udid', {
    config: { access: access.signedIn() },
    schema: {
      tags,
      summary: 'Register or rename a test device',
      description: 'Creates the device with this UDID, or updates it. Answers 200 either way, as Zealot does.',
      params: UdidParams,
      body: Type.Object({
        name: Name,
        model: Type.Optional(Type.String({ maxLength: 255 })),
        platform: Type.Optional(Type.String({ maxLength: 64 })),
      }),
      response: { 200: DeviceBody, ...errors(400, 401, 403, 422) },
    },
    handler: async (request) => deviceBody(domain.devices.upsert(request.params.udid, request.body).device, request.shape),
  });

  api.get('/api/devices', {
    config: { access: access.signedIn() },
    schema: {
      tags,
      summary: 'List test devices',
      description: 'Most recently seen first. The total is in the `X-Total-Count` header.',
      querystring: Type.Object(Pagination),
      response: { 200: Type.Array(DeviceBody), ...errors(401, 403, 422) },
    },
    handler: async (request, reply) => {
      const { page, per_page: perPage } = request.query;
      const { devices, total } = domain.devices.list({ page, perPage });
      reply.header('x-total-count', String(total));
      return devices.map((d) => deviceBody(d, request.shape));
    },
  });

  api.delete('/api/devices/:udid', {
    config: { access: access.global('devices:delete') },
    schema: { tags, summary: 'Forget a test device', params: UdidParams, response: { 200: OkBody, ...errors(401, 403, 404, 422) } },
    handler: async (request) => {
      domain.devices.delete(request.params.udid);
      return OK;
    },
  });
}
