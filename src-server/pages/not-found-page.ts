/** The 404 of the device pages: an unknown channel, release, device or path, in the same shell as the rest. */
import { html } from './html.ts';
import { layout, type PageContext } from './layout.ts';

export function notFoundPage(ctx: PageContext): string {
  const { i18n } = ctx;
  return layout(ctx, {
    title: i18n.t('notFound.title'),
    body: html`<h1>${i18n.t('notFound.title')}</h1>
<p class="card">${i18n.t('notFound.body')}</p>`,
  });
}
