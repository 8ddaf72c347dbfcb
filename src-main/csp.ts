// The Content-Security-Policy of the console in the desktop app. Its page comes from the server this
// app runs (/console/ on the loopback address), or is the bundled file while the server is not
// running; it talks to that one server only, so
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
