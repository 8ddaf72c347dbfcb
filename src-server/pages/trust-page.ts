/**
 * The trust page (`/ca`): what the installation's certificate authority is, the files that carry it
 * (served by routes/profiles.ts) and how each platform installs and trusts them. Reachable over plain
 * HTTP: a device that does not trust the CA yet cannot open HTTPS pages of this server.
 *
 * The tester's own platform comes first and open; the others follow, folded.
 */
import type { CertificateAuthority } from '../tls/authority.ts';
import { html, type Html } from './html.ts';
import type { MessageKey } from './i18n.ts';
import { layout, type PageContext } from './layout.ts';
import { facts } from './parts.ts';
import type { Platform } from './user-agent.ts';

export type TrustPageData = Pick<CertificateAuthority, 'commonName' | 'fingerprint256' | 'notAfter'>;

interface Guide {
  /** the platforms whose testers see this guide first */
  for: Platform[];
  title: MessageKey;
  steps: MessageKey[];
}

const GUIDES: Guide[] = [
  { for: ['ios'], title: 'trust.ios', steps: ['trust.ios.1', 'trust.ios.2', 'trust.ios.3', 'trust.ios.4'] },
  { for: ['android', 'harmonyos'], title: 'trust.android', steps: ['trust.android.1', 'trust.android.2', 'trust.android.3'] },
  { for: ['macos'], title: 'trust.macos', steps: ['trust.macos.1', 'trust.macos.2'] },
  { for: ['windows'], title: 'trust.windows', steps: ['trust.windows.1', 'trust.windows.2'] },
  { for: ['linux'], title: 'trust.linux', steps: ['trust.linux.1', 'trust.linux.2'] },
];

function guide(ctx: PageContext, { title, steps }: Guide, name: string, open: boolean): Html {
  const { i18n } = ctx;
  return html`<details class="card"${open ? html` open` : null}>
<summary>${i18n.t(title)}</summary>
<ol>${steps.map((step) => html`<li>${i18n.t(step, { name })}</li>`)}</ol>
</details>`;
}

export function trustPage(ctx: PageContext, authority: TrustPageData): string {
  const { i18n, client } = ctx;
  // a Mac may be an iPad: both guides open for it
  const mine = (g: Guide) => g.for.includes(client.platform) || (client.mayBeIos && g.for.includes('ios'));
  const ordered = [...GUIDES.filter(mine), ...GUIDES.filter((g) => !mine(g))];
  return layout(ctx, {
    title: i18n.t('trust.title'),
    body: html`<h1>${i18n.t('trust.title')}</h1>
<p>${i18n.t('trust.intro')}</p>
<section class="card">
${facts([
  [i18n.t('trust.name'), authority.commonName],
  [i18n.t('trust.fingerprint'), html`<code>${authority.fingerprint256}</code>`],
  [i18n.t('trust.validUntil'), i18n.date(authority.notAfter.getTime())],
])}
<p class="muted">${i18n.t('trust.compare')}</p>
</section>
<h2>${i18n.t('trust.downloads')}</h2>
<a class="button" href="/ca.mobileconfig">${i18n.t('trust.get.mobileconfig')}</a>
<a class="button" href="/ca.crt">${i18n.t('trust.get.crt')}</a>
<a class="button" href="/ca.pem">${i18n.t('trust.get.pem')}</a>
${ordered.map((g) => guide(ctx, g, authority.commonName, mine(g)))}`,
  });
}
