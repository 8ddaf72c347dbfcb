// The Content-Security-Policy of the console in the desktop app. Its page is the app's own
// (file://); it talks to one server only, the one this app runs on the loopback address, so
// connections (fetch, upload, event stream) and images (release icons) may reach that and nothing
// else. Set as a response header by src-main/index.ts on top of the <meta> policy in
// src-renderer/index.html: a page follows both, so the stricter one wins.
export function contentSecurityPolicy(serverUrl: string | null): string {
  const server = serverUrl ? ` ${new URL(serverUrl).origin}` : '';
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    `img-src 'self' data: blob:${server}`,
    "font-src 'self' data:",
    `connect-src${server || " 'none'"}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-src 'none'",
  ].join('; ');
}
