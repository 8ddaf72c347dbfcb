/**
 * GET /api/events: server-sent events for consoles (R13). Each connection gets the events of the apps
 * its user may read, as `event: <type>` with a JSON `data` line; a comment every 25 s keeps proxies
 * and the browser from closing it. Streams end when the server stops.
 */
import type { ServerResponse } from 'node:http';
import { isReleaseEvent, type HangarEvent } from '../domain/events.ts';
import { mayOnApp } from '../domain/policy.ts';
import { access, authOf } from '../http/access.ts';
import type { Api, RouteDeps } from './deps.ts';

const HEARTBEAT_MS = 25_000;

/** The JSON of an event as consoles receive it. */
export function eventData(event: HangarEvent): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(event)) data[key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)] = value;
  return data;
}

export function eventRoutes(api: Api, { domain }: RouteDeps): void {
  const open = new Set<ServerResponse>();
  api.addHook('preClose', async () => {
    for (const stream of open) stream.end();
  });

  api.get('/api/events', {
    config: { access: access.signedIn() },
    schema: {
      tags: ['Events'],
      summary: 'Live events (server-sent events)',
      description:
        'A `text/event-stream` of what happens to the apps you may read (the stream ends when the token is revoked or expires, or its user is locked): `release.created`, `build.available` (a new build whose ' +
        'scheme has `new_build_callout` on), `release.updated`, `release.deleted`, `release.downloaded`. Each `data` line is JSON ' +
        'with `type`, `app_id`, `channel_id`, `release_id` and, by type, `scheme_id`, `new_build_callout`, `reason`, `changelog_changed`. ' +
        'Every console also gets `server.address_changed` (`primary`, `addresses`, `base_url`, `secure_base_url`) when the LAN address changes.',
      produces: ['text/event-stream'],
    },
    handler: async (request, reply) => {
      const { credential } = authOf(request);
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
        'x-content-type-options': 'nosniff',
      });
      res.write('retry: 3000\n: connected\n\n');
      open.add(res);

      // The stream outlives the request: its token (or console session) is checked again on every
      // event and heartbeat, so revoking it, its expiry, signing out or locking its user ends the
      // stream, and role changes apply at once.
      const caller = () => {
        const current = credential.kind === 'token' ? domain.tokens.recheck(credential.id) : domain.sessions.recheck(credential.id);
        if (!current) res.end();
        return current?.actor ?? null;
      };
      const visible = (event: HangarEvent) => {
        const actor = caller();
        if (!actor) return false;
        if (!isReleaseEvent(event)) return true; // about the server: every console shows it
        try {
          return mayOnApp(actor, 'read', domain.apps.standing(actor, event.appId));
        } catch {
          return false; // the app is gone
        }
      };
      const unsubscribe = domain.ctx.events.subscribe((event) => {
        if (visible(event)) res.write(`event: ${event.type}\ndata: ${JSON.stringify(eventData(event))}\n\n`);
      });
      const heartbeat = setInterval(() => {
        if (caller()) res.write(': keep-alive\n\n');
      }, HEARTBEAT_MS);
      const done = () => {
        clearInterval(heartbeat);
        unsubscribe();
        open.delete(res);
      };
      res.on('close', done);
    },
  });
}
