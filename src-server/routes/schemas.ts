/**
 * Schemas shared by the routes. Request schemas validate (http/validation.ts) and, together with the
 * response schemas, make the OpenAPI document at /api/openapi.json: there is no other copy of them.
 *
 * Response schemas describe both shapes at once: fields only one shape has are optional and say so.
 * They document; they do not filter (responses are serialised as the serializers build them), and the
 * API tests check every response against them.
 */
import Type, { type TSchema } from 'typebox';
import { APP_SCOPES } from '../domain/apps.ts';
import { ROLE_INPUTS } from '../domain/roles.ts';
import { APPEARANCES, LOCALES, TIMEZONES } from '../domain/user-settings.ts';
import { DEVICE_TYPES, DOWNLOAD_FILENAME_TYPES } from '../storage/schema.ts';

// ---- building blocks -------------------------------------------------------------------------

export const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
export const IdParams = Type.Object({ id: Id });

/** A display name: 1-255 characters, at least one of them visible (not a space, not zero-width). */
export const Name = Type.String({ minLength: 1, maxLength: 255, pattern: '[^\\s\\u200B-\\u200D\\u2060\\uFEFF]' });

export const Pagination = {
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'page number, from 1' }),
  per_page: Type.Integer({ minimum: 1, maximum: 100, default: 25, description: 'items per page, 1-100' }),
};

export const Email = Type.String({ minLength: 1, maxLength: 254, format: 'email' });
export const Username = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[\\p{L}\\p{M}\\p{N}._-]+$',
  description: 'letters and digits of any script, ".", "_" and "-"',
});
export const Password = Type.String({ minLength: 8, maxLength: 128 });
export const RoleInput = Type.Enum(ROLE_INPUTS, { description: '`user` and `member` name the same role' });
export const Locale = Type.Enum(LOCALES);
export const Appearance = Type.Enum(APPEARANCES);
export const TimeZone = Type.Enum(TIMEZONES);
export const DeviceTypeInput = Type.Enum(DEVICE_TYPES, {
  description: 'any letter case; `harmonyos` only in the extended shape',
});
export const DownloadFilenameType = Type.Enum(DOWNLOAD_FILENAME_TYPES);
export const Slug = Type.String({
  maxLength: 64,
  pattern: '^([A-Za-z0-9][A-Za-z0-9_-]*)?$',
  description: 'letters, digits, "-" and "_"; empty or absent on create (empty on update): a random one',
});
export const AppScope = Type.Enum(APP_SCOPES, { default: 'all' });

/** Marks a response field that only one shape carries. */
export function only<T extends TSchema>(shape: 'base' | 'extended', schema: T, note = '') {
  return Type.Optional({ ...schema, description: `${shape} shape only${note ? `; ${note}` : ''}` } as T);
}

// ---- responses -------------------------------------------------------------------------------

export const ErrorBody = Type.Object(
  {
    error: Type.String(),
    entry: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String()), { description: 'field -> messages (422)' })),
  },
  { title: 'Error' },
);

export const OkBody = Type.Object({ mesage: Type.Literal('OK', { description: 'spelled so, as Zealot does' }) });

const Timestamp = Type.String({
  description: 'base: 2026-11-21T14:03:05.123+08:00; extended: 2026-11-21 14:03:05 +0800',
});
const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);
const RoleOutput = Type.Enum(['admin', 'developer', 'member', 'user'], { description: 'base: `user`; extended: `member`' });

export const ChannelBody = Type.Object(
  {
    id: only('extended', Type.Integer()),
    slug: Type.String(),
    name: Type.String(),
    device_type: Type.Enum(DEVICE_TYPES),
    bundle_id: Type.String({ description: '`*` accepts any' }),
    git_url: Type.Union([Type.String(), Type.Null()]),
    has_password: Type.Boolean(),
    key: only('base', Type.String(), 'on channel and scheme endpoints'),
    download_filename_type: only('extended', Type.Enum(DOWNLOAD_FILENAME_TYPES)),
  },
  { title: 'Channel' },
);

export const SchemeBody = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    new_build_callout: Type.Boolean(),
    retained_builds: Type.Integer(),
    app: only('base', Type.Object({ id: Type.Integer(), name: Type.String() }), 'on scheme endpoints'),
    channels: Type.Array(ChannelBody),
  },
  { title: 'Scheme' },
);

export const CollaboratorBody = Type.Object(
  {
    id: Type.Integer({ description: 'the user id' }),
    username: Type.String(),
    email: Type.String(),
    role: RoleOutput,
    owner: Type.Boolean({ description: 'the owner cannot be removed or re-roled' }),
  },
  { title: 'Collaborator' },
);

export const AppBody = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    archived: only('extended', Type.Boolean()),
    schemes: Type.Array(SchemeBody),
    collaborators: only('extended', Type.Array(CollaboratorBody), 'in single-app responses'),
  },
  { title: 'App' },
);

export const UserBody = Type.Object(
  {
    id: Type.Integer(),
    username: Type.String(),
    email: Type.String(),
    locale: Type.Enum(LOCALES),
    appearance: Type.Enum(APPEARANCES),
    timezone: Type.String(),
    role: RoleOutput,
    locked: Type.Boolean(),
  },
  { title: 'User' },
);

export const TokenBody = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    prefix: Type.String({ description: 'the first characters of the value' }),
    token: Type.Optional(Type.String({ description: 'the value: only in the answer to its creation, never again' })),
    last_used_at: NullableTimestamp,
    expires_at: NullableTimestamp,
    created_at: Timestamp,
  },
  { title: 'Token' },
);

export const DeviceBody = Type.Object(
  {
    id: Type.Integer(),
    udid: Type.String(),
    name: Type.String(),
    model: Type.Union([Type.String(), Type.Null()]),
    platform: Type.Union([Type.String(), Type.Null()]),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Device' },
);

/** Error responses a route can give, for the OpenAPI document. */
export function errors(...statuses: number[]): Record<number, typeof ErrorBody> {
  return Object.fromEntries(statuses.map((s) => [s, ErrorBody]));
}
