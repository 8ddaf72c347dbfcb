/**
 * The database schema: the one place that defines Hangar's tables. Migrations in ./migrations are
 * generated from this file by `npm run db:generate` (drizzle-kit) and applied at start by ./database.ts.
 *
 * Conventions: timestamps are integer milliseconds since the epoch (UTC), booleans are 0/1 integers,
 * ids are AUTOINCREMENT so that an id is never reused after a delete (release URLs stay unambiguous),
 * paths of stored files are relative to the data directory. Child rows go with their parent
 * (ON DELETE CASCADE); the files they point at are removed through `file_deletions` (see ./files.ts).
 */
import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const GLOBAL_ROLES = ['admin', 'developer', 'member'] as const;
export type GlobalRole = (typeof GLOBAL_ROLES)[number];
export const APP_ROLES = ['admin', 'developer', 'member'] as const;
export type AppRole = (typeof APP_ROLES)[number];
export const DEVICE_TYPES = ['ios', 'android', 'harmonyos', 'macos', 'windows', 'linux'] as const;
export type DeviceType = (typeof DEVICE_TYPES)[number];
export const DOWNLOAD_FILENAME_TYPES = ['version_datetime', 'original_filename'] as const;
export type DownloadFilenameType = (typeof DOWNLOAD_FILENAME_TYPES)[number];

export const LOCALES = ['en', 'zh-CN'] as const;
export const APPEARANCES = ['light', 'dark', 'auto'] as const;

const createdAt = () => integer('created_at').notNull();
const updatedAt = () => integer('updated_at').notNull();

