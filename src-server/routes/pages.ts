/**
 * The device pages: what a tester's phone opens after scanning a QR code (server-rendered HTML,
 * rendered by src-server/pages/):
 * - `/<slug>`: a channel, its newest release ready to install, then the earlier ones;
 * - `/<slug>/<id>`: a release (its `release_url`, R11);
 * - `/ca`: how to trust this installation's certificate authority;
 * - `/udid`, `/udid/device/<token>`: UDID registration and its result;
 * - the Font Awesome stylesheet and fonts that custom fields' icons use.
 *
 * A protected channel (R14) answers its pages with the password form (401) until the browser holds
 * the visit cookie. Anything unknown is a 404 page, not a JSON error: `/<slug>/abc` included, and for
 * browsers any other unknown path outside /api, which keeps its JSON. Absolute URLs come from the public base URLs, never
 * from the Host header (R11); links within the site are relative.
 */
import send from '@fastify/send';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Type from 'typebox';
import type { Channel, Release } from '../domain/context.ts';
import { NotFoundError } from '../domain/errors.ts';
import { access } from '../http/access.ts';
import { channelPage } from '../pages/channel-page.ts';
import { acceptsHtml, pageContext, pageHeaders, type PageContext } from '../pages/layout.ts';
import { notFoundPage } from '../pages/not-found-page.ts';
import { iconPath, type InstallLink } from '../pages/parts.ts';
import { passwordPage } from '../pages/password-page.ts';
import { releasePage } from '../pages/release-page.ts';
import { trustPage } from '../pages/trust-page.ts';
import { devicePage, udidPage } from '../pages/udid-page.ts';
import type { Api, RouteDeps } from './deps.ts';
import { downloadName, signedQuery } from './downloads.ts';
import { Id } from './schemas.ts';

/** Releases per channel page. */
export const RELEASES_PER_PAGE = 20;
/** Builds listed on a device's page. */
const DEVICE_RELEASES = 50;

const FONTAWESOME = dirname(fileURLToPath(import.meta.resolve('@fortawesome/fontawesome-free/package.json')));
/** The stylesheet's URL has no version in it, so it is cached for a month rather than for ever. */
const ASSET_MAX_AGE_MS = 30 * 24 * 3600 * 1000;

const Slug = Type.String({ maxLength: 64 });

const isApiPath = (url: string) => url === '/api' || /^\/api[/?]/.test(url);

