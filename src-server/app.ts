/**
 * Assembles the HTTP server: Fastify with our validation, errors, shapes, access control, logging,
 * OpenAPI and routes. No I/O happens here beyond what the parts are given; src-server/server.ts owns
 * the lifecycle (database, first start, listening, shutdown).
 */
import cookie from '@fastify/cookie';
import multipart from '@fastify/multipart';
import rateLimit from '@fastify/rate-limit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import type { Logger } from 'pino';
import type { BuildInfo } from './config/build-info.ts';
import type { ServerConfig } from './config/config.ts';
import type { Domain } from './domain/index.ts';
import type { CertificateAuthority } from './tls/authority.ts';
import { installAccessControl } from './http/access.ts';
import { installContentTypes } from './http/content-types.ts';
import { MAX_FIELD_BYTES } from './http/multipart.ts';
import { frameworkErrors, installErrorHandling } from './http/errors.ts';
import { AccessLog } from './http/logging.ts';
import { DOCS_PREFIX, installOpenApi } from './http/openapi.ts';
import { installShapes } from './http/shape.ts';
import type { Urls } from './network/urls.ts';
import { validatorCompiler } from './http/validation.ts';
import { appRoutes } from './routes/apps.ts';
import { channelRoutes } from './routes/channels.ts';
import { consoleRoutes } from './routes/console.ts';
import { clientRoutes } from './routes/client.ts';
import { collaboratorRoutes } from './routes/collaborators.ts';
import type { HostStatus, RouteDeps } from './routes/deps.ts';
import { debugFileRoutes } from './routes/debug-files.ts';
import { deviceRoutes } from './routes/devices.ts';
import { downloadRoutes } from './routes/downloads.ts';
import { eventRoutes } from './routes/events.ts';
import { pageRoutes } from './routes/pages.ts';
import { profileRoutes } from './routes/profiles.ts';
import { releaseRoutes } from './routes/releases.ts';
import { schemeRoutes } from './routes/schemes.ts';
import { sessionRoutes } from './routes/session.ts';
import { systemRoutes } from './routes/system.ts';
import { uploadRoutes } from './routes/uploads.ts';
import { userRoutes } from './routes/users.ts';
import { webhookRoutes } from './routes/webhooks.ts';

export interface AppDeps {
  config: ServerConfig;
  domain: Domain;
  logger: Logger;
  buildInfo: BuildInfo;
  /** a version of the data that every write moves (storage/database.ts changes()) */
  dataVersion: () => number;
  /** absolute URLs from the public base URLs (network/public-urls.ts) */
  urls: () => Urls;
  /** the installation's certificate authority (public part), for the trust page and profiles */
  authority: CertificateAuthority;
  /** where the server runs now (LAN addresses, HTTPS, discovery), for GET /api/server */
  host: () => HostStatus;
  /** the built console (out/renderer) to serve at /console; null: not built */
  consoleDir: string | null;
}

/** JSON bodies are capped; binaries travel as multipart on their own routes, with their own limits. */
export const JSON_BODY_LIMIT = 1024 * 1024;

export async function buildApp({ config, domain, logger, buildInfo, dataVersion, urls, authority, host, consoleDir }: AppDeps) {
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: JSON_BODY_LIMIT,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 256 },
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    // Slow or stalled clients (see ServerConfig.timeouts): a connection idle that long is closed
    // (server.ts spares one whose request is being worked on); the request head has its own limit,
    // looked at every second; a whole request has none, so a slow 1 GB upload that keeps moving is fine.
    connectionTimeout: config.timeouts.idleMs,
    requestTimeout: 0,
    http: { headersTimeout: config.timeouts.headersMs, connectionsCheckingInterval: Math.min(1000, config.timeouts.headersMs) },
    trustProxy: false,
    frameworkErrors,
    logController: new AccessLog(),
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  // Response schemas document (OpenAPI); bodies are sent exactly as the serializers build them.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  installErrorHandling(app);
  await app.register(cookie);
  // Only the routes that ask for it are limited (visit passwords, UDID replies).
  await app.register(rateLimit, { global: false });
  // Uploads stream their multipart bodies themselves (routes/uploads.ts); busboy's limits guard them.
  await app.register(multipart, {
    limits: { fileSize: config.maxUploadBytes ?? Infinity, files: 4, fields: 64, fieldSize: MAX_FIELD_BYTES, parts: 80, headerPairs: 100 },
    throwFileSizeLimit: true,
  });
  installContentTypes(app);
  installShapes(app, config);
  installAccessControl(app, domain, { publicPrefixes: [DOCS_PREFIX] });
  await installOpenApi(app, buildInfo);

  // A body-less POST/PUT validates as `{}`, so a missing field reads "can't be blank", not "must be an object".
  app.addHook('preValidation', (request, _reply, done) => {
    if (request.body === undefined && request.routeOptions.schema?.body) request.body = {};
    done();
  });

  // While stopping, answers in flight close their connection: a keep-alive socket would otherwise
  // hold the stop until the shutdown timeout cuts it.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });

  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    reply.header('x-content-type-options', 'nosniff');
    const type = String(reply.getHeader('content-type') ?? '');
    if (type.startsWith('application/json') && !reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    done(null, payload);
  });

  const deps: RouteDeps = {
    domain,
    config,
    buildInfo,
    userDefaults: { ...config.userDefaults, timezone: config.timezone },
    urls,
    dataVersion,
    authority,
    host,
  };
  systemRoutes(app, deps);
  appRoutes(app, deps);
  schemeRoutes(app, deps);
  channelRoutes(app, deps);
  collaboratorRoutes(app, deps);
  userRoutes(app, deps);
  sessionRoutes(app, deps);
  deviceRoutes(app, deps);
  uploadRoutes(app, deps);
  clientRoutes(app, deps);
  releaseRoutes(app, deps);
  eventRoutes(app, deps);
  downloadRoutes(app, deps);
  debugFileRoutes(app, deps);
  consoleRoutes(app, deps, consoleDir);
  pageRoutes(app, deps);
  profileRoutes(app, deps);
  webhookRoutes(app, deps);

  return app;
}

export type HangarApp = Awaited<ReturnType<typeof buildApp>>;
