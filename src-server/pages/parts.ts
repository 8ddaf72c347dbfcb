/**
 * Pieces several device pages show: the app heading, install buttons, lists of facts, the hint for
 * in-app browsers, the line that names a release's version, and the hint to trust the server's
 * certificate before installing an iOS build.
 */
import type { Release } from '../domain/context.ts';
import { html, type Html } from './html.ts';
import type { MessageKey } from './i18n.ts';
import type { PageContext } from './layout.ts';

/** Where a release installs from and what the button says about the file. */
export interface InstallLink {
  href: string;
  /** itms-services (the button says "Install"), else a download */
  ios: boolean;
  fileName: string;
  size: number;
}

export function iconPath(release: Release): string | null {
  return release.iconPath ? `/icons/releases/${release.id}.png` : null;
}

/** The icon and name heading of a page, with a line under the name. */
export function appHeading(iconUrl: string | null, title: string, subtitle: string | Html): Html {
  return html`<header class="app">
${iconUrl ? html`<img class="icon" src="${iconUrl}" alt="" width="64" height="64">` : html`<span class="icon"></span>`}
<div><h1>${title}</h1><div class="muted">${subtitle}</div></div>
</header>`;
}

/** "1.2.3 (build 45)" */
export function versionLine(ctx: PageContext, release: Release): string {
  return ctx.i18n.t('versionBuild', { version: release.releaseVersion, build: release.buildVersion });
}

const RELEASE_TYPES = new Map<string, MessageKey>([
  ['debug', 'type.debug'],
  ['adhoc', 'type.adhoc'],
  ['enterprise', 'type.enterprise'],
  ['release', 'type.release'],
]);

/** The release type an uploader gave or the reader found (R10), in words when it is one we know. */
export function releaseTypeName(ctx: PageContext, type: string | null): string | null {
  if (type === null) return null;
  const key = RELEASE_TYPES.get(type.toLowerCase());
  return key ? ctx.i18n.t(key) : type;
}

export function installButton(ctx: PageContext, link: InstallLink): Html {
  const label = ctx.i18n.t(link.ios ? 'action.install' : 'action.download');
  return html`<a class="button install" href="${link.href}">${label}<small>${link.fileName} · ${ctx.i18n.size(link.size)}</small></a>`;
}

/** A list of facts; rows without a value are left out. */
export function facts(rows: [label: string | Html, value: string | Html | null | undefined][]): Html {
  const shown = rows.filter(([, value]) => value !== null && value !== undefined && value !== '');
  return html`<dl>${shown.map(([label, value]) => html`<dt>${label}</dt><dd>${value}</dd>`)}</dl>`;
}

/** Asks a tester in an app's built-in browser to open `pageUrl` in the system browser; nothing otherwise. */
export function inAppHint(ctx: PageContext, pageUrl: string): Html | null {
  const { client, i18n } = ctx;
  if (client.inApp === null) return null;
  const why = client.inApp === '' ? i18n.t('inApp.unnamed') : i18n.t('inApp.named', { app: client.inApp });
  return html`<section class="note in-app" role="alert">
<strong>${i18n.t('inApp.title')}</strong>
<p>${why} ${i18n.t(client.mayBeIos ? 'inApp.ios' : 'inApp.other')}</p>
<input readonly value="${pageUrl}" aria-label="URL">
</section>`;
}

/** Where an iOS device gets the trust that installs over HTTPS need (`/ca`); trustProbe may put it away. */
export function trustHint(ctx: PageContext): Html {
  return html`<p class="note" id="trust">${ctx.i18n.t('release.trustHint')} <a href="/ca">${ctx.i18n.t('release.trustLink')}</a></p>`;
}

/**
 * The script of a page with a trust hint: it asks the HTTPS server's `/ca/check` (204, CORS *), which
 * answers only when this device trusts the certificate already, and then hides the hint. Without
 * script, or when the check fails, the hint stays.
 */
export function trustProbe(ctx: PageContext): string {
  const url = JSON.stringify(`${ctx.secureOrigin}/ca/check`).replace(/</g, '\\u003c');
  return `fetch(${url},{mode:'cors',cache:'no-store'}).then(function(r){if(r.ok)document.getElementById('trust').hidden=true},function(){})`;
}
