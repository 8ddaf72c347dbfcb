/**
 * Access control of every route. Each route declares `config.access`; registration fails for an
 * /api route that does not (so no route ships without a check). Two hooks ask domain/policy.ts:
 *
 * - before validation: who is calling (401 without a valid token, 403 for a locked user) and, for
 *   rules that need no path parameter, whether their global role allows the route (403);
 * - after validation: rules about the thing the path names (an app, scheme, channel or user). They
 *   read the path parameter exactly as validation parsed it, the value the handler will use, so
 *   the check and the handler can never disagree about which resource is meant. An unknown target
 *   is 404, a known one the caller may not touch is 403.
 *
 * So a caller gets 401, then 403 for their global role, then 422 for invalid input, then 404/403
 * for the target.
 *
 * Tokens are read from, in this order: `Authorization: Bearer`, the `token` query parameter, and a
 * `token` field of a JSON or form body (R2). Without one, a console session cookie (browser sign-in,
 * domain/sessions.ts) is the credential; requests that change something must then also carry the
 * session's CSRF token in `X-CSRF-Token`, which another site cannot read.
 *
 * Guessing tokens is slowed: after TOKEN_FAILURES.max unknown or expired tokens from one client in
 * the window, every request of that client that carries a token gets 429 with Retry-After until the
 * window ends, valid tokens included (else the answer would still tell a good guess from a bad one).
 * The limit trips with one warning in the log (the client, never the token). Loopback callers are
 * counted and logged but never refused: they are this machine (the desktop console, local scripts,
 * a reverse proxy in front), and one of them must not lock the others out.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Domain } from '../domain/index.ts';
import { ForbiddenError, UnauthorizedError } from '../domain/errors.ts';
import { SESSION_COOKIE } from '../domain/sessions.ts';
import type { AppAction, GlobalAction } from '../domain/policy.ts';
import { mayGlobally, mayOnApp } from '../domain/policy.ts';
import type { Authenticated } from '../domain/tokens.ts';
import { TooManyRequestsError } from './errors.ts';
import { clientOf, failureCounter, TOKEN_FAILURE_CLIENTS, TOKEN_FAILURES, type FailureCounter } from './failure-counter.ts';

export type Access =
  /** anyone; `channel_key` routes are public too and check their key themselves (R2) */
  | { kind: 'public' }
  | { kind: 'global'; action: GlobalAction }
  /** the app is found from a path parameter naming an app, scheme, channel, release or webhook */
  | { kind: 'app'; action: AppAction; from: AppTarget; param: string }
  /**
   * The token may travel inside a multipart body (uploads, R2): the handler reads the body, then
   * authenticates with `authenticateDeferred` and asks the policy itself. A token in the header or
   * query is checked before the body is read, so a bad one is refused before any upload starts.
   */
  | { kind: 'deferred'; description: string }
  /** the user named by the path parameter, or a user admin */
  | { kind: 'self_or_admin'; param: string };

export type AppTarget = 'app' | 'scheme' | 'channel' | 'release' | 'webhook';

export const access = {
  public: (): Access => ({ kind: 'public' }),
  deferred: (description: string): Access => ({ kind: 'deferred', description }),
  signedIn: (): Access => ({ kind: 'global', action: 'session' }),
  global: (action: GlobalAction): Access => ({ kind: 'global', action }),
  app: (action: AppAction, from: AppTarget = 'app', param = 'id'): Access => ({ kind: 'app', action, from, param }),
  selfOrAdmin: (param = 'id'): Access => ({ kind: 'self_or_admin', param }),
};

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
  interface FastifyInstance {
    /** every /api route with its access rule, as "METHOD /api/path/:param" -> rule */
    accessRules: Map<string, Access>;
    /** failed token authentications per client (the brute-force limit) */
    tokenFailures: FailureCounter;
  }
  interface FastifyRequest {
    /** the authenticated caller; set by the access hook on every route that is not public */
    auth: Authenticated | null;
  }
}

/** The caller of a route that requires a token (never null there: the access hook ran). */
export function authOf(request: FastifyRequest): Authenticated {
  if (!request.auth) throw new UnauthorizedError();
  return request.auth;
}

/**
 * For `deferred` routes: the caller, from the token checked before the body (header or query) or
 * else from one found in the body (`formToken`). 401 without either.
 */
export function authenticateDeferred(request: FastifyRequest, domain: Domain, formToken: string | undefined): Authenticated {
  if (request.auth) return request.auth;
  if (!formToken) throw new UnauthorizedError();
  request.auth = authenticateToken(request, domain, formToken);
  return request.auth;
}

function isLoopback(ip: string): boolean {
  return /^(::ffff:)?127\./i.test(ip) || ip === '::1';
}

