/**
 * The release page (`/<slug>/<id>`, the `release_url` of R11): one build with its install button,
 * what changed, its facts and custom fields, the provisioning profile of an iOS build, and its QR
 * code for passing the page on to another device.
 *
 * An iOS build installs only over HTTPS the device trusts: the page says where to get that trust
 * (parts.ts trustHint).
 */
import type { Channel, Release } from '../domain/context.ts';
import { changelogOf, PLATFORM_NAMES, type ReleaseMetadata } from '../domain/releases.ts';
import { provisioningKind } from '../parsers/provisioning.ts';
import type { ProvisioningProfile } from '../parsers/types.ts';
import { html, type Html } from './html.ts';
import { layout, type PageContext } from './layout.ts';
import { appHeading, facts, iconPath, inAppHint, installButton, releaseTypeName, trustHint, trustProbe, versionLine, type InstallLink } from './parts.ts';
import { suits } from './user-agent.ts';

export interface ReleasePageData {
  channel: Channel;
  release: Release;
  install: InstallLink;
  /** the channel's newest release, when its scheme calls out newer builds and this is not it */
  newer: Release | null;
  /** absolute URL of this page, for testers in an in-app browser to copy */
  pageUrl: string;
}

export interface CustomField {
  name: string;
  value: string;
  /** icon font classes, only [a-z0-9-] ones kept: "fas fa-code-branch" */
  icon: string;
}

/** Icon font classes an uploader gave, keeping only plain class names (never quotes, never markup). */
export function iconClasses(value: unknown): string {
  if (typeof value !== 'string') return '';
  return value.split(/\s+/).filter((name) => /^[a-z0-9-]+$/.test(name)).join(' ');
}

const text = (value: unknown) => (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : null);

/** The custom fields of a release (stored as sent: usually an array of {name, value, icon}); others are skipped. */
export function customFieldsOf(release: Release): CustomField[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(release.customFields);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed.flatMap((item: unknown) => {
    if (item === null || typeof item !== 'object') return [];
    const { name, value, icon } = item as Record<string, unknown>;
    if (text(name) === null || text(value) === null) return [];
    return [{ name: text(name)!, value: text(value)!, icon: iconClasses(icon) }];
  });
}

function metadataOf(release: Release): Partial<ReleaseMetadata> {
  try {
    return JSON.parse(release.metadata) as Partial<ReleaseMetadata>;
  } catch {
    return {};
  }
}

function profileFacts(ctx: PageContext, profile: ProvisioningProfile): Html {
  const { i18n } = ctx;
  const kind = provisioningKind(profile);
  const expires = profile.expiresAt ? Date.parse(profile.expiresAt) : NaN;
  const expired = Number.isFinite(expires) && expires < Date.now();
  const devices = profile.devices.length > 0
    ? html`${i18n.t('profile.deviceCount', { count: i18n.count(profile.devices.length) })}<br><a href="/udid">${i18n.t('profile.checkDevice')}</a>`
    : null;
  return html`<section class="card profile">
<h2>${i18n.t('profile.title')}</h2>
${expired ? html`<p class="bad">${i18n.t('profile.expired', { date: i18n.date(expires) })}</p>` : null}
${facts([
  [i18n.t('profile.kind'), i18n.t(`profile.kind.${kind}`)],
  [i18n.t('profile.team'), profile.teamName],
  [i18n.t('profile.expires'), Number.isFinite(expires) ? i18n.date(expires) : null],
  [i18n.t('profile.devices'), devices],
])}
</section>`;
}

function changelog(ctx: PageContext, release: Release): Html {
  const entries = changelogOf(release);
  const body = entries.length
    ? html`<ul class="changelog">${entries.map((entry) => html`<li>${entry.message}</li>`)}</ul>`
    : html`<p class="muted">${ctx.i18n.t('release.noChangelog')}</p>`;
  return html`<section><h2>${ctx.i18n.t('release.changelog')}</h2>${body}</section>`;
}

function details(ctx: PageContext, release: Release, metadata: Partial<ReleaseMetadata>, fields: CustomField[]): Html {
  const { i18n } = ctx;
  return html`<section class="card">
<h2>${i18n.t('release.details')}</h2>
${facts([
  [i18n.t('field.version'), versionLine(ctx, release)],
  [i18n.t('field.platform'), PLATFORM_NAMES[release.deviceType]],
  [i18n.t('field.uploaded'), i18n.dateTime(release.createdAt)],
  [i18n.t('field.size'), i18n.size(release.size)],
  [i18n.t('field.releaseType'), releaseTypeName(ctx, release.releaseType)],
  [i18n.t('field.bundleId'), release.bundleId],
  [i18n.t('field.minOs'), metadata.minOsVersion],
  [i18n.t('field.branch'), release.branch],
  [i18n.t('field.commit'), release.gitCommit ? html`<code>${release.gitCommit}</code>` : null],
  ...fields.map((field): [Html, string] => [html`${field.icon ? html`<i class="${field.icon}" aria-hidden="true"></i> ` : null}${field.name}`, field.value]),
])}
</section>`;
}

export function releasePage(ctx: PageContext, data: ReleasePageData): string {
  const { i18n, client } = ctx;
  const { channel, release, newer } = data;
  const ios = release.deviceType === 'ios';
  const metadata = metadataOf(release);
  const fields = customFieldsOf(release);
  const profile = ios ? metadata.provisioning ?? null : null;
  const platform = PLATFORM_NAMES[release.deviceType];

  const newerNote = newer
    ? html`<p class="note newer">${i18n.t('release.newerAvailable', { version: versionLine(ctx, newer) })} <a href="/${encodeURIComponent(channel.slug)}/${newer.id}">${i18n.t('release.goNewest')}</a></p>`
    : null;
  const elsewhere = suits(release.deviceType, client) ? null : html`<p class="note">${i18n.t('release.otherPlatform', { platform })}</p>`;
  const usesIcons = fields.some((field) => field.icon !== '');

  return layout(ctx, {
    title: `${release.appName} ${release.releaseVersion}`,
    head: usesIcons ? html`<link rel="stylesheet" href="/assets/fontawesome/css/all.min.css">` : undefined,
    body: html`${appHeading(iconPath(release), release.appName, `${versionLine(ctx, release)} · ${platform}`)}
${inAppHint(ctx, data.pageUrl)}
${newerNote}
${elsewhere}
${installButton(ctx, data.install)}
${ios ? trustHint(ctx) : null}
${profile ? profileFacts(ctx, profile) : null}
${changelog(ctx, release)}
${details(ctx, release, metadata, fields)}
<section>
<h2>${i18n.t('release.qrcode')}</h2>
<img class="qr" src="/channels/${encodeURIComponent(channel.slug)}/releases/${release.id}/qrcode.svg" alt="QR code" width="180" height="180">
</section>`,
    script: ios ? trustProbe(ctx) : undefined,
  });
}
