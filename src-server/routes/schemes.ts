/** Schemes of an app (spec: Schemes). */
import Type from 'typebox';
import { access } from '../http/access.ts';
import { schemeBody } from '../serializers/apps.ts';
import type { Api, RouteDeps } from './deps.ts';
import { OK } from './deps.ts';
import { errors, IdParams, Name, OkBody, SchemeBody } from './schemas.ts';

const tags = ['Schemes'];

const fields = {
  name: Name,
  new_build_callout: Type.Optional(Type.Boolean({ description: 'raise a "new build available" notice on upload (default true)' })),
  retained_builds: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000, description: 'keep the N newest builds per channel; 0 keeps all (default)' })),
};

export function schemeRoutes(api: Api, { domain }: RouteDeps): void {
  const body = (scheme: Parameters<typeof schemeBody>[0], shape: Parameters<typeof schemeBody>[1]) =>
    schemeBody(scheme, shape, 'scheme', domain.apps.find(scheme.appId));

  api.get('/api/apps/:id/schemes', {
    config: { access: access.app('read') },
    schema: { tags, summary: "List an app's schemes", params: IdParams, response: { 200: Type.Array(SchemeBody), ...errors(401, 403, 404, 422) } },
    handler: async (request) => domain.schemes.listOfApp(request.params.id).map((s) => body(s, request.shape)),
  });

  api.post('/api/apps/:id/schemes', {
    config: { access: access.app('manage') },
    schema: {
      tags,
      summary: 'Create a scheme',
      params: IdParams,
      body: Type.Object(fields),
      response: { 201: SchemeBody, ...errors(400, 401, 403, 404, 409, 422) },
    },
    handler: async (request, reply) => {
      const { name, new_build_callout: newBuildCallout, retained_builds: retainedBuilds } = request.body;
      const scheme = domain.schemes.create(request.params.id, { name, newBuildCallout, retainedBuilds });
      reply.code(201);
      return body(scheme, request.shape);
    },
  });

  api.get('/api/schemes/:id', {
    config: { access: access.app('read', 'scheme') },
    schema: { tags, summary: 'Get a scheme', params: IdParams, response: { 200: SchemeBody, ...errors(401, 403, 404, 422) } },
    handler: async (request) => body(domain.schemes.get(request.params.id), request.shape),
  });

  for (const method of ['put', 'patch'] as const) {
    api[method]('/api/schemes/:id', {
      config: { access: access.app('manage', 'scheme') },
      schema: {
        tags,
        summary: method === 'put' ? 'Update a scheme' : 'Change some fields of a scheme',
        params: IdParams,
        body: method === 'put' ? Type.Object(fields) : Type.Partial(Type.Object(fields)),
        response: { 200: SchemeBody, ...errors(400, 401, 403, 404, 409, 422) },
      },
      handler: async (request) => {
        const { name, new_build_callout: newBuildCallout, retained_builds: retainedBuilds } = request.body;
        return body(domain.schemes.update(request.params.id, { name, newBuildCallout, retainedBuilds }), request.shape);
      },
    });
  }

  api.delete('/api/schemes/:id', {
    config: { access: access.app('manage', 'scheme') },
    schema: {
      tags,
      summary: 'Delete a scheme',
      description: 'With its channels, their releases and files.',
      params: IdParams,
      response: { 200: OkBody, ...errors(401, 403, 404, 409, 422) },
    },
    handler: async (request) => {
      await domain.schemes.delete(request.params.id);
      return OK;
    },
  });
}
