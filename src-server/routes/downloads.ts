/**
 * What devices fetch (R11), outside /api: downloads, iOS install manifests, icons, QR codes, and the
 * visit password of protected channels (R14, rate-limited per client and channel). The device pages
 * that link to these are routes/pages.ts.
 *
 * Downloads never load a file into memory: @fastify/send streams it, with byte ranges (206, so a
 * phone that dropped off Wi-Fi resumes) and HEAD. Their ETag is strong, the file's SHA-256: a
 * release's file never changes.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import send from '@fastify/send';
import { build as buildPlist } from 'plist';
import QRCode from 'qrcode';
import { basename, dirname } from 'node:path';
import Type from 'typebox';
import type { Channel, Release } from '../domain/context.ts';
import { NotFoundError, UnauthorizedError } from '../domain/errors.ts';
import { VISIT_COOKIE_MAX_AGE_S, type VisitService } from '../domain/visits.ts';
import { access } from '../http/access.ts';
import { sendStoredFile } from '../http/send-file.ts';
import { acceptsHtml, pageContext, pageHeaders } from '../pages/layout.ts';
import { passwordPage, type PasswordPageData } from '../pages/password-page.ts';
import { isoTimestamp } from '../serializers/time.ts';
import type { Api, RouteDeps } from './deps.ts';
import { Id } from './schemas.ts';

/** Content types that make each platform's browser do the right thing (an .apk must install). */
const CONTENT_TYPES: Record<string, string> = {
  '.apk': 'application/vnd.android.package-archive',
  '.ipa': 'application/octet-stream',
  '.aab': 'application/octet-stream',
  '.hap': 'application/octet-stream',
  '.app': 'application/octet-stream',
  '.exe': 'application/vnd.microsoft.portable-executable',
  '.msi': 'application/x-msi',
  '.deb': 'application/vnd.debian.binary-package',
  '.rpm': 'application/x-rpm',
  '.appimage': 'application/vnd.appimage',
  '.zip': 'application/zip',
  '.app.zip': 'application/zip',
  '.dmg': 'application/x-apple-diskimage',
};

/** ".ipa", ".app.zip": the extension of a stored release file (named release<ext>). */
function storedExtension(release: Release): string {
  return basename(release.filePath).replace(/^release/, '');
}

/** The name a download is saved under (download_filename_type, R11). */
export function downloadName(release: Release, channel: Channel, timeZone: string): string {
  if (channel.downloadFilenameType === 'original_filename') return release.fileName;
  const safe = (text: string) => text.replace(/[^A-Za-z0-9._-]+/g, '_');
  const stamp = isoTimestamp(release.createdAt, timeZone).slice(0, 16).replace(/[-T:]/g, '');
  return `${safe(channel.slug)}_${safe(release.releaseVersion)}_${safe(release.buildVersion)}_${stamp}${storedExtension(release)}`;
}

/** A path on this server to go back to after the password form, or null (never another site). */
export function localReturnPath(value: string | undefined): string | null {
  if (!value || /[\x00-\x1f\x7f\\]/.test(value) || !value.startsWith('/')) return null;
  const url = new URL(value, 'http://hangar.invalid');
  if (url.origin !== 'http://hangar.invalid') return null;
  return `${url.pathname}${url.search}${url.hash}`;
}

/** How long a signed link stays good: an install started from a page has hours to fetch its files. */
const SIGNED_LINK_TTL_MS = 6 * 3600 * 1000;

/**
 * `?exp=…&sig=…` for a release of a protected channel: lets a client without the visit cookie fetch
 * it (iOS fetches the install manifest and the .ipa itself, without the browser's cookies). Empty for
 * a channel without a password.
 */
export function signedQuery(visits: VisitService, channel: Channel, releaseId: number): string {
  if (channel.passwordHash === null) return '';
  const { exp, sig } = visits.signRelease(channel, releaseId, Date.now() + SIGNED_LINK_TTL_MS);
  return `?exp=${exp}&sig=${sig}`;
}

/** Wrong visit passwords a client may send for one channel in a window, before it must wait (R14). */
export const PASSWORD_ATTEMPTS = { max: 10, timeWindow: 60_000 };

