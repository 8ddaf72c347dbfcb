/**
 * The visit password form of a protected channel (R14), shown instead of its channel and release
 * pages until the browser holds the channel's visit cookie. It posts to
 * `POST /channels/:slug/password` (routes/downloads.ts), which sets the cookie and sends the browser
 * back to the page it came from, or shows this form again with what went wrong. It says nothing
 * about the channel's app: that is what the password guards.
 */
import type { Channel } from '../domain/context.ts';
import { html } from './html.ts';
import { layout, type PageContext } from './layout.ts';

export interface PasswordPageData {
  channel: Channel;
  /** the page to return to once the password is right (a path on this server) */
  returnTo: string;
  /** the last attempt was wrong, or there were too many wrong ones (seconds until the next may be made) */
  problem?: { wrong: true } | { retryAfter: number } | undefined;
}

export function passwordPage(ctx: PageContext, { channel, returnTo, problem }: PasswordPageData): string {
  const { i18n } = ctx;
  const message = !problem ? null : 'wrong' in problem ? i18n.t('password.wrong') : i18n.t('password.tooMany', { seconds: problem.retryAfter });
  return layout(ctx, {
    title: i18n.t('password.title'),
    body: html`<h1>${i18n.t('password.title')}</h1>
<p>${i18n.t('password.intro')}</p>
<form class="card" method="post" action="/channels/${encodeURIComponent(channel.slug)}/password">
${message ? html`<p class="bad" role="alert">${message}</p>` : null}
<label for="password">${i18n.t('password.label')}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required autofocus>
<input type="hidden" name="return_to" value="${returnTo}">
<button class="button" type="submit">${i18n.t('password.submit')}</button>
</form>`,
  });
}