/** A caller by token, refused with 429 while its client is over the limit; failures are counted. */
function authenticateToken(request: FastifyRequest, domain: Domain, token: string): Authenticated {
  const failures = request.server.tokenFailures;
  const client = clientOf(request.ip);
  const loopback = isLoopback(request.ip);
  const waitMs = loopback ? 0 : failures.waitOf(client);
  if (waitMs > 0) {
    const seconds = Math.ceil(waitMs / 1000);
    throw new TooManyRequestsError(`Too many failed token authentications from this address; try again in ${seconds} seconds`, seconds);
  }
  try {
    return domain.tokens.authenticate(token);
  } catch (error) {
    if (error instanceof UnauthorizedError) {
      const count = failures.fail(client);
      if (count === TOKEN_FAILURES.max) {
        const message = loopback ? 'too many failed token authentications from this machine (loopback is not limited)' : 'too many failed token authentications: the client must wait';
        request.log.warn({ client: request.ip, failures: count, refused: !loopback }, message);
      }
    }
    throw error;
  }
}

function tokenOf(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (match) return match[1]!;
  }
  const fromQuery = (request.query as Record<string, unknown> | undefined)?.token;
  if (typeof fromQuery === 'string' && fromQuery !== '') return fromQuery;
  const body = request.body;
  if (body !== null && typeof body === 'object' && !Buffer.isBuffer(body)) {
    const fromBody = (body as Record<string, unknown>).token;
    if (typeof fromBody === 'string' && fromBody !== '') return fromBody;
  }
  return null;
}

/** Methods that change nothing: a session needs no CSRF token for them. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A validated path id (a number by now: validation has run). */
function idParam(request: FastifyRequest, name: string): number {
  const id = (request.params as Record<string, unknown>)[name];
  if (typeof id !== 'number') throw new Error(`route ${request.routeOptions.url} has no integer path parameter "${name}"`);
  return id;
}

export function installAccessControl(app: FastifyInstance, domain: Domain, options: { publicPrefixes: string[] }): void {
  app.decorateRequest('auth', null);
  const rules = new Map<string, Access>();
  app.decorate('accessRules', rules);
  app.decorate('tokenFailures', failureCounter({ ...TOKEN_FAILURES, capacity: TOKEN_FAILURE_CLIENTS }, domain.ctx.now));

  app.addHook('onRoute', (route) => {
    const url = route.url ?? route.path;
    if (!url.startsWith('/api')) return;
    // Routes that plugins register (the API documentation) are public by nature.
    if (options.publicPrefixes.some((prefix) => url.startsWith(prefix))) {
      route.config = { ...route.config, access: access.public() };
    }
    const rule = route.config?.access;
    if (!rule) throw new Error(`route ${route.method} ${url} declares no access rule`);
    for (const method of [route.method].flat()) if (method !== 'HEAD') rules.set(`${method} ${url}`, rule);
  });

  // Callback-style hooks (not async): they run on every request, and a promise per hook shows.
  app.addHook('preValidation', (request, _reply, done) => {
    try {
      authenticate(request);
      done();
    } catch (error) {
      done(error as Error);
    }
  });

  app.addHook('preHandler', (request, _reply, done) => {
    try {
      authorizeTarget(request);
      done();
    } catch (error) {
      done(error as Error);
    }
  });

  /** The caller by token, else by console session (with its CSRF token on unsafe methods); null: neither. */
  function caller(request: FastifyRequest): Authenticated | null {
    const token = tokenOf(request);
    if (token !== null) return authenticateToken(request, domain, token);
    const cookie = request.cookies[SESSION_COOKIE];
    if (!cookie) return null;
    const auth = domain.sessions.authenticate(cookie);
    const csrf = request.headers['x-csrf-token'];
    if (!SAFE_METHODS.has(request.method) && !domain.sessions.checkCsrf(auth.session, typeof csrf === 'string' ? csrf : undefined)) {
      throw new ForbiddenError('Missing or wrong CSRF token (X-CSRF-Token)');
    }
    return auth;
  }

  /** 401 without a valid token or session, 403 for a locked user or a global role that is not enough. */
  function authenticate(request: FastifyRequest): void {
    const rule = request.routeOptions.config.access;
    if (!rule || rule.kind === 'public') return;

    // deferred: a token may still come in the body; the handler decides once it has read it
    request.auth = caller(request);
    if (rule.kind === 'deferred') return;
    if (request.auth === null) throw new UnauthorizedError();
    if (rule.kind === 'global' && !mayGlobally(request.auth.actor, rule.action)) throw new ForbiddenError();
  }

  /** For rules about the thing the path names: 404 when it does not exist, 403 when not allowed. */
  function authorizeTarget(request: FastifyRequest): void {
    const rule = request.routeOptions.config.access;
    if (!rule || (rule.kind !== 'app' && rule.kind !== 'self_or_admin')) return;
    const { actor } = authOf(request);
    const id = idParam(request, rule.param);

    if (rule.kind === 'self_or_admin') {
      if (id !== actor.userId && !mayGlobally(actor, 'users:manage')) throw new ForbiddenError();
      return;
    }
    const appId =
      rule.from === 'app' ? id
      : rule.from === 'scheme' ? domain.schemes.find(id).appId
      : rule.from === 'channel' ? domain.channels.appIdOf(domain.channels.find(id))
      : rule.from === 'webhook' ? domain.webhooks.appIdOf(domain.webhooks.find(id))
      : domain.channels.appIdOf(domain.channels.find(domain.releases.find(id).channelId));
    if (!mayOnApp(actor, rule.action, domain.apps.standing(actor, appId))) throw new ForbiddenError();
  }
}
