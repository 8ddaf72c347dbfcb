/**
 * POST /api/apps/upload (R10): a build arrives as multipart, streams to a temporary file in the data
 * directory while it is hashed, is parsed, then becomes a release (domain/uploads.ts). Whatever goes
 * wrong, the temporary file goes too: a refused, failed or aborted upload leaves nothing behind.
 *
 * The form is read as real clients send it: the file part before or after the fields, any boundary,
 * no Content-Type on the file part, a full path as the file name (its base name is kept), empty
 * fields meaning absent, the token in the query, a header or a form field.
 */
import type {} from '@fastify/multipart'; // request.parts()
import type { FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import Type from 'typebox';
import { ValidationError } from '../domain/errors.ts';
import type { Domain } from '../domain/index.ts';
import { access, authenticateDeferred } from '../http/access.ts';
import { BadRequestError } from '../http/errors.ts';
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

/** The base name of what a client sent as a file name (some send a full Windows or POSIX path). */
export function baseName(fileName: string): string {
  return fileName.split(/[\\/]/).pop()!.trim();
}

/** A pass-through that hashes and counts what flows through it. */
class Digest extends Transform {
  readonly hash = createHash('sha256');
  size = 0;
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null, data?: Buffer) => void): void {
    this.hash.update(chunk);
    this.size += chunk.length;
    done(null, chunk);
  }
}

interface UploadForm {
  fields: Record<string, string>;
  file: { fileName: string; size: number; sha256: string } | null;
  /** the temporary file, while it is ours to remove */
  tempPath: string | null;
}

/**
 * Reads the multipart form into `form` (so that the caller can remove the temporary file whatever
 * happens): text fields, and the file part streamed to a temporary file while it is hashed.
 */
async function readUploadForm(request: FastifyRequest, domain: Domain, form: UploadForm): Promise<void> {
  try {
    for await (const part of request.parts()) {
      if (part.type === 'field') {
        const value = typeof part.value === 'string' ? part.value : String(part.value ?? '');
        // An empty field is an absent one (R10), except `password`, where empty clears it.
        if (value === '' && part.fieldname !== 'password') continue;
        form.fields[part.fieldname] = value;
        // a bad token in the form is refused before a file that follows it is read
        if (part.fieldname === 'token') authenticateDeferred(request, domain, value);
        continue;
      }
      if (part.fieldname !== 'file' || form.file !== null) {
        part.file.resume(); // another file part: not ours to keep
        continue;
      }
      form.tempPath = await domain.ctx.files.newTempPath('.upload');
      const digest = new Digest();
      await pipeline(part.file, digest, domain.ctx.files.createTempWriteStream(form.tempPath));
      form.file = { fileName: baseName(part.filename) || 'upload', size: digest.size, sha256: digest.hash.digest('hex') };
    }
  } catch (error) {
    // busboy says what is wrong with the body (no boundary, cut short) with plain Errors: the
    // client's mistake. Our errors, multipart's (with a status) and the system's (ENOSPC: 507,
    // EIO: 500) keep their meaning.
    const plain = error instanceof Error && error.constructor === Error && !('statusCode' in error) && (error as NodeJS.ErrnoException).code === undefined;
    if (plain) throw new BadRequestError(`Malformed multipart body: ${error.message}`, { cause: error });
    throw error;
  }
}

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
    handler: async (request, reply) => {
      const form: UploadForm = { fields: {}, file: null, tempPath: null };
      try {
        await readUploadForm(request, domain, form);
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
      } finally {
        if (form.tempPath) await rm(form.tempPath, { force: true });
      }
    },
  });
}
