/**
 * The shell every device page shares: one small HTML document with its own inline stylesheet
 * (mobile first, system fonts, light and dark from `prefers-color-scheme`), and the headers pages
 * are sent with. There is no script bundle: a page that needs a script inlines a few lines, allowed
 * by the per-response nonce of a strict Content-Security-Policy. Pages show live data, so they are
 * never cached; they link to nothing outside this server, so they send no Referer.
 */
import { randomBytes } from 'node:crypto';
import { html, raw, type Html } from './html.ts';
import { createI18n, negotiateLocale, type I18n } from './i18n.ts';
import { detectClient, type Client } from './user-agent.ts';

/** Everything a page renders with besides its data: the request's language, browser and nonce. */
export interface PageContext {
  i18n: I18n;
  client: Client;
  /** the nonce of this response's Content-Security-Policy */
  nonce: string;
  /** the origin of the HTTPS base URL: iOS pages load from it and probe it */
  secureOrigin: string;
}

export function pageContext(
  headers: { 'accept-language'?: string | undefined; 'user-agent'?: string | undefined },
  options: { timeZone: string; secureBase: string },
): PageContext {
  return {
    i18n: createI18n(negotiateLocale(headers['accept-language']), options.timeZone),
    client: detectClient(headers['user-agent']),
    nonce: randomBytes(16).toString('base64'),
    secureOrigin: new URL(options.secureBase).origin,
  };
}

/** Does the client ask for a page (a browser) rather than data? */
export function acceptsHtml(accept: string | undefined): boolean {
  return /\btext\/html\b/i.test(accept ?? '');
}

export function pageHeaders(ctx: PageContext): Record<string, string> {
  const n = `'nonce-${ctx.nonce}'`;
  const policy = [
    "default-src 'self'",
    `img-src 'self' data: ${ctx.secureOrigin}`,
    `connect-src 'self' ${ctx.secureOrigin}`,
    `script-src ${n}`,
    `style-src 'self' ${n}`,
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'self'",
  ].join('; ');
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': policy,
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
  };
}

const STYLE = `
:root{color-scheme:light dark;--bg:#f4f4f6;--card:#fff;--text:#1b1b1f;--muted:#5b5e66;--line:#d8d9de;--accent:#0a5fcc;--on-accent:#fff;--note:#fff3d1;--on-note:#4d3800;--bad:#b3261e}
@media (prefers-color-scheme:dark){:root{--bg:#101114;--card:#1b1c20;--text:#f1f1f4;--muted:#a9acb4;--line:#33353b;--accent:#5aa2ff;--on-accent:#04162e;--note:#3a300c;--on-note:#ffe39e;--bad:#ff8f86}}
*{box-sizing:border-box}[hidden]{display:none!important}
body{margin:0;background:var(--bg);color:var(--text);font:16px/1.5 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,"PingFang SC","Hiragino Sans GB","Microsoft YaHei","Noto Sans CJK SC",sans-serif;-webkit-text-size-adjust:100%}
main{max-width:40rem;margin:0 auto;padding:1rem}
a{color:var(--accent)}
h1{font-size:1.4rem;line-height:1.25;margin:0;overflow-wrap:anywhere}
h2{font-size:1.05rem;margin:1.5rem 0 .5rem}
.app{display:flex;gap:1rem;align-items:center;margin:.5rem 0 1rem}
.icon{width:64px;height:64px;border-radius:14px;flex:none;background:var(--line);object-fit:cover}
.muted,dt{color:var(--muted)}
.card{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:1rem;margin:1rem 0}
.card>:first-child{margin-top:0}.card>:last-child{margin-bottom:0}
.button{display:block;width:100%;min-height:48px;margin:.75rem 0;padding:.75rem 1rem;border:0;border-radius:10px;background:var(--accent);color:var(--on-accent);font:inherit;font-weight:600;text-align:center;text-decoration:none}
.button small{display:block;font-weight:400;overflow-wrap:anywhere}
.note{background:var(--note);color:var(--on-note);border-radius:10px;padding:.75rem 1rem;margin:1rem 0}
.note a{color:inherit;font-weight:600}
.bad{color:var(--bad)}
dl{display:grid;grid-template-columns:auto 1fr;gap:.3rem 1rem;margin:0}
dd{margin:0;overflow-wrap:anywhere}
ul,ol{padding-left:1.3rem}li{margin:.3rem 0;white-space:pre-line;overflow-wrap:anywhere}
.list{list-style:none;padding:0;margin:0}
.list li{margin:0;border-bottom:1px solid var(--line)}
.list a{display:flex;justify-content:space-between;gap:.75rem;min-height:48px;padding:.75rem 0;color:inherit;text-decoration:none}
.list a span:first-child{font-weight:600}
.pager{display:flex;justify-content:space-between;gap:1rem}.pager a{display:inline-block;padding:.75rem 0}
input{width:100%;min-height:48px;padding:.6rem .75rem;border:1px solid var(--line);border-radius:8px;background:var(--bg);color:var(--text);font:inherit}
code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.9em;overflow-wrap:anywhere}
summary{min-height:44px;padding:.6rem 0;font-weight:600;cursor:pointer}details.card{padding-block:.25rem}
.qr{display:block;width:180px;height:180px;margin:0 auto;border-radius:8px;background:#fff}
footer{margin:2rem 0 1rem;text-align:center;color:var(--muted);font-size:.85rem}
`.trim();

export interface PageContent {
  title: string;
  body: Html;
  /** extra elements of <head> (a stylesheet link) */
  head?: Html | undefined;
  /** a few lines of our own script, run with the response's nonce */
  script?: string | undefined;
}

export function layout(ctx: PageContext, page: PageContent): string {
  const { i18n, nonce } = ctx;
  return html`<!doctype html>
<html lang="${i18n.locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>${page.title} · ${i18n.t('site.name')}</title>
<style nonce="${nonce}">${raw(STYLE)}</style>
${page.head}
</head>
<body>
<main>
${page.body}
<footer>${i18n.t('site.name')}</footer>
</main>
${page.script ? html`<script nonce="${nonce}">${raw(page.script)}</script>` : ''}
</body>
</html>
`.text;
}
