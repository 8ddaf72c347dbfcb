/**
 * POST /api/apps/upload (R10): a build arrives as multipart, streams to a temporary file in the data
 * directory while it is hashed (http/multipart.ts), is parsed, then becomes a release
 * (domain/uploads.ts). Whatever goes wrong, the temporary file goes too: a refused, failed or aborted
 * upload leaves nothing behind.
 */
import Type from 'typebox';
import { ValidationError } from '../domain/errors.ts';
import { access, authenticateDeferred } from '../http/access.ts';
import { withUploadForm } from '../http/multipart.ts';
import { validateFormFields } from '../http/validation.ts';
import { releaseBody } from '../serializers/releases.ts';
import type { Api, RouteDeps } from './deps.ts';
import { Name, errors } from './schemas.ts';

/** The text fields of the upload form; they validate the form once it is read. */
export const UploadFields = Type.Object({
  token: Type.Optional(Type.String({ maxLength: 256, description: 'a personal access token (or send it as Bearer or ?token=)' })),
  channel_key: Type.Optional(Type.String({ maxLength: 128, description: "the channel's key; when absent, a new app is created" })),
  name: Type.Optional({ ...Name, description: 'app name; default: the name in the binary' }),
  release_type: Type.Optional(Type.String({ maxLength: 64, description: 'e.g. debug, beta, adhoc, release, enterprise' })),
  source: Type.Optional(Type.String({ maxLength: 64, description: 'where the upload comes from (default `api`)' })),
  changelog: Type.Optional(Type.String({ maxLength: 65536, description: 'plain text (one entry per line) or a JSON array of ReleaseChangelog' })),
  branch: Type.Optional(Type.String({ maxLength: 255, description: 'a leading `origin/` is stripped' })),
  git_commit: Type.Optional(Type.String({ maxLength: 255 })),
  ci_url: Type.Optional(Type.String({ maxLength: 2048 })),
  custom_fields: Type.Optional(Type.String({ maxLength: 65536, description: 'JSON, usually an array of ReleaseCustomField' })),
  password: Type.Optional(Type.String({ maxLength: 128, description: "sets the channel's visit password; empty clears it" })),
});
type Fields = Partial<Record<keyof typeof UploadFields.properties, string>>;

const UploadForm = Type.Object({ file: Type.String({ format: 'binary', description: 'the app binary' }), ...UploadFields.properties });

export function uploadRoutes(api: Api, { domain, urls }: RouteDeps): void {
  api.post('/api/apps/upload', {
    config: {
      access: access.deferred('Any signed-in user; with a `channel_key`, app admins and developers of its app (and global admins and developers).'),
    },
    // The multipart body is read by the handler; the schema documents it and validates its fields there.
    validatorCompiler: () => () => true,
    schema: {
      tags: ['Apps'],
      summary: 'Upload a build',
      description:
        'Multipart form. Answers 201 with the release, its app, scheme and channel, and its release, install and QR-code URLs. ' +
        'An unreadable file is 422; an unknown `channel_key` is 422 "Unauthorized channel key"; a build that does not fit the channel (device type, bundle id) is 422.',
      consumes: ['multipart/form-data'],
      body: UploadForm,
      response: { 201: Type.Object({}, { additionalProperties: true, description: 'the release (upload shape)' }), ...errors(400, 401, 403, 409, 413, 415, 422, 507) },
    },
    handler: async (request, reply) =>
      // An empty field is an absent one (R10), except `password`, where empty clears it.
      withUploadForm(request, domain, { keepEmpty: ['password'] }, async (form) => {
        const { fields, file, tempPath } = form;
        const auth = authenticateDeferred(request, domain, fields.token);
        const entry = validateFormFields(UploadFields, fields);
        if (entry) throw new ValidationError(entry);
        if (!file || !tempPath) throw ValidationError.field('file', "can't be blank");

        const f = fields as Fields;
        const result = await domain.uploads.upload(
          auth.actor,
          {
            channelKey: f.channel_key,
            name: f.name,
            releaseType: f.release_type,
            source: f.source,
            changelog: f.changelog,
            branch: f.branch,
            gitCommit: f.git_commit,
            ciUrl: f.ci_url,
            customFields: f.custom_fields,
            password: f.password,
          },
          { tempPath, ...file },
        );
        form.tempPath = null; // moved into place
        if (result.retentionError) request.log.error({ err: result.retentionError, schemeId: result.scheme.id }, 'retention after an upload failed');
        reply.code(201);
        return releaseBody(result.release, result.channel, request.shape, urls(), {
          app: domain.apps.get(result.app.id),
          collaborators: domain.apps.collaborators(result.app.id),
          scheme: result.scheme,
        });
      }),
  });
}
