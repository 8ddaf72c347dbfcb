/** Users (spec: Users; R6, R9, R16) and personal access tokens (R2). */
import type { FastifyRequest } from 'fastify';
import Type from 'typebox';
import { ValidationError } from '../domain/errors.ts';
import { toRole, type RoleInput as RoleName } from '../domain/roles.ts';
import type { UserInput } from '../domain/users.ts';
import type { Appearance as AppearanceName, Locale as LocaleName } from '../domain/user-settings.ts';
import { access, authOf } from '../http/access.ts';
import { tokenBody, userBody } from '../serializers/users.ts';
import type { Api, RouteDeps } from './deps.ts';
import { OK } from './deps.ts';
import { Appearance, Email, errors, Id, IdParams, Locale, Name, OkBody, Password, RoleInput, TimeZone, TokenBody, UserBody, Username } from './schemas.ts';

const tags = ['Users'];

const settings = {
  password: Type.Optional(Password),
  locale: Type.Optional(Locale),
  local: Type.Optional({ ...Locale, description: 'the base shape\'s name for `locale`' }),
  appearance: Type.Optional(Appearance),
  timezone: Type.Optional(TimeZone),
  role: Type.Optional(RoleInput),
};
const required = { username: Username, email: Email };

interface UserFields {
  username?: string;
  email?: string;
  password?: string;
  locale?: LocaleName;
  local?: LocaleName;
  appearance?: AppearanceName;
  timezone?: string;
  role?: RoleName;
}

function toInput(body: UserFields): Partial<UserInput> {
  return {
    username: body.username,
    email: body.email,
    password: body.password,
    role: body.role === undefined ? undefined : toRole(body.role),
    locale: body.locale ?? body.local,
    appearance: body.appearance,
    timezone: body.timezone,
  };
}

/** The extended shape requires `password` on create and on PUT (spec). */
function requirePasswordInExtended(request: FastifyRequest, body: UserFields): void {
  if (request.shape.extendedFields && !body.password) throw ValidationError.field('password', "can't be blank");
}

export function userRoutes(api: Api, { domain, userDefaults }: RouteDeps): void {
  const admin = access.global('users:manage');

  api.get('/api/users', {
    config: { access: admin },
    schema: { tags, summary: 'List users', response: { 200: Type.Array(UserBody), ...errors(401, 403) } },
    handler: async (request) => domain.users.list().map((u) => userBody(u, request.shape, userDefaults)),
  });

  api.get('/api/users/me', {
    config: { access: access.signedIn() },
    schema: { tags, summary: 'The signed-in user', response: { 200: UserBody, ...errors(401, 403) } },
    handler: async (request) => userBody(authOf(request).user, request.shape, userDefaults),
  });

  api.patch('/api/users/me', {
    config: { access: access.signedIn() },
    schema: {
      tags,
      summary: 'Change your own preferences',
      description: 'Language, appearance and time zone of the signed-in user; any user may change their own. (Username, email, role and password are for user admins: PATCH /api/users/:id.)',
      body: Type.Object({ locale: Type.Optional(Locale), appearance: Type.Optional(Appearance), timezone: Type.Optional(TimeZone) }),
      response: { 200: UserBody, ...errors(401, 403, 422) },
    },
    handler: async (request) => {
      const { locale, appearance, timezone } = request.body;
      const user = await domain.users.update(authOf(request).user.id, { locale, appearance, timezone });
      return userBody(user, request.shape, userDefaults);
    },
  });

  api.get('/api/users/search', {
    config: { access: admin },
    schema: {
      tags,
      summary: 'Find users by email',
      description: 'Exact, case-insensitive match: an array of zero or one user.',
      querystring: Type.Object({ email: Type.String({ minLength: 1, maxLength: 254 }) }),
      response: { 200: Type.Array(UserBody), ...errors(401, 403, 422) },
    },
    handler: async (request) => domain.users.searchByEmail(request.query.email).map((u) => userBody(u, request.shape, userDefaults)),
  });

  api.post('/api/users', {
    config: { access: admin },
    schema: {
      tags,
      summary: 'Create a user',
      description: '`password` is required in the extended shape. `role` defaults to `user` (`member`).',
      body: Type.Object({ ...required, ...settings }),
      response: { 201: UserBody, ...errors(400, 401, 403, 422) },
    },
    handler: async (request, reply) => {
      requirePasswordInExtended(request, request.body);
      const user = await domain.users.create(toInput(request.body) as UserInput);
      reply.code(201);
      return userBody(user, request.shape, userDefaults);
    },
  });

  api.get('/api/users/:id', {
    config: { access: admin },
    schema: { tags, summary: 'Get a user', params: IdParams, response: { 200: UserBody, ...errors(401, 403, 404, 422) } },
    handler: async (request) => userBody(domain.users.find(request.params.id), request.shape, userDefaults),
  });

  for (const method of ['put', 'patch'] as const) {
    api[method]('/api/users/:id', {
      config: { access: admin },
      schema: {
        tags,
        summary: method === 'put' ? 'Update a user' : 'Change some fields of a user',
        description:
          method === 'put'
            ? '`username` and `email` are required, and `password` too in the extended shape (spec).'
            : 'Fields not sent stay as they are.',
        params: IdParams,
        body: method === 'put' ? Type.Object({ ...required, ...settings }) : Type.Partial(Type.Object({ ...required, ...settings })),
        response: { 200: UserBody, ...errors(400, 401, 403, 404, 409, 422) },
      },
      handler: async (request) => {
        if (method === 'put') requirePasswordInExtended(request, request.body);
        const user = await domain.users.update(request.params.id, toInput(request.body));
        // a new password ends the user's console sessions (but the one making the change)
        if (request.body.password) {
          const { credential } = authOf(request);
          domain.sessions.signOutEverywhere(user.id, credential.kind === 'session' ? credential.id : null);
        }
        return userBody(user, request.shape, userDefaults);
      },
    });
  }

  api.delete('/api/users/:id', {
    config: { access: admin },
    schema: {
      tags,
      summary: 'Delete a user',
      description: 'With their tokens and collaborations; apps they own stay. Not yourself, not the last admin (409).',
      params: IdParams,
      response: { 200: OkBody, ...errors(401, 403, 404, 409, 422) },
    },
    handler: async (request) => {
      domain.users.delete(authOf(request).actor.userId, request.params.id);
      return OK;
    },
  });

  const LockResponse = Type.Union([UserBody, OkBody], { description: 'extended: the User; base: {"mesage":"OK"}' });

  api.post('/api/users/:id/lock', {
    config: { access: admin },
    schema: {
      tags,
      summary: 'Lock a user',
      description: 'They cannot sign in and their tokens are refused (403) until unlocked. Not yourself, not the last admin (409).',
      params: IdParams,
      response: { 202: LockResponse, ...errors(401, 403, 404, 409, 422) },
    },
    handler: async (request, reply) => {
      const user = domain.users.lock(authOf(request).actor.userId, request.params.id);
      reply.code(202);
      return request.shape.lockBody(userBody(user, request.shape, userDefaults));
    },
  });

  api.delete('/api/users/:id/unlock', {
    config: { access: admin },
    schema: { tags, summary: 'Unlock a user', params: IdParams, response: { 202: LockResponse, ...errors(401, 403, 404, 422) } },
    handler: async (request, reply) => {
      const user = domain.users.unlock(request.params.id);
      reply.code(202);
      return request.shape.lockBody(userBody(user, request.shape, userDefaults));
    },
  });

  tokenRoutes(api, { domain });
}

