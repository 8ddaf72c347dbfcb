/**
 * Console sign-in for browsers (/console): `POST /api/session` with a username or email and the
 * password sets an HttpOnly, SameSite=Strict session cookie and answers the user and the CSRF token
 * that unsafe requests must send (domain/sessions.ts). `GET` answers them again (a reloaded page),
 * `DELETE` signs out. Scripts and the desktop app use tokens, not this.
 *
 * Wrong credentials are rate-limited per client address and login: after LOGIN_ATTEMPTS.max wrong
 * ones in the window, every attempt gets 429 until it passes (logged once, without the password).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { UnauthorizedError } from '../domain/errors.ts';
import { SESSION_ABSOLUTE_MS, SESSION_COOKIE } from '../domain/sessions.ts';
import { identityKey } from '../domain/users.ts';
import { access, authOf } from '../http/access.ts';
import { TooManyRequestsError } from '../http/errors.ts';
import { userBody } from '../serializers/users.ts';
import type { Api, RouteDeps } from './deps.ts';
import { errors, UserBody } from './schemas.ts';

const tags = ['Session'];

/** Wrong sign-ins a client may make for one login in a window before it must wait. */
export const LOGIN_ATTEMPTS = { max: 10, timeWindow: 5 * 60_000 };

const SessionBody = Type.Object(
  {
    user: UserBody,
    csrf_token: Type.Union([Type.String(), Type.Null()], { description: 'send as `X-CSRF-Token` on every request that changes something; null when signed in with a token' }),
  },
);

export function sessionRoutes(api: Api, { domain, userDefaults }: RouteDeps): void {
  const failures = api.createRateLimit({
    ...LOGIN_ATTEMPTS,
    keyGenerator: (request) => `${request.ip} ${identityKey(String((request.body as { login?: unknown } | undefined)?.login ?? ''))}`,
  });

  function setCookie(request: FastifyRequest, reply: FastifyReply, value: string, maxAgeMs: number) {
    reply.setCookie(SESSION_COOKIE, value, {
      path: '/',
      httpOnly: true,
      sameSite: 'strict',
      secure: request.protocol === 'https',
      maxAge: Math.floor(maxAgeMs / 1000),
    });
  }

  api.post('/api/session', {
    config: { access: access.public() },
    schema: {
      tags,
      summary: 'Sign in (browser console)',
      description:
        'Sets the `hangar_session` cookie (HttpOnly, SameSite=Strict). Answers 401 for a wrong username, email or password, 403 for a locked user, ' +
        `and 429 with Retry-After after ${LOGIN_ATTEMPTS.max} wrong attempts in ${LOGIN_ATTEMPTS.timeWindow / 60_000} minutes from one address for one login.`,
      body: Type.Object({
        login: Type.String({ minLength: 1, maxLength: 254, description: 'username or email' }),
        password: Type.String({ minLength: 1, maxLength: 1024 }),
      }),
      response: { 200: SessionBody, ...errors(401, 403, 422, 429) },
    },
    handler: async (request, reply) => {
      const limit = await failures(request, { increment: false });
      if (!limit.isAllowed && limit.remaining === 0) {
        throw new TooManyRequestsError(`Too many wrong sign-ins; try again in ${limit.ttlInSeconds} seconds`, limit.ttlInSeconds);
      }
      try {
        const signedIn = await domain.sessions.signIn(request.body.login, request.body.password, request.headers['user-agent'] ?? null);
        setCookie(request, reply, signedIn.value, SESSION_ABSOLUTE_MS);
        return { user: userBody(signedIn.user, request.shape, userDefaults), csrf_token: signedIn.csrfToken };
      } catch (error) {
        if (error instanceof UnauthorizedError) {
          const counted = await failures(request);
          if (!counted.isAllowed && counted.remaining === 0) request.log.warn({ client: request.ip }, 'too many wrong console sign-ins: the client must wait');
        }
        throw error;
      }
    },
  });

  api.get('/api/session', {
    config: { access: access.signedIn() },
    schema: { tags, summary: 'The signed-in user and the CSRF token', response: { 200: SessionBody, ...errors(401, 403) } },
    handler: async (request) => {
      const auth = authOf(request);
      const csrf = auth.credential.kind === 'session' ? domain.sessions.csrfTokenOf(request.cookies[SESSION_COOKIE]!) : null;
      return { user: userBody(auth.user, request.shape, userDefaults), csrf_token: csrf };
    },
  });

  api.delete('/api/session', {
    config: { access: access.signedIn() },
    schema: { tags, summary: 'Sign out (browser console)', response: { 204: Type.Null({ description: 'signed out; the cookie is cleared' }), ...errors(401, 403) } },
    handler: async (request, reply) => {
      const { credential } = authOf(request);
      if (credential.kind === 'session') domain.sessions.signOut(credential.id);
      reply.clearCookie(SESSION_COOKIE, { path: '/' });
      return reply.code(204).send(null);
    },
  });
}