export const users = sqliteTable(
  'users',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    username: text('username').notNull(),
    email: text('email').notNull(),
    /** username and email folded for comparison (domain/users.ts `identityKey`): unique regardless of case */
    usernameKey: text('username_key').notNull(),
    emailKey: text('email_key').notNull(),
    /** scrypt hash (see domain/secrets.ts); null: the user signs in with tokens only */
    passwordHash: text('password_hash'),
    role: text('role', { enum: GLOBAL_ROLES }).notNull().default('member'),
    /** null: follow the server-wide default */
    locale: text('locale', { enum: LOCALES }),
    appearance: text('appearance', { enum: APPEARANCES }),
    timezone: text('timezone'),
    lockedAt: integer('locked_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('users_username_key_unique').on(t.usernameKey), uniqueIndex('users_email_key_unique').on(t.emailKey)],
);

export const apiTokens = sqliteTable(
  'api_tokens',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** SHA-256 of the token value, hex. The value itself is shown once and never stored. */
    tokenHash: text('token_hash').notNull(),
    /** the first characters of the value, to tell tokens apart in a list */
    prefix: text('prefix').notNull(),
    lastUsedAt: integer('last_used_at'),
    expiresAt: integer('expires_at'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('api_tokens_token_hash_unique').on(t.tokenHash), index('api_tokens_user_id_idx').on(t.userId)],
);

/** Console sign-ins from a browser (/console): one row per signed-in browser, found by cookie. */
export const sessions = sqliteTable(
  'sessions',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** SHA-256 of the cookie's value, hex; the value itself lives only in the browser */
    tokenHash: text('token_hash').notNull(),
    /** the browser, as its User-Agent named itself (shown to the user; never trusted) */
    userAgent: text('user_agent'),
    createdAt: createdAt(),
    lastSeenAt: integer('last_seen_at').notNull(),
    /** sliding: moved forward as the session is used, never past createdAt + the absolute limit */
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [uniqueIndex('sessions_token_hash_unique').on(t.tokenHash), index('sessions_user_id_idx').on(t.userId)],
);

export const apps = sqliteTable(
  'apps',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    name: text('name').notNull(),
    archived: integer('archived', { mode: 'boolean' }).notNull().default(false),
    /** the user who created the app; they are its first admin collaborator and cannot be removed */
    ownerId: integer('owner_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('apps_created_at_idx').on(t.createdAt), index('apps_owner_id_idx').on(t.ownerId)],
);

export const collaborators = sqliteTable(
  'collaborators',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    appId: integer('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role', { enum: APP_ROLES }).notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('collaborators_app_user_unique').on(t.appId, t.userId),
    index('collaborators_user_id_idx').on(t.userId),
  ],
);

export const schemes = sqliteTable(
  'schemes',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    appId: integer('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    newBuildCallout: integer('new_build_callout', { mode: 'boolean' }).notNull().default(true),
    retainedBuilds: integer('retained_builds').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('schemes_app_id_idx').on(t.appId)],
);

export const channels = sqliteTable(
  'channels',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    schemeId: integer('scheme_id')
      .notNull()
      .references(() => schemes.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    /** the channel key (`channel_key`): random, regenerated only on request */
    key: text('key').notNull(),
    deviceType: text('device_type', { enum: DEVICE_TYPES }).notNull(),
    bundleId: text('bundle_id').notNull().default('*'),
    gitUrl: text('git_url'),
    /** salted scrypt hash of the visit password; null: no password */
    passwordHash: text('password_hash'),
    downloadFilenameType: text('download_filename_type', { enum: DOWNLOAD_FILENAME_TYPES })
      .notNull()
      .default('version_datetime'),
    /** the `version` the next release of this channel gets; only ever grows */
    nextReleaseVersion: integer('next_release_version').notNull().default(1),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // slugs are ASCII (routes/schemas.ts), so SQLite's lower() folds them fully
    uniqueIndex('channels_slug_unique').on(sql`lower(${t.slug})`),
    uniqueIndex('channels_key_unique').on(t.key),
    index('channels_scheme_id_idx').on(t.schemeId),
  ],
);

export const releases = sqliteTable(
  'releases',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    channelId: integer('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    appName: text('app_name').notNull(),
    bundleId: text('bundle_id').notNull(),
    releaseVersion: text('release_version').notNull(),
    buildVersion: text('build_version').notNull(),
    /** domain/versions.ts versionKey() of the two versions: their order is version order */
    releaseVersionKey: text('release_version_key').notNull().default(''),
    buildVersionKey: text('build_version_key').notNull().default(''),
    releaseType: text('release_type'),
    source: text('source').notNull().default('api'),
    branch: text('branch'),
    gitCommit: text('git_commit'),
    ciUrl: text('ci_url'),
    platform: text('platform'),
    deviceType: text('device_type', { enum: DEVICE_TYPES }).notNull(),
    /** JSON: array of ReleaseChangelog */
    changelog: text('changelog').notNull().default('[]'),
    /** JSON text as sent (usually an array of ReleaseCustomField) */
    customFields: text('custom_fields').notNull().default('[]'),
    /** JSON: everything else the binary reader found (min OS, device family, provisioning facts) */
    metadata: text('metadata').notNull().default('{}'),
    filePath: text('file_path').notNull(),
    fileName: text('file_name').notNull(),
    size: integer('size').notNull(),
    sha256: text('sha256').notNull(),
    iconPath: text('icon_path'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('releases_channel_version_unique').on(t.channelId, t.version),
    index('releases_channel_versions_idx').on(t.channelId, t.releaseVersion, t.buildVersion),
    index('releases_channel_git_commit_idx').on(t.channelId, t.gitCommit),
    index('releases_channel_version_keys_idx').on(t.channelId, t.releaseVersionKey, t.buildVersionKey),
  ],
);

export const debugFiles = sqliteTable(
  'debug_files',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    channelId: integer('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    deviceType: text('device_type', { enum: DEVICE_TYPES }).notNull(),
    releaseVersion: text('release_version').notNull(),
    buildVersion: text('build_version').notNull(),
    /** domain/versions.ts versionKey() of the two versions, as for releases: their order is version order */
    releaseVersionKey: text('release_version_key').notNull().default(''),
    buildVersionKey: text('build_version_key').notNull().default(''),
    filePath: text('file_path').notNull(),
    fileName: text('file_name').notNull(),
    size: integer('size').notNull(),
    sha256: text('sha256').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('debug_files_channel_created_idx').on(t.channelId, t.createdAt),
    uniqueIndex('debug_files_channel_sha256_unique').on(t.channelId, t.sha256),
    index('debug_files_channel_version_keys_idx').on(t.channelId, t.releaseVersionKey, t.buildVersionKey),
  ],
);

/**
 * What a debug file holds (R15), one row per Mach-O slice of a dSYM, or one for an Android mapping
 * archive. Columns as Zealot names them: `type` is the architecture or "proguard", `object` the binary's
 * name or the package name, `data` JSON with the rest (dSYM: main, identifier; Proguard: files, ...).
 */
export const debugFileMetadata = sqliteTable(
  'debug_file_metadata',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    debugFileId: integer('debug_file_id')
      .notNull()
      .references(() => debugFiles.id, { onDelete: 'cascade' }),
    /** the slice's LC_UUID, or the mapping's UUIDv5; null for an Android archive without mapping.txt */
    uuid: text('uuid'),
    type: text('type').notNull(),
    object: text('object'),
    /** JSON object */
    data: text('data').notNull().default('{}'),
    size: integer('size').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('debug_file_metadata_debug_file_id_idx').on(t.debugFileId, t.id)],
);

export const devices = sqliteTable(
  'devices',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    udid: text('udid').notNull(),
    name: text('name').notNull(),
    model: text('model'),
    platform: text('platform'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('devices_udid_unique').on(t.udid)],
);

/**
 * Files whose rows are gone (or going): written in the same transaction as the delete, removed from
 * disk after it commits, and retried at start-up when a crash came in between. See ./files.ts.
 */
export const fileDeletions = sqliteTable('file_deletions', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  /** relative to the data directory; a file or a whole directory */
  path: text('path').notNull(),
  createdAt: createdAt(),
});

export const WEBHOOK_EVENTS = ['upload', 'download', 'changelog'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** Per-channel webhooks (R13): a JSON POST to `url` for each of `events`. */
export const webhooks = sqliteTable(
  'webhooks',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    channelId: integer('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    /** JSON array of WebhookEvent */
    events: text('events').notNull(),
    /** signs each delivery (X-Hangar-Signature: sha256=HMAC of the body); shown once, like a token */
    secret: text('secret').notNull(),
    enabled: integer('enabled', { mode: 'boolean' }).notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('webhooks_channel_id_idx').on(t.channelId)],
);

export const DELIVERY_STATES = ['pending', 'succeeded', 'failed'] as const;

/** One event sent (or to be sent) to one webhook; the latest ones are kept for the console. */
export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    webhookId: integer('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    event: text('event', { enum: WEBHOOK_EVENTS }).notNull(),
    /** the JSON body, exactly as sent */
    payload: text('payload').notNull(),
    state: text('state', { enum: DELIVERY_STATES }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: integer('next_attempt_at'),
    lastStatus: integer('last_status'),
    lastError: text('last_error'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('webhook_deliveries_due_idx').on(t.state, t.nextAttemptAt),
    index('webhook_deliveries_webhook_idx').on(t.webhookId, t.id),
  ],
);
