/**
 * Console sign-in for browsers (issue 5): sessions by cookie, CSRF on requests that change
 * something, rate-limited wrong sign-ins, locked users refused; the console served at /console/;
 * and GET /api/server, the console's view of where the server runs.
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGIN_ATTEMPTS } from '../../src-server/routes/session.ts';
import { multipartBody, syntheticIpa } from '../helpers/builds.ts';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.ts';
import { createAppTree, createUser, type TestUser } from '../helpers/world.ts';

const PASSWORD = 'correct horse battery';

let t: TestServer;
let consoleDir: string;
beforeAll(async () => {
  consoleDir = await mkdtemp(join(tmpdir(), 'hangar-console-'));
  await mkdir(join(consoleDir, 'assets'));
  await writeFile(join(consoleDir, 'index.html'), '<!doctype html><title>Hangar console</title><script type="module" src="./assets/index-abc123.js"></script>');
  await writeFile(join(consoleDir, 'assets', 'index-abc123.js'), 'console.log("hangar")');
  await writeFile(join(consoleDir, '.env'), 'SECRET=1');
  t = await startTestServer({}, { consoleDir });
});
afterAll(async () => {
  await t?.close();
  await rm(consoleDir, { recursive: true, force: true });
});

interface Browser {
  cookie: string | null;
  csrf: string | null;
}

/** A sign-in as a browser makes it; answers the response, and the cookie and CSRF token it gave. */
async function signIn(login: string, password: string): Promise<{ res: Response; body: any; browser: Browser }> {
  const res = await fetch(`${t.url}/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ login, password }),
  });
  const body = await res.json();
  const setCookie = res.headers.get('set-cookie');
  return { res, body, browser: { cookie: setCookie ? setCookie.split(';')[0]! : null, csrf: body.csrf_token ?? null } };
}

/** A request with the browser's cookie (and its CSRF token unless told otherwise). */
function call(browser: Browser, method: string, path: string, json?: unknown, csrf: string | null | undefined = browser.csrf) {
  const headers: Record<string, string> = {};
  if (browser.cookie) headers.cookie = browser.cookie;
  if (csrf) headers['x-csrf-token'] = csrf;
  if (json !== undefined) headers['content-type'] = 'application/json';
  return fetch(`${t.url}${path}`, { method, headers, body: json === undefined ? undefined : JSON.stringify(json) });
}

describe('signing in', () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await createUser(t, 'developer');
  });

  it('by username or email (any case): 200 with the user and a CSRF token, and an HttpOnly, SameSite=Strict cookie', async () => {
    for (const login of [user.username, user.email.toUpperCase()]) {
      const { res, body } = await signIn(login, PASSWORD);
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(body.user).toMatchObject({ id: user.id, username: user.username });
      expect(body.csrf_token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
      const cookie = res.headers.get('set-cookie')!;
      expect(cookie).toMatch(/^hangar_session=[^;]+;/);
      expect(cookie).toMatch(/HttpOnly/i);
      expect(cookie).toMatch(/SameSite=Strict/i);
      expect(cookie).toMatch(/Path=\//);
      expect(cookie).not.toMatch(/Secure/); // plain HTTP here; over HTTPS it is Secure
    }
  });

  it('stores only a hash of the cookie', async () => {
    const { browser } = await signIn(user.username, PASSWORD);
    const value = decodeURIComponent(browser.cookie!.split('=')[1]!);
    const rows = t.sql.prepare('SELECT token_hash FROM sessions WHERE user_id = ?').all(user.id) as { token_hash: string }[];
    expect(rows.map((r) => r.token_hash)).toContain(createHash('sha256').update(value).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(value);
  });

  it('refuses a wrong password, an unknown user and a user without a password alike: 401, no cookie', async () => {
    const answers = await Promise.all([signIn(user.username, 'wrong password'), signIn('nobody-here', PASSWORD), signIn('admin', 'anything at all')]);
    for (const { res, body } of answers) {
      expect(res.status).toBe(401);
      expect(body).toEqual({ error: 'Wrong username or password' });
      expect(res.headers.get('set-cookie')).toBeNull();
    }
  });

  it('refuses a locked user with the right password (403), and tells a wrong password nothing more (401)', async () => {
    const locked = await createUser(t, 'member', { locked: true });
    const right = await signIn(locked.username, PASSWORD);
    expect(right.res.status).toBe(403);
    expect(right.body).toEqual({ error: 'This account is locked' });
    expect((await signIn(locked.username, 'wrong password')).res.status).toBe(401);
  });

  it('answers 422 without a login or password', async () => {
    const res = await fetch(`${t.url}/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(422);
    expect((await res.json()).entry).toHaveProperty('login');
  });
});

