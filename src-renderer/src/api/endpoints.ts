/**
 * Every API call the console makes, typed, grouped by resource. Routes and their rules are the
 * server's (src-server/routes/*.ts, documented at /api/docs); nothing here decides permissions: a
 * refused call comes back as an ApiError the page shows.
 */
import type { Http } from './http.ts';
import type {
  App,
  Appearance,
  Channel,
  ChannelVersions,
  Collaborator,
  DebugFile,
  Device,
  DeviceType,
  DownloadFilenameType,
  Locale,
  Release,
  Role,
  Scheme,
  ServerStatus,
  Token,
  User,
  VersionInfo,
  Webhook,
  WebhookDelivery,
  WebhookEvent,
} from './types.ts';
import { ApiError } from './errors.ts';

export type AppScope = 'all' | 'active' | 'archived';

export interface SchemeFields {
  name: string;
  new_build_callout?: boolean;
  retained_builds?: number;
}

export interface ChannelFields {
  name: string;
  device_type: DeviceType;
  slug?: string;
  bundle_id?: string;
  git_url?: string | null;
  /** empty: removes the visit password */
  password?: string;
  download_filename_type?: DownloadFilenameType;
}

export interface UserFields {
  username: string;
  email: string;
  password: string;
  role: Role;
  locale?: Locale;
  appearance?: Appearance;
}

export interface WebhookFields {
  url: string;
  events: WebhookEvent[];
  enabled?: boolean;
}

/** A release with where it lives, for lists that cross channels. */
export interface PlacedRelease {
  release: Release;
  app: { id: number; name: string };
  channel: Channel;
}

/** Releases of every channel the dashboard looks at, per channel. */
const RECENT_PER_CHANNEL = 5;