const QrQuery = Type.Object({
  size: Type.Integer({ minimum: 64, maximum: 2048, default: 300, description: 'width in pixels (PNG)' }),
  theme: Type.Enum(['light', 'dark'], { default: 'light' }),
});
const THEMES = { light: { dark: '#000000ff', light: '#ffffffff' }, dark: { dark: '#ffffffff', light: '#111111ff' } };

export function downloadRoutes(api: Api, { domain, config, urls }: RouteDeps): void {
  const device = { access: access.public() };

  /** The release and its channel, or 404. */
  function lookup(id: number): { release: Release; channel: Channel } {
    const release = domain.releases.find(id);
    return { release, channel: domain.channels.find(release.channelId) };
  }

  /** A protected channel admits the visit cookie or a signed link (iOS fetches without cookies). */
  function admit(request: FastifyRequest, channel: Channel, releaseId: number): void {
    if (channel.passwordHash === null) return;
    const query = request.query as Record<string, unknown>;
    if (domain.visits.admitsSigned(channel, releaseId, query.exp, query.sig)) return;
    if (domain.visits.admits(channel, request.cookies[domain.visits.cookieName(channel)])) return;
    throw new UnauthorizedError('This channel is protected by a password');
  }

  function sendFile(request: FastifyRequest, reply: FastifyReply, release: Release, channel: Channel) {
    const file = {
      path: domain.ctx.files.resolve(release.filePath),
      sha256: release.sha256,
      contentType: CONTENT_TYPES[storedExtension(release).toLowerCase()] ?? 'application/octet-stream',
      downloadName: downloadName(release, channel, config.timezone),
    };
    return sendStoredFile(request, reply, file, () =>
      domain.ctx.events.emit({ type: 'release.downloaded', appId: domain.channels.appIdOf(channel), channelId: channel.id, releaseId: release.id }),
    );
  }

  api.get('/download/releases/:id', {
    config: device,
    schema: { hide: true, params: Type.Object({ id: Id }) },
    handler: async (request, reply) => {
      const { release, channel } = lookup(request.params.id);
      admit(request, channel, release.id);
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
      const name = encodeURIComponent(downloadName(release, channel, config.timezone));
      return reply.redirect(`/download/releases/${release.id}/${name}${query}`, 302);
    },
  });

  api.get('/download/releases/:id/:filename', {
    config: device,
    schema: { hide: true, params: Type.Object({ id: Id, filename: Type.String({ maxLength: 512 }) }) },
    handler: async (request, reply) => {
      const { release, channel } = lookup(request.params.id);
      admit(request, channel, release.id);
      return sendFile(request, reply, release, channel);
    },
  });

  api.get('/icons/releases/:file', {
    config: device,
    schema: { hide: true, params: Type.Object({ file: Type.String({ pattern: '^[1-9][0-9]{0,15}\\.png$' }) }) },
    handler: async (request, reply) => {
      const release = domain.releases.find(Number(request.params.file.slice(0, -4)));
      if (!release.iconPath) throw new NotFoundError('Icon');
      const path = domain.ctx.files.resolve(release.iconPath);
      const result = await send(request.raw, `/${basename(path)}`, { root: dirname(path), maxAge: 365 * 24 * 3600 * 1000, immutable: true, dotfiles: 'allow', index: false });
      if (result.type === 'error' && result.statusCode === 404) throw new NotFoundError('Icon');
      if (result.type === 'error') return reply.code(result.statusCode).send({ error: 'Cannot send the icon' });
      return reply.code(result.statusCode).headers(result.headers as Record<string, string>).header('content-type', 'image/png').send(result.stream);
    },
  });

  const ReleasePath = Type.Object({ slug: Type.String({ maxLength: 64 }), id: Id });

  /** The release of a device URL, which must belong to the channel the URL names. */
  function releaseAt(slug: string, id: number): { release: Release; channel: Channel } {
    const found = lookup(id);
    if (found.channel.slug.toLowerCase() !== slug.toLowerCase()) throw new NotFoundError('Release');
    return found;
  }

  api.get('/channels/:slug/releases/:id/install', {
    config: device,
    schema: { hide: true, params: ReleasePath },
    handler: async (request, reply) => {
      const { release, channel } = releaseAt(request.params.slug, request.params.id);
      if (release.deviceType !== 'ios') throw new NotFoundError('Install manifest');
      admit(request, channel, release.id);
      const u = urls();
      const file = `${u.secureBase}/download/releases/${release.id}/${encodeURIComponent(downloadName(release, channel, config.timezone))}${signedQuery(domain.visits, channel, release.id)}`;
      const assets: Record<string, string>[] = [{ kind: 'software-package', url: file }];
      if (release.iconPath) assets.push({ kind: 'display-image', url: `${u.secureBase}/icons/releases/${release.id}.png` });
      const manifest = buildPlist({
        items: [
          {
            assets,
            metadata: { 'bundle-identifier': release.bundleId, 'bundle-version': release.releaseVersion, kind: 'software', title: release.appName },
          },
        ],
      });
      return reply.header('content-type', 'application/xml; charset=utf-8').header('cache-control', 'no-store').send(manifest);
    },
  });

  for (const format of ['png', 'svg'] as const) {
    api.get(format === 'png' ? '/channels/:slug/releases/:id/qrcode' : '/channels/:slug/releases/:id/qrcode.svg', {
      config: device,
      schema: { hide: true, params: ReleasePath, querystring: QrQuery },
      handler: async (request, reply) => {
        const { release, channel } = releaseAt(request.params.slug, request.params.id);
        const text = urls().release(channel.slug, release.id);
        const options = { errorCorrectionLevel: 'M' as const, margin: 2, color: THEMES[request.query.theme as 'light' | 'dark'] };
        reply.header('cache-control', 'public, max-age=300');
        if (format === 'svg') return reply.header('content-type', 'image/svg+xml').send(await QRCode.toString(text, { ...options, type: 'svg' }));
        return reply.header('content-type', 'image/png').send(await QRCode.toBuffer(text, { ...options, type: 'png', width: request.query.size }));
      },
    });
  }

  /** Counts wrong visit passwords per client address and channel (read first, counted when wrong). */
  const wrongPasswords = api.createRateLimit({
    ...PASSWORD_ATTEMPTS,
    keyGenerator: (request) => `${request.ip} ${(request.params as { slug: string }).slug.toLowerCase()}`,
  });

  api.post('/channels/:slug/password', {
    config: device,
    schema: {
      hide: true,
      params: Type.Object({ slug: Type.String({ maxLength: 64 }) }),
      body: Type.Object({ password: Type.String({ maxLength: 128 }), return_to: Type.Optional(Type.String({ maxLength: 2048 })) }),
    },
    handler: async (request, reply) => {
      const channel = domain.channels.findBySlug(request.params.slug);
      if (!channel) throw new NotFoundError('Channel');
      // a browser posting the password page's form gets that page again; other clients get JSON
      const browser = String(request.headers['content-type']).startsWith('application/x-www-form-urlencoded') && acceptsHtml(request.headers.accept);
      const back = localReturnPath(request.body.return_to);
      const formAgain = (status: number, problem: PasswordPageData['problem']) => {
        const ctx = pageContext(request.headers, { timeZone: config.timezone, secureBase: urls().secureBase });
        const page = passwordPage(ctx, { channel, returnTo: back ?? `/${encodeURIComponent(channel.slug)}`, problem });
        return reply.code(status).headers(pageHeaders(ctx)).send(page);
      };

      const limit = await wrongPasswords(request, { increment: false });
      if (!limit.isAllowed && limit.remaining === 0) {
        reply.header('retry-after', String(limit.ttlInSeconds));
        if (browser) return formAgain(429, { retryAfter: limit.ttlInSeconds });
        return reply.code(429).send({ error: `Too many wrong passwords; try again in ${limit.ttlInSeconds} seconds` });
      }
      const cookie = await domain.visits.enter(channel, request.body.password);
      if (cookie === null) {
        const counted = await wrongPasswords(request);
        if (!counted.isAllowed && counted.remaining === 0) {
          request.log.warn({ channel: channel.id, client: request.ip }, 'too many wrong visit passwords: the client must wait');
        }
        if (browser) return formAgain(401, { wrong: true });
        throw new UnauthorizedError('Wrong password');
      }
      reply.setCookie(domain.visits.cookieName(channel), cookie, { path: '/', httpOnly: true, sameSite: 'lax', maxAge: VISIT_COOKIE_MAX_AGE_S });
      // only a path on this server: never an open redirect
      if (back) return reply.redirect(back, 303);
      return reply.code(204).send();
    },
  });
}