describe('a session', () => {
  let user: TestUser;
  let browser: Browser;
  beforeAll(async () => {
    user = await createUser(t, 'developer');
    browser = (await signIn(user.username, PASSWORD)).browser;
  });

  it('reads with the cookie alone; GET /api/session gives the user and the same CSRF token again', async () => {
    const me = await call(browser, 'GET', '/api/users/me', undefined, null);
    expect(me.status).toBe(200);
    expect((await me.json()).id).toBe(user.id);
    const again = await call(browser, 'GET', '/api/session', undefined, null);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ user: { id: user.id }, csrf_token: browser.csrf });
  });

  it('changes something only with its CSRF token: none or another is 403, nothing created', async () => {
    const before = (t.sql.prepare('SELECT count(*) AS n FROM apps').get() as { n: number }).n;
    const other = (await signIn(user.username, PASSWORD)).browser.csrf;
    for (const csrf of [null, 'forged', other]) {
      const res = await call(browser, 'POST', '/api/apps', { name: 'Via session' }, csrf);
      expect(res.status, String(csrf)).toBe(403);
      expect((await res.json()).error).toMatch(/CSRF/);
    }
    expect((t.sql.prepare('SELECT count(*) AS n FROM apps').get() as { n: number }).n).toBe(before);
    const created = await call(browser, 'POST', '/api/apps', { name: 'Via session' });
    expect(created.status).toBe(201);
  });

  it('uploads from the console: a multipart body with the cookie and the CSRF token', async () => {
    const tree = await createAppTree(t, t.admin, 'ios');
    const multipart = multipartBody({ channel_key: tree.channel.key }, { name: 'Console.ipa', data: syntheticIpa({ bundleId: 'dev.hangar.console' }) });
    const body = new Uint8Array(multipart.body);
    const contentType = multipart.contentType;
    const headers = { cookie: browser.cookie!, 'content-type': contentType };
    expect((await fetch(`${t.url}/api/apps/upload`, { method: 'POST', headers, body })).status).toBe(403);
    const res = await fetch(`${t.url}/api/apps/upload`, { method: 'POST', headers: { ...headers, 'x-csrf-token': browser.csrf! }, body });
    expect(res.status, await res.clone().text()).toBe(201);
  });

  it('is what a token is not: GET /api/session with a token has no CSRF token', async () => {
    const res = await t.admin.get('/api/session');
    expect(res.status).toBe(200);
    expect(res.body.csrf_token).toBeNull();
  });

  it('ends when its user is locked (403), and works again once unlocked', async () => {
    const member = await createUser(t, 'member');
    const session = (await signIn(member.username, PASSWORD)).browser;
    expect((await t.admin.post(`/api/users/${member.id}/lock`)).status).toBe(202);
    expect((await call(session, 'GET', '/api/users/me')).status).toBe(403);
    expect((await t.admin.delete(`/api/users/${member.id}/unlock`)).status).toBe(202);
    expect((await call(session, 'GET', '/api/users/me')).status).toBe(200);
  });

  it('a new password ends the other sessions of the user', async () => {
    const admin = await createUser(t, 'admin');
    const mine = (await signIn(admin.username, PASSWORD)).browser;
    const elsewhere = (await signIn(admin.username, PASSWORD)).browser;
    const changed = await call(mine, 'PATCH', `/api/users/${admin.id}`, { password: 'a brand new passphrase' });
    expect(changed.status, await changed.clone().text()).toBe(200);
    expect((await call(mine, 'GET', '/api/users/me')).status).toBe(200);
    expect((await call(elsewhere, 'GET', '/api/users/me')).status).toBe(401);
    expect((await signIn(admin.username, 'a brand new passphrase')).res.status).toBe(200);
  });

  it('DELETE /api/session signs out: 204, the cookie cleared, the session gone', async () => {
    const session = (await signIn(user.username, PASSWORD)).browser;
    const res = await call(session, 'DELETE', '/api/session');
    expect(res.status).toBe(204);
    expect(res.headers.get('set-cookie')).toMatch(/^hangar_session=;/);
    const after = await call(session, 'GET', '/api/users/me');
    expect(after.status).toBe(401);
    expect((await after.json()).error).toMatch(/session has ended/);
  });
});

