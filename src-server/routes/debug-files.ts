/**
 * Debug files (R15): the symbols CI uploads next to a build (fastlane's `zealot_debug_file`), for
 * crash symbolication. Uploads and replacements stream in like builds (http/multipart.ts) and are
 * read by parsers/debug-archive.ts; domain/debug-files.ts holds the rules.
 *
 * Access: uploading, replacing and deleting need the manage right on the channel's app (checked by
 * the domain once the form has named the channel); reading one by id needs the read right. The list
 * and the download are keyed by `channel_key` (R2). The file itself, at `file_url`, wants the
 * channel key too, or the signed link the download hands out (so that any HTTP client can follow
 * the redirect): symbols describe a build's code and are not for anyone who can count ids.
 */
import type { FastifyRequest } from 'fastify';
import Type, { type TSchema } from 'typebox';
import type { DebugFileForm, DebugFileView } from '../domain/debug-files.ts';
import { DOWNLOAD_ORDERS } from '../domain/debug-files.ts';
import { NotFoundError, UnauthorizedError, ValidationError } from '../domain/errors.ts';
import { access, authenticateDeferred, authOf } from '../http/access.ts';
import { withUploadForm, type UploadForm } from '../http/multipart.ts';
import { sendStoredFile } from '../http/send-file.ts';
import { validateFormFields, validatorCompiler } from '../http/validation.ts';
import { debugFileBody } from '../serializers/debug-files.ts';
import type { Api, RouteDeps } from './deps.ts';
import { OK } from './deps.ts';
import { errors, Id, IdParams, OkBody, only, Pagination } from './schemas.ts';

const tags = ['Debug files'];

const Timestamp = Type.String({ description: 'base: 2026-11-21T14:03:05.123+08:00; extended: 2026-11-21 14:03:05 +0800' });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const FileList = Type.Array(Type.Object({ name: Type.String({ description: 'path in the zip' }), size: Type.Integer() }));

const MetadataBody = Type.Object(
  {
    id: Type.Integer(),
    debug_file_id: only('base', Type.Integer()),
    category: only('extended', Type.Enum(['dSYM', 'Proguard'])),
    uuid: Nullable(Type.String({ description: 'dSYM: the slice\'s LC_UUID; Proguard: UUIDv5 of mapping.txt (null without one)' })),
    type: only('base', Type.String({ description: 'the architecture (arm64, armv7, x86_64, ...) or `proguard`' })),
    object: only('base', Nullable(Type.String({ description: 'the binary\'s name, or the package name' }))),
    data: only('base', Type.Object({}, { additionalProperties: true, description: 'dSYM: `main`, `identifier`; Proguard: `files`, and `package_name`, `version_name`, `version_code` from the manifest' })),
    bundle_id: only('extended', Nullable(Type.String({ description: 'of the binary, or the package name' }))),
    name: only('extended', Nullable(Type.String({ description: 'the binary\'s name, or the package name' }))),
    extension: only('extended', Type.Boolean({ description: 'an extension or framework, not the app\'s own binary' })),
    files: only('extended', FileList, 'Proguard entries'),
    size: Type.Integer({ description: 'bytes of the slice; of the archive\'s files together (Proguard)' }),
    created_at: Timestamp,
    updated_at: only('base', Timestamp),
  },
  { title: 'DebugFileMetadata' },
);

const DebugFileBody = Type.Object(
  {
    id: Type.Integer(),
    app_name: Type.String(),
    device_type: Type.String({ description: 'base: `ios`, `macos`, `android`; extended: `iOS`, `macOS`, `Android`' }),
    release_version: Type.String(),
    build_version: Type.String(),
    file_url: only('base', Type.String({ description: '<base>/download/debug_files/<id>: give it the `channel_key`' })),
    metadata: Type.Array(MetadataBody, { description: 'one entry per Mach-O slice of a dSYM, one for an Android archive' }),
  },
  { title: 'DebugFile' },
);

/** Optional in the schemas so that a missing key answers like an unknown one (R2), not as a blank field. */
const ChannelKey = Type.Optional(Type.String({ maxLength: 128, description: "the channel's key" }));
const Version = (what: string) => Type.Optional(Type.String({ maxLength: 255, description: what }));