function tokenRoutes(api: Api, { domain }: Pick<RouteDeps, 'domain'>): void {
  const tags = ['Tokens'];
  const CreateToken = Type.Object({
    name: Name,
    expires_at: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'ISO 8601; null or absent: never' })),
  });
  const TokenParams = Type.Object({ id: Id, token_id: Id });
  const MyTokenParams = Type.Object({ token_id: Id });

  /** `me` routes act on the caller; `:id` routes on that user (themselves, or anyone for an admin). */
  const variants = [
    { prefix: '/api/users/me', rule: access.signedIn(), who: 'yours', userOf: (request: FastifyRequest) => authOf(request).user.id },
    { prefix: '/api/users/:id', rule: access.selfOrAdmin(), who: "a user's (yours, or anyone's for an admin)", userOf: (request: FastifyRequest) => domain.users.find((request.params as { id: number }).id).id },
  ];

  for (const { prefix, rule, who, userOf } of variants) {
    const params = prefix.endsWith(':id') ? { params: IdParams } : {};
    api.get(`${prefix}/tokens`, {
      config: { access: rule },
      schema: { tags, summary: `List ${who} tokens`, ...params, response: { 200: Type.Array(TokenBody), ...errors(401, 403, 404, 422) } },
      handler: async (request) => domain.tokens.list(userOf(request)).map((t) => tokenBody(t, request.shape)),
    });

    api.post(`${prefix}/tokens`, {
      config: { access: rule },
      schema: {
        tags,
        summary: `Create one of ${who} tokens`,
        description: 'The answer carries the token value (`token`): the only time it is shown.',
        ...params,
        body: CreateToken,
        response: { 201: TokenBody, ...errors(400, 401, 403, 404, 422) },
      },
      handler: async (request, reply) => {
        const userId = userOf(request);
        const body = request.body as { name: string; expires_at?: string | null };
        let expiresAt: number | null = null;
        if (body.expires_at) {
          expiresAt = Date.parse(body.expires_at);
          if (!(expiresAt > Date.now())) throw ValidationError.field('expires_at', 'must be in the future');
        }
        const { token, value } = domain.tokens.create(userId, { name: body.name, expiresAt });
        reply.code(201);
        return tokenBody(token, request.shape, value);
      },
    });

    api.delete(`${prefix}/tokens/:token_id`, {
      config: { access: rule },
      schema: {
        tags,
        summary: `Revoke one of ${who} tokens`,
        params: prefix.endsWith(':id') ? TokenParams : MyTokenParams,
        response: { 200: OkBody, ...errors(401, 403, 404, 422) },
      },
      handler: async (request) => {
        domain.tokens.revoke(userOf(request), (request.params as { token_id: number }).token_id);
        return OK;
      },
    });
  }
}
