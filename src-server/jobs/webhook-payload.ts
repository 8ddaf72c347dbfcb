/**
 * The JSON body of a webhook delivery (documented in README.md, "Webhooks"). Timestamps are ISO 8601
 * in UTC whatever the server's time zone; URLs are the public ones the API hands out (R11). The body
 * never carries the webhook's secret, tokens, channel keys or passwords.
 */
import { changelogOf } from '../domain/releases.ts';
import { textChangelog, type ChangelogEntry } from '../domain/changelog.ts';
import type { App, Channel, Release, Scheme } from '../domain/context.ts';
import type { Domain } from '../domain/index.ts';
import type { Urls } from '../network/urls.ts';
import type { DeviceType, WebhookEvent } from '../storage/schema.ts';

export interface WebhookPayload {
  event: WebhookEvent;
  delivery_id: number;
  /** when the delivery was made (every attempt sends the same body) */
  sent_at: string;
  /** only in deliveries of POST /api/webhooks/:id/test */
  test?: true;
  app: { id: number; name: string };
  scheme: { id: number; name: string };
  channel: { id: number; slug: string; name: string; device_type: DeviceType };
  /** null only in a test delivery of a channel without releases */
  release: {
    id: number;
    version: number;
    app_name: string;
    bundle_id: string;
    release_version: string;
    build_version: string;
    changelog: ChangelogEntry[];
    text_changelog: string;
    release_url: string;
    install_url: string;
    size: number;
    created_at: string;
  } | null;
}

/** What an event is about: everything of the body but the delivery's own fields. */
export type PayloadSubject = Omit<WebhookPayload, 'event' | 'delivery_id' | 'sent_at' | 'test'>;

export function utcTimestamp(ms: number): string {
  return new Date(ms).toISOString();
}

function subjectOf(app: App, scheme: Scheme, channel: Channel, release: Release | undefined, urls: Urls): PayloadSubject {
  const changelog = release ? changelogOf(release) : [];
  return {
    app: { id: app.id, name: app.name },
    scheme: { id: scheme.id, name: scheme.name },
    channel: { id: channel.id, slug: channel.slug, name: channel.name, device_type: channel.deviceType },
    release: release
      ? {
          id: release.id,
          version: release.version,
          app_name: release.appName,
          bundle_id: release.bundleId,
          release_version: release.releaseVersion,
          build_version: release.buildVersion,
          changelog,
          text_changelog: textChangelog(changelog),
          release_url: urls.release(channel.slug, release.id),
          install_url: urls.install(release.deviceType, channel.slug, release.id),
          size: release.size,
          created_at: utcTimestamp(release.createdAt),
        }
      : null,
  };
}

/** The subject of an event about a release (it and its channel, scheme and app must exist). */
export function releaseSubject(domain: Domain, urls: Urls, releaseId: number): PayloadSubject {
  const release = domain.releases.find(releaseId);
  const channel = domain.channels.find(release.channelId);
  const scheme = domain.schemes.find(channel.schemeId);
  return subjectOf(domain.apps.find(scheme.appId), scheme, channel, release, urls);
}

/** The subject of a test delivery: the channel's newest release, or none. */
export function testSubject(domain: Domain, urls: Urls, channelId: number): PayloadSubject {
  const channel = domain.channels.find(channelId);
  const scheme = domain.schemes.find(channel.schemeId);
  return subjectOf(domain.apps.find(scheme.appId), scheme, channel, domain.releases.newest(channelId), urls);
}

/** The body, as sent: the keys in the documented order. */
export function payloadText(event: WebhookEvent, deliveryId: number, sentAt: number, subject: PayloadSubject, test = false): string {
  const payload: WebhookPayload = {
    event,
    delivery_id: deliveryId,
    sent_at: utcTimestamp(sentAt),
    ...(test && { test: true as const }),
    ...subject,
  };
  return JSON.stringify(payload);
}