describe('wrong sign-ins', () => {
  it(`are limited per client and login: after ${LOGIN_ATTEMPTS.max} wrong ones, 429 with Retry-After, even for the right password; others are not affected`, async () => {
    const user = await createUser(t, 'member');
    const other = await createUser(t, 'member');
    for (let i = 0; i < LOGIN_ATTEMPTS.max; i++) expect((await signIn(user.username, `wrong ${i}`)).res.status).toBe(401);
    const blocked = await signIn(user.username, PASSWORD);
    expect(blocked.res.status).toBe(429);
    expect(Number(blocked.res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(blocked.body.error).toMatch(/Too many wrong sign-ins/);
    expect(blocked.res.headers.get('set-cookie')).toBeNull();
    // another login from the same client still signs in
    expect((await signIn(other.username, PASSWORD)).res.status).toBe(200);
  });

  it('right sign-ins are not counted', async () => {
    const user = await createUser(t, 'member');
    for (let i = 0; i < LOGIN_ATTEMPTS.max + 3; i++) expect((await signIn(user.username, PASSWORD)).res.status).toBe(200);
  });
});

describe('the console at /console/', () => {
  it('redirects /console to /console/ and serves index.html there, revalidated, never framed', async () => {
    const bare = await fetch(`${t.url}/console`, { redirect: 'manual' });
    expect(bare.status).toBe(301);
    expect(bare.headers.get('location')).toBe('/console/');
    const index = await fetch(`${t.url}/console/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toMatch(/^text\/html/);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    expect(index.headers.get('x-frame-options')).toBe('DENY');
    expect(await index.text()).toContain('<title>Hangar console</title>');
  });

  it('serves the hashed assets for a year, and nothing outside the build or hidden in it', async () => {
    const asset = await fetch(`${t.url}/console/assets/index-abc123.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toMatch(/max-age=31536000.*immutable/);
    expect(await asset.text()).toBe('console.log("hangar")');
    for (const path of ['/console/.env', '/console/..%2F..%2Fetc%2Fpasswd', '/console/assets/nothing.js', '/console/%2e%2e/package.json']) {
      const res = await fetch(`${t.url}${path}`);
      expect(res.status, path).toBe(404);
      expect(await res.text(), path).not.toContain('SECRET');
    }
  });

  it('answers 503 with what to do when the console is not built', async () => {
    const bare = await startTestServer({}, { consoleDir: null });
    try {
      const res = await fetch(`${bare.url}/console/`);
      expect(res.status).toBe(503);
      expect(await res.text()).toContain('npm run build');
    } finally {
      await bare.close();
    }
  });
});

describe('GET /api/server', () => {
  it('needs a signed-in caller', async () => {
    expect((await t.anon.get('/api/server')).status).toBe(401);
  });

  it('tells a console where devices reach the server, the CA to trust, and the storage used and free', async () => {
    const tree = await createAppTree(t, t.admin, 'ios');
    const before = (await t.admin.get('/api/server')).body.storage.releases_bytes;
    const data = syntheticIpa({ bundleId: 'dev.hangar.usage' });
    const { body, contentType } = multipartBody({ channel_key: tree.channel.key }, { name: 'Usage.ipa', data });
    const uploaded = await t.admin.request('POST', '/api/apps/upload', { raw: { body, contentType } });
    expect(uploaded.status).toBe(201);

    const res = await t.client(ADMIN_TOKEN).get('/api/server');
    expect(res.status).toBe(200);
    const status = res.body;
    const u = t.server.urls();
    expect(status).toMatchObject({
      base_url: u.base,
      secure_base_url: u.secureBase,
      https_port: t.server.httpsPort,
      primary: t.server.network.current().primary,
      mdns: false,
      ca: { common_name: t.server.authority.commonName, fingerprint256: t.server.authority.fingerprint256 },
    });
    expect(status.addresses).toEqual(t.server.network.current().addresses);
    expect(status.storage.releases_bytes).toBe(before + data.length);
    expect(status.storage.files_bytes).toBe(status.storage.releases_bytes + status.storage.debug_files_bytes);
    expect(status.storage.free_bytes).toBeGreaterThan(0);
    expect(status.storage.total_bytes).toBeGreaterThanOrEqual(status.storage.free_bytes);
  });
});
