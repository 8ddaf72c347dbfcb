/**
 * The operator console for browsers at /console/: the same React build the desktop app shows
 * (electron-vite writes it to out/renderer), served as static files. It signs in with a session
 * (routes/session.ts) and talks to the API like any client. Hash routes (#/apps/1) keep every page
 * at /console/, so no path rewriting is needed.
 *
 * index.html is revalidated on each load (a new build takes effect at once); the files under
 * assets/ carry a content hash in their names and are cached for a year. Framing is refused.
 */
import send from '@fastify/send';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Type from 'typebox';
import { NotFoundError } from '../domain/errors.ts';
import { access } from '../http/access.ts';
import type { Api, RouteDeps } from './deps.ts';

/**
 * Where the built console is: next to the sources (src-server/routes → out/renderer) or, in the
 * desktop app's bundle, next to the main process (out/main → out/renderer). Null when not built.
 */
export function findConsoleBuild(): string | null {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [resolve(here, '../../out/renderer'), resolve(here, '../renderer')];
  return candidates.find((dir) => existsSync(join(dir, 'index.html'))) ?? null;
}

const YEAR_MS = 365 * 24 * 3600 * 1000;

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Hangar console</title>
<p>The console has not been built yet. Run <code>npm run build</code> (bin/hangar does it when needed), then reload.</p>`;

export function consoleRoutes(api: Api, _deps: RouteDeps, dir: string | null): void {
  const page = { access: access.public() };

  async function serve(request: FastifyRequest, reply: FastifyReply, path: string) {
    reply.header('x-frame-options', 'DENY').header('referrer-policy', 'no-referrer');
    if (dir === null) return reply.code(503).header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-store').send(NOT_BUILT);
    const immutable = path.startsWith('assets/');
    // send() confines the path to the folder (no .., no dotfiles)
    const result = await send(request.raw, `/${path}`, {
      root: dir,
      dotfiles: 'deny',
      index: false,
      ...(immutable ? { maxAge: YEAR_MS, immutable: true } : { cacheControl: false }),
    });
    if (result.type === 'error') {
      if (result.statusCode === 404 || result.statusCode === 403) throw new NotFoundError('File');
      return reply.code(result.statusCode).send({ error: 'Cannot send the file' });
    }
    reply.code(result.statusCode).headers(result.headers as Record<string, string>);
    if (!immutable) reply.header('cache-control', 'no-cache');
    return reply.send(result.stream);
  }

  // The router ignores a trailing slash, so /console and /console/ both land here: the page's
  // relative asset URLs need the slash.
  api.get('/console', {
    config: page,
    schema: { hide: true },
    handler: async (request, reply) => (request.url.split('?')[0]!.endsWith('/') ? serve(request, reply, 'index.html') : reply.redirect('/console/', 301)),
  });

  api.get('/console/*', {
    config: page,
    schema: { hide: true, params: Type.Object({ '*': Type.String({ maxLength: 256 }) }) },
    handler: async (request, reply) => serve(request, reply, request.params['*'] || 'index.html'),
  });
}
