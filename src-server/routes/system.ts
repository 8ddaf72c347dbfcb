/** The running build and its health (public), and where the server runs (for consoles). */
import { statfs } from 'node:fs/promises';
import Type from 'typebox';
import { access } from '../http/access.ts';
import type { Api, RouteDeps } from './deps.ts';
import { errors } from './schemas.ts';

const tags = ['System'];

export function systemRoutes(api: Api, { buildInfo, dataVersion, config, domain, urls, host, authority }: RouteDeps): void {
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

  api.get('/api/server', {
    config: { access: access.signedIn() },
    schema: {
      tags,
      summary: 'Where the server runs',
      description:
        'For consoles: the URLs devices use, the LAN addresses, HTTPS and mDNS, the certificate authority devices must trust, and storage ' +
        '(bytes of the binaries and symbols kept, and the free and total space of the disk holding the data folder).',
      response: {
        200: Type.Object({
          version: Type.String(),
          base_url: Type.String(),
          secure_base_url: Type.String(),
          https_port: Type.Union([Type.Integer(), Type.Null()]),
          primary: Type.String({ description: 'the LAN address absolute URLs use' }),
          addresses: Type.Array(Type.Object({ interface: Type.String(), address: Type.String(), family: Type.String() })),
          mdns: Type.Boolean({ description: 'advertised on the LAN as _hangar._tcp' }),
          ca: Type.Object({ common_name: Type.String(), fingerprint256: Type.String(), not_after: Type.String() }),
          storage: Type.Object({
            files_bytes: Type.Integer({ description: 'binaries and symbols kept, in all' }),
            releases_bytes: Type.Integer(),
            debug_files_bytes: Type.Integer(),
            free_bytes: Type.Integer({ description: 'free space of the disk holding the data folder' }),
            total_bytes: Type.Integer(),
          }),
        }),
        ...errors(401, 403),
      },
    },
    handler: async () => {
      const now = host();
      const u = urls();
      const disk = await statfs(config.dataDir);
      const stored = domain.usage.storedBytes();
      return {
        version: buildInfo.version,
        base_url: u.base,
        secure_base_url: u.secureBase,
        https_port: now.httpsPort,
        primary: now.primary,
        addresses: now.addresses,
        mdns: now.mdns,
        ca: { common_name: authority.commonName, fingerprint256: authority.fingerprint256, not_after: authority.notAfter.toISOString() },
        storage: {
          files_bytes: stored.releases + stored.debugFiles,
          releases_bytes: stored.releases, debug_files_bytes: stored.debugFiles, free_bytes: disk.bavail * disk.bsize, total_bytes: disk.blocks * disk.bsize },
      };
    },
  });
}
