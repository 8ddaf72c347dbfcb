/** Reading, changing and deleting a release (R6). Uploads: routes/uploads.ts. */
import Type from 'typebox';
import { access } from '../http/access.ts';
import { releaseBody } from '../serializers/releases.ts';
import type { Api, RouteDeps } from './deps.ts';
import { OK } from './deps.ts';
import { errors, IdParams, OkBody } from './schemas.ts';

const tags = ['Releases'];
const ReleaseObject = Type.Object({}, { additionalProperties: true, description: 'a Release' });
const Text = (max: number) => Type.Optional(Type.String({ maxLength: max }));
const Changelog = Type.Optional(
  Type.Union([Type.String({ maxLength: 65536 }), Type.Array(Type.Union([Type.String(), Type.Object({ message: Type.String() }, { additionalProperties: true })]), { maxItems: 1000 })], {
    description: 'plain text (one entry per line) or an array of ReleaseChangelog',
  }),
);
const CustomFields = Type.Optional(Type.Union([Type.String({ maxLength: 65536 }), Type.Array(Type.Unknown(), { maxItems: 1000 })], { description: 'JSON text or an array of ReleaseCustomField' }));

export function releaseRoutes(api: Api, { domain, urls }: RouteDeps): void {
  const body = (release: ReturnType<typeof domain.releases.find>, shape: Parameters<typeof releaseBody>[2]) =>
    releaseBody(release, domain.channels.find(release.channelId), shape, urls());

  api.get('/api/releases/:id', {
    config: { access: access.app('read', 'release') },
    schema: { tags, summary: 'Get a release', params: IdParams, response: { 200: ReleaseObject, ...errors(401, 403, 404) } },
    handler: async (request) => body(domain.releases.find(request.params.id), request.shape),
  });

  for (const method of ['put', 'patch'] as const) {
    api[method]('/api/releases/:id', {
      config: { access: access.app('manage', 'release') },
      schema: {
        tags,
        summary: 'Update a release',
        description: 'Every field is optional; those not sent stay as they are.',
        params: IdParams,
        body: Type.Object({
          release_version: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
          build_version: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
          release_type: Text(64),
          source: Text(64),
          changelog: Changelog,
          branch: Text(255),
          git_commit: Text(255),
          ci_url: Text(2048),
          custom_fields: CustomFields,
        }),
        response: { 200: ReleaseObject, ...errors(401, 403, 404, 409) },
      },
      handler: async (request) => {
        const b = request.body;
        const release = domain.releases.update(request.params.id, {
          releaseVersion: b.release_version,
          buildVersion: b.build_version,
          releaseType: b.release_type,
          source: b.source,
          changelog: b.changelog as string | unknown[] | undefined,
          branch: b.branch,
          gitCommit: b.git_commit,
          ciUrl: b.ci_url,
          customFields: b.custom_fields,
        });
        return body(release, request.shape);
      },
    });
  }

  api.delete('/api/releases/:id', {
    config: { access: access.app('manage', 'release') },
    schema: { tags, summary: 'Delete a release', description: 'With its files. Its `version` is not reused.', params: IdParams, response: { 200: OkBody, ...errors(401, 403, 404, 409) } },
    handler: async (request) => {
      await domain.releases.delete(request.params.id);
      return OK;
    },
  });
}
