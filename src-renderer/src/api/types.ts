/**
 * The bodies the console reads and sends, as the API gives them in its extended shape (the console
 * always asks for it with `X-Api-Shape: extended`). The server's OpenAPI document at
 * /api/openapi.json is the reference; these types are the console's view of that wire format.
 */

export const DEVICE_TYPES = ['ios', 'android', 'harmonyos', 'macos', 'windows', 'linux'] as const;
export type DeviceType = (typeof DEVICE_TYPES)[number];

export const DOWNLOAD_FILENAME_TYPES = ['version_datetime', 'original_filename'] as const;
export type DownloadFilenameType = (typeof DOWNLOAD_FILENAME_TYPES)[number];

export const ROLES = ['admin', 'developer', 'member'] as const;
export type Role = (typeof ROLES)[number];

export const LOCALES = ['en', 'zh-CN'] as const;
export type Locale = (typeof LOCALES)[number];

export const APPEARANCES = ['light', 'dark', 'auto'] as const;
export type Appearance = (typeof APPEARANCES)[number];

export const WEBHOOK_EVENTS = ['upload', 'download', 'changelog'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export interface Channel {
  id: number;
  slug: string;
  name: string;
  device_type: DeviceType;
  bundle_id: string;
  git_url: string | null;
  has_password: boolean;
  download_filename_type: DownloadFilenameType;
}

export interface Scheme {
  id: number;
  name: string;
  new_build_callout: boolean;
  retained_builds: number;
  channels: Channel[];
}

export interface Collaborator {
  id: number;
  username: string;
  email: string;
  role: Role;
  owner: boolean;
}

export interface App {
  id: number;
  name: string;
  archived: boolean;
  schemes: Scheme[];
  /** in single-app answers, for those who may manage collaborators */
  collaborators?: Collaborator[];
}

export interface ChangelogEntry {
  message: string;
  author?: string;
  email?: string;
  date?: string;
}

export interface CustomField {
  name: string;
  value: string;
  icon?: string;
}

export interface Release {
  id: number;
  version: number;
  app_name: string;
  bundle_id: string;
  release_version: string;
  build_version: string;
  source: string;
  branch: string | null;
  git_commit: string | null;
  ci_url: string | null;
  size: number;
  icon_url: string | null;
  install_url: string;
  changelog: ChangelogEntry[];
  text_changelog: string;
  /** usually an array of CustomField; stored as CI sent it */
  custom_fields: unknown;
  platform: string | null;
  device_type: DeviceType;
  created_at: string;
  /** the device-facing page; in upload answers (and single reads, when the server gives it) */
  release_url?: string;
  qrcode_url?: string;
  /** the release's channel, when the server names it */
  channel_id?: number;
}

/** The answer to an upload: the release with its app, scheme and channel. */
export interface UploadedRelease extends Release {
  release_url: string;
  qrcode_url: string;
  app: App;
  scheme: { id: number; name: string };
  channel: Channel;
}

/** GET /api/apps/versions: a page of a channel's releases in the channel's envelope. */
export interface ChannelVersions {
  /** the channel's id */
  id: number;
  app_name: string;
  bundle_id: string;
  git_url: string | null;
  app: App;
  scheme: { id: number; name: string };
  releases: Release[];
}

export interface User {
  id: number;
  username: string;
  email: string;
  locale: Locale;
  appearance: Appearance;
  timezone: string;
  role: Role;
  locked: boolean;
}

export interface Token {
  id: number;
  name: string;
  prefix: string;
  /** the value: only in the answer to its creation */
  token?: string;
  last_used_at: string | null;
  expires_at: string | null;
  created_at: string;
}

export interface Device {
  id: number;
  udid: string;
  name: string;
  model: string | null;
  platform: string | null;
  created_at: string;
  updated_at: string;
}

export interface Webhook {
  id: number;
  channel_id: number;
  url: string;
  events: WebhookEvent[];
  enabled: boolean;
  /** only in the answer to its creation */
  secret?: string;
  created_at: string;
  updated_at: string;
}

export interface WebhookDelivery {
  id: number;
  webhook_id: number;
  event: WebhookEvent;
  state: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  payload: unknown;
  created_at: string;
  updated_at: string;
}

export interface DebugFileMetadata {
  id: number;
  category: 'dSYM' | 'Proguard';
  uuid: string | null;
  bundle_id: string | null;
  name: string | null;
  extension: boolean;
  size: number;
  files?: { name: string; size: number }[];
  created_at: string;
}

export interface DebugFile {
  id: number;
  app_name: string;
  device_type: string;
  release_version: string;
  build_version: string;
  metadata: DebugFileMetadata[];
}

export interface VersionInfo {
  version: string;
  vcs_ref: string;
  build_date: string;
}

/** GET /api/server: how the server is reached and how it is doing. */
export interface ServerStatus {
  version: string;
  base_url: string;
  secure_base_url: string;
  https_port: number | null;
  addresses: { interface: string; address: string; family: string }[];
  primary: string;
  mdns: boolean;
  ca: { common_name: string; fingerprint256: string; not_after: string } | null;
  storage: { files_bytes: number; free_bytes: number; total_bytes: number };
}

/** A browser session (POST/GET /api/session). */
export interface SessionBody {
  user: User;
  /** null when the request was signed in with a token rather than the session cookie */
  csrf_token: string | null;
}

/** Live events of GET /api/events (the `data` of each). */
export type LiveEvent =
  | { type: 'release.created'; app_id: number; scheme_id: number; channel_id: number; release_id: number; new_build_callout: boolean }
  | { type: 'release.updated'; app_id: number; channel_id: number; release_id: number; changelog_changed: boolean }
  | { type: 'release.deleted'; app_id: number; channel_id: number; release_id: number; reason: 'request' | 'retention' }
  | { type: 'release.downloaded'; app_id: number; channel_id: number; release_id: number }
  | { type: 'build.available'; app_id: number; scheme_id: number; channel_id: number; release_id: number }
  | { type: 'server.address_changed'; primary: string; addresses: string[]; base_url: string; secure_base_url: string };

export type LiveEventType = LiveEvent['type'];
export const LIVE_EVENT_TYPES: LiveEventType[] = [
  'release.created',
  'release.updated',
  'release.deleted',
  'release.downloaded',
  'build.available',
  'server.address_changed',
];