export function endpoints(http: Http) {
  const channelKey = async (channelId: number) => (await http.get<{ key: string }>(`/api/channels/${channelId}/key`)).key;

  const api = {
    http,

    server: {
      version: () => http.get<VersionInfo>('/api/version'),
      /** null when this server does not offer its status (older servers) */
      status: async (): Promise<ServerStatus | null> => {
        try {
          return await http.get<ServerStatus>('/api/server');
        } catch (error) {
          if (error instanceof ApiError && error.status === 404) return null;
          throw error;
        }
      },
    },

    apps: {
      list: (scope: AppScope = 'all', page = 1) => http.get<App[]>('/api/apps', { scope, page, per_page: 100 }),
      get: (id: number) => http.get<App>(`/api/apps/${id}`),
      create: (name: string) => http.post<App>('/api/apps', { name }),
      update: (id: number, fields: { name?: string; archived?: boolean }) => http.patch<App>(`/api/apps/${id}`, fields),
      delete: (id: number) => http.delete(`/api/apps/${id}`),
    },

    schemes: {
      create: (appId: number, fields: SchemeFields) => http.post<Scheme>(`/api/apps/${appId}/schemes`, fields),
      update: (id: number, fields: Partial<SchemeFields>) => http.patch<Scheme>(`/api/schemes/${id}`, fields),
      delete: (id: number) => http.delete(`/api/schemes/${id}`),
    },

    channels: {
      get: (id: number) => http.get<Channel>(`/api/channels/${id}`),
      create: (schemeId: number, fields: ChannelFields) => http.post<Channel>(`/api/schemes/${schemeId}/channels`, fields),
      update: (id: number, fields: Partial<ChannelFields>) => http.patch<Channel>(`/api/channels/${id}`, fields),
      delete: (id: number) => http.delete(`/api/channels/${id}`),
      key: channelKey,
      regenerateKey: async (id: number) => (await http.post<{ key: string }>(`/api/channels/${id}/key`)).key,
      /** A page of a channel's releases (highest version first) in the channel's envelope. */
      versions: (key: string, page = 1, perPage = 25) => http.get<ChannelVersions>('/api/apps/versions', { channel_key: key, page, per_page: perPage }),
    },

    releases: {
      get: (id: number) => http.get<Release>(`/api/releases/${id}`),
      delete: (id: number) => http.delete(`/api/releases/${id}`),
      /**
       * The newest releases across the apps the user may read, newest first: a page of each channel's
       * releases, merged (the API has no cross-channel list).
       */
      async recent(limit: number): Promise<PlacedRelease[]> {
        const apps = await api.apps.list('active');
        const channels = apps.flatMap((app) => app.schemes.flatMap((s) => s.channels.map((channel) => ({ app, channel }))));
        const pages = await Promise.all(
          channels.map(async ({ app, channel }) => {
            const { releases } = await api.channels.versions(await channelKey(channel.id), 1, RECENT_PER_CHANNEL);
            return releases.map((release) => ({ release, app: { id: app.id, name: app.name }, channel }));
          }),
        );
        return pages
          .flat()
          .sort((a, b) => b.release.id - a.release.id)
          .slice(0, limit);
      },
    },

    collaborators: {
      add: (appId: number, userId: number, role: Role) => http.post<Collaborator>(`/api/apps/${appId}/collaborators`, { user_id: userId, role }),
      update: (appId: number, userId: number, role: Role) => http.patch<Collaborator>(`/api/apps/${appId}/collaborators/${userId}`, { role }),
      remove: (appId: number, userId: number) => http.delete(`/api/apps/${appId}/collaborators/${userId}`),
    },

    users: {
      me: () => http.get<User>('/api/users/me'),
      list: () => http.get<User[]>('/api/users'),
      searchByEmail: (email: string) => http.get<User[]>('/api/users/search', { email }),
      create: (fields: UserFields) => http.post<User>('/api/users', fields),
      update: (id: number, fields: Partial<UserFields>) => http.patch<User>(`/api/users/${id}`, fields),
      /** the signed-in user's own language, appearance and time zone (any user) */
      updateMe: (fields: { locale?: Locale; appearance?: Appearance; timezone?: string }) => http.patch<User>('/api/users/me', fields),
      delete: (id: number) => http.delete(`/api/users/${id}`),
      lock: (id: number) => http.post<User>(`/api/users/${id}/lock`),
      unlock: async (id: number) => (await http.send<User>('DELETE', `/api/users/${id}/unlock`)).body,
    },

    tokens: {
      list: () => http.get<Token[]>('/api/users/me/tokens'),
      create: (name: string, expiresAt: string | null) => http.post<Token>('/api/users/me/tokens', { name, expires_at: expiresAt }),
      revoke: (id: number) => http.delete(`/api/users/me/tokens/${id}`),
    },

    devices: {
      /** A page of devices, most recently seen first, with how many there are in all. */
      async list(page: number, perPage: number): Promise<{ devices: Device[]; total: number }> {
        const { body, headers } = await http.send<Device[]>('GET', '/api/devices', { query: { page, per_page: perPage } });
        return { devices: body, total: Number(headers.get('X-Total-Count') ?? body.length) };
      },
      delete: (udid: string) => http.delete(`/api/devices/${encodeURIComponent(udid)}`),
    },

    webhooks: {
      list: (channelId: number) => http.get<Webhook[]>(`/api/channels/${channelId}/webhooks`),
      create: (channelId: number, fields: WebhookFields) => http.post<Webhook>(`/api/channels/${channelId}/webhooks`, fields),
      update: (id: number, fields: Partial<WebhookFields>) => http.patch<Webhook>(`/api/webhooks/${id}`, fields),
      delete: (id: number) => http.delete(`/api/webhooks/${id}`),
      deliveries: (id: number) => http.get<WebhookDelivery[]>(`/api/webhooks/${id}/deliveries`),
      test: (id: number) => http.post<WebhookDelivery>(`/api/webhooks/${id}/test`),
      redeliver: (id: number, deliveryId: number) => http.post<WebhookDelivery>(`/api/webhooks/${id}/deliveries/${deliveryId}/redeliver`),
    },

    debugFiles: {
      list: (channelKey: string, page = 1) => http.get<DebugFile[]>('/api/debug_files', { channel_key: channelKey, page, per_page: 100 }),
      delete: (id: number, channelKey: string) => http.delete(`/api/debug_files/${id}`, { channel_key: channelKey }),
      /** where the browser downloads the zip (the channel key admits it) */
      downloadUrl: (id: number, channelKey: string) => http.url(`/download/debug_files/${id}`, { channel_key: channelKey }),
    },
  };
  return api;
}

export type Api = ReturnType<typeof endpoints>;
