/** Apps: list, get, create, rename/archive, delete (spec: Apps). Uploads and client endpoints: routes/uploads.ts. */
import Type from 'typebox';
import { mayOnApp } from '../domain/policy.ts';
import { access, authOf } from '../http/access.ts';
import { appBody } from '../serializers/apps.ts';
import type { Api, RouteDeps } from './deps.ts';
import { OK } from './deps.ts';
import { AppBody, AppScope, errors, IdParams, Name, OkBody, Pagination } from './schemas.ts';

const tags = ['Apps'];

export function appRoutes(api: Api, { domain }: RouteDeps): void {
  api.get('/api/apps', {
    config: { access: access.signedIn() },
    schema: {
      tags,
      summary: 'List apps',
      description: 'Newest first. Global admins and developers see every app; others the apps they collaborate on.',
      querystring: Type.Object({ ...Pagination, scope: AppScope }),
      response: { 200: Type.Array(AppBody), ...errors(401, 403, 422) },
    },
    handler: async (request) => {
      const { page, per_page: perPage, scope } = request.query;
      return domain.apps.list(authOf(request).actor, { page, perPage, scope }).map((app) => appBody(app, request.shape));
    },
  });

  api.get('/api/apps/:id', {
    config: { access: access.app('read') },
    schema: {
      tags,
      summary: 'Get an app',
      description: 'The extended shape adds `collaborators` for callers who may manage them (app admins and developers, global admins and developers).',
      params: IdParams,
      response: { 200: AppBody, ...errors(401, 403, 404, 422) },
    },
    handler: async (request) => {
      const { id } = request.params;
      const { actor } = authOf(request);
      // Collaborators (with their emails) only for those who may manage them, as Zealot does.
      const collaborators = mayOnApp(actor, 'collaborators', domain.apps.standing(actor, id)) ? domain.apps.collaborators(id) : undefined;
      return appBody(domain.apps.get(id), request.shape, collaborators);
    },
  });

  api.post('/api/apps', {
    config: { access: access.signedIn() },
    schema: {
      tags,
      summary: 'Create an app',
      description: 'The caller becomes its owner (an admin collaborator). Base shape: an array holding the app.',
      body: Type.Object({ name: Name }),
      response: { 201: Type.Union([AppBody, Type.Array(AppBody)]), ...errors(400, 401, 403, 422) },
    },
    handler: async (request, reply) => {
      const app = domain.apps.create(authOf(request).actor, { name: request.body.name });
      reply.code(201);
      return request.shape.appResponse(appBody(app, request.shape, domain.apps.collaborators(app.id)));
    },
  });

  const updateBody = { name: Name, archived: Type.Optional(Type.Boolean({ description: 'archive (read-only) or unarchive' })) };
  for (const method of ['put', 'patch'] as const) {
    api[method]('/api/apps/:id', {
      config: { access: access.app('manage') },
      schema: {
        tags,
        summary: method === 'put' ? 'Rename, archive or unarchive an app' : 'Change some fields of an app',
        description: method === 'put' ? '`name` is required (spec). An archived app accepts only being unarchived.' : 'Fields not sent stay as they are.',
        params: IdParams,
        body: method === 'put' ? Type.Object(updateBody) : Type.Partial(Type.Object(updateBody)),
        response: { 200: Type.Union([AppBody, Type.Array(AppBody)]), ...errors(400, 401, 403, 404, 409, 422) },
      },
      handler: async (request) => {
        const { id } = request.params;
        const app = domain.apps.update(id, request.body);
        return request.shape.appResponse(appBody(app, request.shape, domain.apps.collaborators(id)));
      },
    });
  }

  api.delete('/api/apps/:id', {
    config: { access: access.app('delete') },
    schema: {
      tags,
      summary: 'Delete an app',
      description: 'With its schemes, channels, releases, debug files and their files on disk.',
      params: IdParams,
      response: { 200: OkBody, ...errors(401, 403, 404, 422) },
    },
    handler: async (request) => {
      await domain.apps.delete(request.params.id);
      return OK;
    },
  });
}