/** The text fields of the upload and replace forms. */
const DebugFileFields = Type.Object({
  token: Type.Optional(Type.String({ maxLength: 256, description: 'a personal access token (or send it as Bearer or ?token=)' })),
  channel_key: ChannelKey,
  release_version: Version('required for Android archives; a dSYM\'s own Info.plist wins'),
  build_version: Version('required for Android archives; a dSYM\'s own Info.plist wins'),
});
type Fields = Partial<Record<keyof typeof DebugFileFields.properties, string>>;
const DebugFileForm = Type.Object({
  file: Type.String({ format: 'binary', description: 'a zip of dSYM bundles, or of mapping.txt, R.txt and/or AndroidManifest.xml' }),
  ...DebugFileFields.properties,
});

const ManageAccess = access.deferred('App admins and developers of the channel\'s app (and global admins and developers).');

export function debugFileRoutes(api: Api, { domain, config, urls }: RouteDeps): void {
  const body = (request: FastifyRequest, view: DebugFileView) => debugFileBody(view, request.shape, urls());

  /** The caller and the fields of an upload or replace form, with its zip (422 without one). */
  function readForm(request: FastifyRequest, form: UploadForm) {
    const { fields, file, tempPath } = form;
    const auth = authenticateDeferred(request, domain, fields.token);
    const entry = validateFormFields(DebugFileFields, fields);
    if (entry) throw new ValidationError(entry);
    if (!file || !tempPath) throw ValidationError.field('file', "can't be blank");
    const f = fields as Fields;
    const versions: DebugFileForm = { releaseVersion: f.release_version, buildVersion: f.build_version };
    return { actor: auth.actor, channelKey: f.channel_key, versions, archive: { tempPath, ...file } };
  }

  const multipartSchema = {
    consumes: ['multipart/form-data'],
    body: DebugFileForm,
  };
  // The multipart body is read by the handler (its schema documents it and validates its fields there).
  const formValidator: typeof validatorCompiler = (route) => (route.httpPart === 'body' ? () => true : validatorCompiler(route));

  api.post('/api/debug_files/upload', {
    config: { access: ManageAccess },
    validatorCompiler: formValidator,
    schema: {
      tags,
      summary: 'Upload debug symbols',
      description:
        'Multipart form. A zip of one or more dSYM bundles (iOS and macOS channels: versions from the bundle\'s Info.plist), or of ' +
        '`mapping.txt`, `R.txt` and/or `AndroidManifest.xml` (Android channels: `release_version` and `build_version` required). ' +
        'A zip the channel holds already is 422 `entry.checksum`; one that is neither kind, or too large inflated, is 422.',
      ...multipartSchema,
      response: { 201: DebugFileBody, ...errors(400, 401, 403, 409, 413, 415, 422, 507) },
    },
    handler: async (request, reply) =>
      withUploadForm(request, domain, {}, async (form) => {
        const { actor, channelKey, versions, archive } = readForm(request, form);
        const view = await domain.debugFiles.upload(actor, channelKey, versions, archive, config.symbolLimits);
        form.tempPath = null; // moved into place
        reply.code(201);
        return body(request, view);
      }),
  });

  api.get('/api/debug_files', {
    config: { access: access.public() },
    schema: {
      tags,
      summary: "A channel's debug files",
      description: 'Newest first.',
      querystring: Type.Object({ channel_key: ChannelKey, ...Pagination }),
      response: { 200: Type.Array(DebugFileBody), ...errors(422) },
    },
    handler: async (request) => {
      const { channel_key: key, page, per_page: perPage } = request.query;
      const channel = domain.debugFiles.channelByKey(key);
      return domain.debugFiles.list(channel, { page, perPage }).map((view) => body(request, view));
    },
  });

  api.get('/api/debug_files/download', {
    config: { access: access.public() },
    schema: {
      tags,
      summary: 'Download debug symbols by version',
      description:
        '302 to the file (its `file_url`, with a signed query good for an hour). `release_version` and `build_version` pick that ' +
        'build (the highest or last uploaded of its files when `build_version` is left out); `release_version=latest` picks ' +
        'among all the channel\'s files. `order`: `version` (highest version, the default) or `upload_date` (last uploaded). 404 when none fits.',
      querystring: Type.Object({
        channel_key: ChannelKey,
        release_version: Type.String({ minLength: 1, maxLength: 255, description: 'a release version, or `latest`' }),
        build_version: Version('a build version of that release'),
        order: Type.Enum(DOWNLOAD_ORDERS, { default: 'version' }),
      }),
      response: { 302: Type.Null({ description: 'Location: the file' }), ...errors(404, 422) },
    },
    handler: async (request, reply) => {
      const { channel_key: key, release_version: releaseVersion, build_version: buildVersion, order } = request.query;
      const channel = domain.debugFiles.channelByKey(key);
      const file = domain.debugFiles.pick(channel, { releaseVersion, buildVersion, order });
      if (!file) throw new NotFoundError('Debug file');
      return reply.redirect(`${urls().debugFile(file.id)}?${domain.debugFiles.signedQuery(file)}`, 302);
    },
  });

  const ById = { params: IdParams, querystring: Type.Object({ channel_key: Type.Optional(Type.String({ maxLength: 128, description: 'when given, the file must be of this channel' })) }) };

  api.get('/api/debug_files/:id', {
    config: { access: access.signedIn() },
    schema: { tags, summary: 'Get a debug file', description: 'Needs the read right on the channel\'s app.', ...ById, response: { 200: DebugFileBody, ...errors(401, 403, 404) } },
    handler: async (request) => body(request, domain.debugFiles.get(authOf(request).actor, request.params.id, request.query.channel_key)),
  });

  api.put('/api/debug_files/:id', {
    config: { access: ManageAccess },
    validatorCompiler: formValidator,
    schema: {
      tags,
      summary: 'Replace a debug file',
      description: 'Multipart form, as the upload: the new zip replaces the file, its versions and its metadata.',
      params: IdParams,
      ...multipartSchema,
      response: { 200: DebugFileBody, ...errors(400, 401, 403, 404, 409, 413, 415, 422, 507) },
    },
    handler: async (request) =>
      withUploadForm(request, domain, {}, async (form) => {
        const { actor, channelKey, versions, archive } = readForm(request, form);
        const view = await domain.debugFiles.replace(actor, request.params.id, channelKey, versions, archive, config.symbolLimits);
        form.tempPath = null; // moved into place
        return body(request, view);
      }),
  });

  api.delete('/api/debug_files/:id', {
    config: { access: access.signedIn() },
    schema: { tags, summary: 'Delete a debug file', description: 'With its file. Needs the manage right on the channel\'s app.', ...ById, response: { 200: OkBody, ...errors(401, 403, 404, 409) } },
    handler: async (request) => {
      await domain.debugFiles.delete(authOf(request).actor, request.params.id, request.query.channel_key);
      return OK;
    },
  });

  api.get('/download/debug_files/:id', {
    config: { access: access.public() },
    schema: {
      hide: true,
      params: Type.Object({ id: Id }),
      querystring: Type.Object({
        channel_key: Type.Optional(Type.String({ maxLength: 128 })),
        exp: Type.Optional(Type.String({ maxLength: 16 })),
        sig: Type.Optional(Type.String({ maxLength: 128 })),
      }),
    },
    handler: async (request, reply) => {
      const file = domain.debugFiles.find(request.params.id);
      const { channel_key: channelKey, exp, sig } = request.query;
      if (!domain.debugFiles.admitsDownload(file, { channelKey, exp, sig })) {
        throw new UnauthorizedError('This file needs its channel_key, or the signed link /api/debug_files/download gives');
      }
      const slug = domain.channels.find(file.channelId).slug;
      const stored = {
        path: domain.ctx.files.resolve(file.filePath),
        sha256: file.sha256,
        contentType: 'application/zip',
        downloadName: `${slug}_${file.releaseVersion}_${file.buildVersion}_${file.fileName}`.replace(/[\\/]/g, '_'),
      };
      return sendStoredFile(request, reply, stored);
    },
  });
}
