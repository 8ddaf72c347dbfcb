/**
 * The channel page (`/<slug>`), where a tester lands from a channel's QR code: the app, its newest
 * release ready to install, then the earlier releases, a page at a time.
 */
import type { App, Channel, Release } from '../domain/context.ts';
import { PLATFORM_NAMES } from '../domain/releases.ts';
import { html } from './html.ts';
import { layout, type PageContext } from './layout.ts';
import { appHeading, facts, inAppHint, installButton, releaseTypeName, trustHint, trustProbe, versionLine, type InstallLink } from './parts.ts';

export interface ChannelPageData {
  app: App;
  channel: Channel;
  /** the app's icon: the newest release's */
  iconUrl: string | null;
  /** the newest release with its install link, on the first page; null on later pages or when there is none */
  newest: { release: Release; install: InstallLink } | null;
  /** the other releases of this page, newest first */
  releases: Release[];
  page: number;
  hasMore: boolean;
  /** absolute URL of this page, for testers in an in-app browser to copy */
  pageUrl: string;
}

export function channelPage(ctx: PageContext, data: ChannelPageData): string {
  const { i18n } = ctx;
  const { app, channel, newest, releases, page } = data;
  const base = `/${encodeURIComponent(channel.slug)}`;
  const releaseHref = (release: Release) => `${base}/${release.id}`;

  const latest = newest
    ? html`<section class="card">
<h2>${i18n.t('channel.latest')}</h2>
<p><a href="${releaseHref(newest.release)}"><strong>${versionLine(ctx, newest.release)}</strong></a></p>
${facts([
  [i18n.t('field.uploaded'), i18n.dateTime(newest.release.createdAt)],
  [i18n.t('field.size'), i18n.size(newest.release.size)],
  [i18n.t('field.releaseType'), releaseTypeName(ctx, newest.release.releaseType)],
])}
${installButton(ctx, newest.install)}
${newest.install.ios ? trustHint(ctx) : null}
<a href="${releaseHref(newest.release)}">${i18n.t('action.details')}</a>
</section>`
    : null;

  const list = releases.length
    ? html`<h2>${i18n.t('channel.earlier')}</h2>
<ul class="list">${releases.map(
        (release) => html`<li><a href="${releaseHref(release)}"><span>${versionLine(ctx, release)}</span><span class="muted">${i18n.date(release.createdAt)} · ${i18n.size(release.size)}</span></a></li>`,
      )}</ul>`
    : null;

  const pager =
    page > 1 || data.hasMore
      ? html`<nav class="pager">
${page > 1 ? html`<a href="${page === 2 ? base : `${base}?page=${page - 1}`}">← ${i18n.t('action.newer')}</a>` : html`<span></span>`}
${data.hasMore ? html`<a href="${base}?page=${page + 1}">${i18n.t('action.older')} →</a>` : null}
</nav>`
      : null;

  const empty = !latest && !list ? html`<p class="card muted">${i18n.t('channel.empty')}</p>` : null;
  return layout(ctx, {
    title: app.name,
    body: html`${appHeading(data.iconUrl, app.name, `${channel.name} · ${PLATFORM_NAMES[channel.deviceType]}`)}
${inAppHint(ctx, data.pageUrl)}
${latest}
${list}
${pager}
${empty}`,
    script: newest?.install.ios ? trustProbe(ctx) : undefined,
  });
}
