/** The running build and its health (public). */
import Type from 'typebox';
import { access } from '../http/access.ts';
import type { Api, RouteDeps } from './deps.ts';

const tags = ['System'];

export function systemRoutes(api: Api, { buildInfo, dataVersion }: RouteDeps): void {
  api.get('/api/version', {
    config: { access: access.public() },
    schema: {
      tags,
      summary: 'The running build',
      response: {
        200: Type.Object({
          version: Type.String({ description: 'from package.json' }),
          vcs_ref: Type.String({ description: 'source-control revision the build was made from' }),
          build_date: Type.String({ description: 'ISO 8601 UTC with milliseconds' }),
        }),
      },
    },
    handler: async () => ({ version: buildInfo.version, vcs_ref: buildInfo.vcsRef, build_date: buildInfo.buildDate }),
  });

  api.get('/api/health', {
    config: { access: access.public(), accessLog: 'debug' },
    schema: {
      tags,
      summary: 'Health check',
      description: '200 `{"healthy":true}` when the database answers; 503 otherwise.',
      response: { 200: Type.Object({ healthy: Type.Literal(true) }), 503: Type.Object({ healthy: Type.Literal(false), error: Type.String() }) },
    },
    handler: async (_request, reply) => {
      try {
        dataVersion(); // a prepared query: the database answers
        return { healthy: true as const };
      } catch {
        reply.code(503);
        return { healthy: false as const, error: 'database unavailable' };
      }
    },
  });
}