export function pageRoutes(api: Api, { domain, config, urls, authority }: RouteDeps): void {
  const device = { access: access.public() };

  function sendPage(request: FastifyRequest, reply: FastifyReply, status: number, render: (ctx: PageContext) => string) {
    const ctx = pageContext(request.headers, { timeZone: config.timezone, secureBase: urls().secureBase });
    return reply.code(status).headers(pageHeaders(ctx)).send(render(ctx));
  }

  /** The 404 page; under /api, which `/:slug/:id` also matches, the API's own JSON answer. */
  function notFound(request: FastifyRequest, reply: FastifyReply) {
    if (isApiPath(request.url)) return reply.callNotFound();
    return sendPage(request, reply, 404, notFoundPage);
  }

  /** The password form, when the channel has a password the browser has not given yet; null otherwise. */
  function passwordGate(request: FastifyRequest, reply: FastifyReply, channel: Channel) {
    if (domain.visits.admits(channel, request.cookies[domain.visits.cookieName(channel)])) return null;
    return sendPage(request, reply, 401, (ctx) => passwordPage(ctx, { channel, returnTo: request.url }));
  }

  function releaseIn(channel: Channel, id: number): Release | null {
    try {
      const release = domain.releases.find(id);
      return release.channelId === channel.id ? release : null;
    } catch (error) {
      if (error instanceof NotFoundError) return null;
      throw error;
    }
  }

  /**
   * iOS: itms-services with the HTTPS manifest URL; a protected channel's carries a signed query (iOS
   * fetches without cookies), so the whole URL is percent-encoded inside `url=`. Others: the download.
   */
  function installLink(channel: Channel, release: Release): InstallLink {
    const link = { ios: release.deviceType === 'ios', fileName: downloadName(release, channel, config.timezone), size: release.size };
    if (!link.ios) return { ...link, href: `/download/releases/${release.id}` };
    const u = urls();
    const query = signedQuery(domain.visits, channel, release.id);
    const href = query
      ? `itms-services://?action=download-manifest&url=${encodeURIComponent(u.manifest(channel.slug, release.id) + query)}`
      : u.install('ios', channel.slug, release.id);
    return { ...link, href };
  }

  /** Is there a release after the first `count` of the channel? (reads one row: the page of one at that offset) */
  const releaseAfter = (channelId: number, count: number) => domain.releases.listOfChannel(channelId, { page: count + 1, perPage: 1 }).length > 0;

  api.get('/:slug', {
    config: device,
    attachValidation: true,
    schema: { hide: true, params: Type.Object({ slug: Slug }), querystring: Type.Object({ page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }) }) },
    handler: async (request, reply) => {
      if (request.validationError) return notFound(request, reply);
      const channel = domain.channels.findBySlug(request.params.slug);
      if (!channel) return notFound(request, reply);
      const gate = passwordGate(request, reply, channel);
      if (gate) return gate;
      const { page } = request.query;
      const releases = domain.releases.listOfChannel(channel.id, { page, perPage: RELEASES_PER_PAGE });
      if (page > 1 && releases.length === 0) return notFound(request, reply);
      const first = page === 1 ? releases.shift() : undefined;
      const newest = first ?? domain.releases.newest(channel.id);
      return sendPage(request, reply, 200, (ctx) =>
        channelPage(ctx, {
          app: domain.apps.find(domain.channels.appIdOf(channel)),
          channel,
          iconUrl: newest ? iconPath(newest) : null,
          newest: first ? { release: first, install: installLink(channel, first) } : null,
          releases,
          page,
          hasMore: releaseAfter(channel.id, page * RELEASES_PER_PAGE),
          pageUrl: `${urls().base}/${encodeURIComponent(channel.slug)}`,
        }),
      );
    },
  });

  api.get('/:slug/:id', {
    config: device,
    attachValidation: true,
    schema: { hide: true, params: Type.Object({ slug: Slug, id: Id }) },
    handler: async (request, reply) => {
      if (request.validationError) return notFound(request, reply);
      const channel = domain.channels.findBySlug(request.params.slug);
      if (!channel) return notFound(request, reply);
      const gate = passwordGate(request, reply, channel);
      if (gate) return gate;
      const release = releaseIn(channel, request.params.id);
      if (!release) return notFound(request, reply);
      const newest = domain.schemes.find(channel.schemeId).newBuildCallout ? domain.releases.newest(channel.id) : undefined;
      return sendPage(request, reply, 200, (ctx) =>
        releasePage(ctx, {
          channel,
          release,
          install: installLink(channel, release),
          newer: newest && newest.id !== release.id ? newest : null,
          pageUrl: urls().release(channel.slug, release.id),
        }),
      );
    },
  });

  api.get('/ca', {
    config: device,
    schema: { hide: true },
    handler: async (request, reply) => sendPage(request, reply, 200, (ctx) => trustPage(ctx, authority)),
  });

  api.get('/udid', {
    config: device,
    schema: { hide: true },
    handler: async (request, reply) => sendPage(request, reply, 200, (ctx) => udidPage(ctx, `${urls().base}/udid`)),
  });

  api.get('/udid/device/:token', {
    config: device,
    attachValidation: true,
    schema: { hide: true, params: Type.Object({ token: Type.String({ maxLength: 200 }) }) },
    handler: async (request, reply) => {
      const found = request.validationError ? null : domain.devices.fromPageToken(request.params.token);
      if (!found) return notFound(request, reply);
      // a channel with a visit password shows its builds only to a browser that gave it
      const releases = domain.releases
        .provisionedFor(found.udid, DEVICE_RELEASES)
        .map(({ release, allDevices }) => ({ release, allDevices, channel: domain.channels.find(release.channelId) }))
        .filter(({ channel }) => domain.visits.admits(channel, request.cookies[domain.visits.cookieName(channel)]));
      return sendPage(request, reply, 200, (ctx) => devicePage(ctx, { device: found, releases }));
    },
  });

  /** A file of the Font Awesome package, cached long (only the two routes below name one). */
  async function sendAsset(request: FastifyRequest, reply: FastifyReply, dir: string, file: string, type: string) {
    const result = await send(request.raw, `/${file}`, { root: join(FONTAWESOME, dir), maxAge: ASSET_MAX_AGE_MS, dotfiles: 'deny', index: false });
    if (result.type === 'error' && result.statusCode === 404) throw new NotFoundError('Asset');
    if (result.type === 'error') return reply.code(result.statusCode).send({ error: 'Cannot send the asset' });
    return reply.code(result.statusCode).headers(result.headers as Record<string, string>).header('content-type', type).send(result.stream);
  }

  api.get('/assets/fontawesome/css/all.min.css', {
    config: device,
    schema: { hide: true },
    handler: async (request, reply) => sendAsset(request, reply, 'css', 'all.min.css', 'text/css; charset=utf-8'),
  });

  api.get('/assets/fontawesome/webfonts/:file', {
    config: device,
    schema: { hide: true, params: Type.Object({ file: Type.String({ pattern: '^fa-[a-z0-9-]+\\.woff2$' }) }) },
    handler: async (request, reply) => sendAsset(request, reply, 'webfonts', request.params.file, 'font/woff2'),
  });

  // A path nothing serves goes to the not-found handler (http/errors.ts), which answers JSON: a
  // browser gets the 404 page instead, outside /api. (A catch-all route would do it too, but it would
  // also catch what the router refuses as too long, 414.)
  api.addHook('onRequest', (request, reply, done) => {
    if (request.is404 && acceptsHtml(request.headers.accept) && !isApiPath(request.url)) sendPage(request, reply, 404, notFoundPage);
    else done();
  });
}
