/**
 * UDID registration, for ad hoc and development builds, which install only on the devices their
 * provisioning profile lists:
 * - `/udid`: what it is for, and the button that installs the profile service profile
 *   (`/udid.mobileconfig`, routes/profiles.ts); iOS then posts the device's UDID to Hangar;
 * - `/udid/device/<token>`: where the device lands afterwards: its UDID and details, and the builds
 *   on this server whose profiles include it.
 */
import type { Channel, Device, Release } from '../domain/context.ts';
import { html } from './html.ts';
import { layout, type PageContext } from './layout.ts';
import { facts, inAppHint, versionLine } from './parts.ts';

export function udidPage(ctx: PageContext, pageUrl: string): string {
  const { i18n, client } = ctx;
  return layout(ctx, {
    title: i18n.t('udid.title'),
    body: html`<h1>${i18n.t('udid.title')}</h1>
${inAppHint(ctx, pageUrl)}
<p>${i18n.t('udid.intro')}</p>
${client.mayBeIos || client.platform === 'unknown' ? null : html`<p class="note">${i18n.t('udid.notIos')}</p>`}
<a class="button" href="/udid.mobileconfig">${i18n.t('udid.install')}</a>
<ol>${(['udid.1', 'udid.2', 'udid.3'] as const).map((step) => html`<li>${i18n.t(step)}</li>`)}</ol>
<p class="muted">${i18n.t('udid.privacy')}</p>`,
  });
}

export interface DevicePageData {
  device: Device;
  /** the builds whose provisioning profile includes the device (`allDevices`: an enterprise profile), with their channels */
  releases: { release: Release; channel: Channel; allDevices: boolean }[];
}

export function devicePage(ctx: PageContext, { device, releases }: DevicePageData): string {
  const { i18n } = ctx;
  const list = releases.length
    ? html`<ul class="list">${releases.map(
        ({ release, channel, allDevices }) =>
          html`<li><a href="/${encodeURIComponent(channel.slug)}/${release.id}"><span>${release.appName} ${versionLine(ctx, release)}</span><span class="muted">${allDevices ? i18n.t('device.allDevices') : channel.name}</span></a></li>`,
      )}</ul>`
    : html`<p class="muted">${i18n.t('device.none')}</p>`;
  return layout(ctx, {
    title: i18n.t('device.title'),
    body: html`<h1>${i18n.t('device.title')}</h1>
<section class="card">
${facts([
  [i18n.t('device.name'), device.name],
  [i18n.t('device.udid'), html`<code>${device.udid}</code>`],
  [i18n.t('device.model'), device.model],
])}
</section>
<h2>${i18n.t('device.releases')}</h2>
${list}`,
  });
}
