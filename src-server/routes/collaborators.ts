/** Collaborators of an app (spec: Collaborators; R6, R16). */
import type { FastifyRequest } from 'fastify';
import Type from 'typebox';
import { ValidationError } from '../domain/errors.ts';
import { toRole, type RoleInput as RoleName } from '../domain/roles.ts';
import { access, authOf } from '../http/access.ts';
import { collaboratorBody } from '../serializers/users.ts';
import type { Api, RouteDeps } from './deps.ts';
import { OK } from './deps.ts';
import { CollaboratorBody, errors, Id, OkBody, RoleInput } from './schemas.ts';

const tags = ['Collaborators'];
const AppParams = Type.Object({ app_id: Id });
const AppUserParams = Type.Object({ app_id: Id, user_id: Id });

/** `role` is required in the extended shape and defaults to `user` in the base shape (spec). */
function roleOf(request: FastifyRequest, role: RoleName | undefined) {
  if (role === undefined) {
    if (request.shape.extendedFields) throw ValidationError.field('role', "can't be blank");
    return 'member' as const;
  }
  return toRole(role);
}

export function collaboratorRoutes(api: Api, { domain }: RouteDeps): void {
  const rule = access.app('collaborators', 'app', 'app_id');

  api.get('/api/apps/:app_id/collaborators', {
    config: { access: rule },
    schema: { tags, summary: "List an app's collaborators", params: AppParams, response: { 200: Type.Array(CollaboratorBody), ...errors(401, 403, 404, 422) } },
    handler: async (request) => domain.collaborators.list(request.params.app_id).map((c) => collaboratorBody(c, request.shape)),
  });

  api.get('/api/apps/:app_id/collaborators/:user_id', {
    config: { access: rule },
    schema: { tags, summary: 'Get a collaborator', params: AppUserParams, response: { 200: CollaboratorBody, ...errors(401, 403, 404, 422) } },
    handler: async (request) => collaboratorBody(domain.collaborators.get(request.params.app_id, request.params.user_id), request.shape),
  });

  const add = {
    tags,
    summary: 'Add a collaborator',
    description: 'An existing user. Only app admins (or global admins and developers) may add an admin. Already a collaborator: 409.',
  };
  api.post('/api/apps/:app_id/collaborators', {
    config: { access: rule },
    schema: {
      ...add,
      params: AppParams,
      body: Type.Object({ user_id: Id, role: Type.Optional(RoleInput) }),
      response: { 201: CollaboratorBody, ...errors(400, 401, 403, 404, 409, 422) },
    },
    handler: async (request, reply) => {
      const { app_id: appId } = request.params;
      const entry = domain.collaborators.add(authOf(request).actor, appId, request.body.user_id, roleOf(request, request.body.role));
      reply.code(201);
      return collaboratorBody(entry, request.shape);
    },
  });
  api.post('/api/apps/:app_id/collaborators/:user_id', {
    config: { access: rule },
    schema: {
      ...add,
      params: AppUserParams,
      body: Type.Object({ role: Type.Optional(RoleInput) }),
      response: { 201: CollaboratorBody, ...errors(400, 401, 403, 404, 409, 422) },
    },
    handler: async (request, reply) => {
      const { app_id: appId, user_id: userId } = request.params;
      const entry = domain.collaborators.add(authOf(request).actor, appId, userId, roleOf(request, request.body.role));
      reply.code(201);
      return collaboratorBody(entry, request.shape);
    },
  });

  for (const method of ['put', 'patch'] as const) {
    api[method]('/api/apps/:app_id/collaborators/:user_id', {
      config: { access: rule },
      schema: {
        tags,
        summary: "Change a collaborator's role",
        description: 'The owner keeps the admin role (422). Only app admins may grant or take away the admin role.',
        params: AppUserParams,
        body: Type.Object({ role: RoleInput }),
        response: { 200: CollaboratorBody, ...errors(400, 401, 403, 404, 422) },
      },
      handler: async (request) => {
        const { app_id: appId, user_id: userId } = request.params;
        return collaboratorBody(domain.collaborators.updateRole(authOf(request).actor, appId, userId, toRole(request.body.role)), request.shape);
      },
    });
  }

  api.delete('/api/apps/:app_id/collaborators/:user_id', {
    config: { access: rule },
    schema: {
      tags,
      summary: 'Remove a collaborator',
      description: 'The owner cannot be removed (422).',
      params: AppUserParams,
      response: { 200: OkBody, ...errors(401, 403, 404, 422) },
    },
    handler: async (request) => {
      domain.collaborators.remove(authOf(request).actor, request.params.app_id, request.params.user_id);
      return OK;
    },
  });
}
