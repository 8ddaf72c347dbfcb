import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src-server/domain/secrets.ts';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, unique } from '../helpers/world.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ timezone: 'Asia/Shanghai' });
});
afterAll(() => t.close());

const newUser = () => {
  const username = unique('u');
  return { username, email: `${username}@Example.test` };
};

describe('users', () => {
  it('creates a user: 201, settings default to the global ones, role `member`/`user` by shape', async () => {
    const ext = await t.admin.post('/api/users', { ...newUser(), password: 'long enough' });
    expect(ext.status).toBe(201);
    expect(ext.body).toEqual({
      id: expect.any(Number),
      username: expect.any(String),
      email: expect.stringContaining('@Example.test'),
      locale: 'en',
      appearance: 'auto',
      timezone: 'Asia/Shanghai',
      role: 'member',
      locked: false,
    });
    const base = await t.admin.post('/api/users', { ...newUser(), local: 'zh-CN', appearance: 'dark', timezone: 'Europe/Berlin' }, { shape: 'base' });
    expect(base.status).toBe(201);
    expect(base.body).toMatchObject({ locale: 'zh-CN', appearance: 'dark', timezone: 'Europe/Berlin', role: 'user' });
  });

  it('requires a password in the extended shape only', async () => {
    const ext = await t.admin.post('/api/users', newUser());
    expect(ext.status).toBe(422);
    expect(ext.body.entry).toEqual({ password: ["can't be blank"] });
    const base = await t.admin.post('/api/users', newUser(), { shape: 'base' });
    expect(base.status).toBe(201);
  });

  it('422 on a missing username or email; stores the password hashed', async () => {
    for (const [body, field] of [[{ email: 'a@b.test', password: 'long enough' }, 'username'], [{ username: unique('x'), password: 'long enough' }, 'email']] as const) {
      const res = await t.admin.post('/api/users', body);
      expect(res.status).toBe(422);
      expect(res.body.entry).toEqual({ [field]: ["can't be blank"] });
    }
    const res = await t.admin.post('/api/users', { ...newUser(), password: 'hunter2hunter2' });
    const row = t.sql.prepare('SELECT password_hash FROM users WHERE id = ?').get(res.body.id) as { password_hash: string };
    expect(row.password_hash).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(row.password_hash).not.toContain('hunter2');
  });

  it('accepts `user` and `member` as the same role in either shape', async () => {
    for (const shape of ['base', 'extended'] as const) {
      for (const role of ['user', 'member']) {
        const res = await t.admin.post('/api/users', { ...newUser(), role, password: 'long enough' }, { shape });
        expect(res.body.role).toBe(shape === 'base' ? 'user' : 'member');
      }
    }
  });

  it('lists, gets, searches by email (exact, any case) and shows me', async () => {
    const u = await createUser(t, 'developer');
    const list = await t.admin.get('/api/users');
    expect(list.body.map((x: { id: number }) => x.id)).toContain(u.id);
    expect((await t.admin.get(`/api/users/${u.id}`)).body).toMatchObject({ id: u.id, username: u.username, role: 'developer' });
    const found = await t.admin.get('/api/users/search', { query: { email: u.email.toUpperCase() } });
    expect(found.body.map((x: { id: number }) => x.id)).toEqual([u.id]);
    expect((await t.admin.get('/api/users/search', { query: { email: 'nobody@nowhere.test' } })).body).toEqual([]);
    expect((await t.admin.get('/api/users/search', { query: { email: u.email.slice(0, 4) } })).body).toEqual([]);
    const me = await u.client.get('/api/users/me');
    expect(me.body).toMatchObject({ id: u.id, username: u.username });
    expect((await t.admin.get('/api/users/search')).status).toBe(422);
  });

  it('updates with PUT (username and email required; password too in extended) and PATCH', async () => {
    const u = await createUser(t, 'member');
    const noPassword = await t.admin.put(`/api/users/${u.id}`, { username: u.username, email: u.email, role: 'developer' });
    expect(noPassword.status).toBe(422);
    expect(noPassword.body.entry).toEqual({ password: ["can't be blank"] });
    const base = await t.admin.put(`/api/users/${u.id}`, { username: u.username, email: u.email, role: 'developer', local: 'zh-CN' }, { shape: 'base' });
    expect(base.status).toBe(200);
    expect(base.body).toMatchObject({ role: 'developer', locale: 'zh-CN' });
    const put = await t.admin.put(`/api/users/${u.id}`, { username: `${u.username}2`, email: u.email, password: 'a new password' });
    expect(put.body.username).toBe(`${u.username}2`);
    const patch = await t.admin.patch(`/api/users/${u.id}`, { appearance: 'light' });
    expect(patch.body).toMatchObject({ username: `${u.username}2`, appearance: 'light', role: 'developer' });
    expect((await t.admin.put('/api/users/999999', { username: 'zz', email: 'z@z.test', password: 'long enough' })).body).toEqual({ error: 'User not found' });
  });

  it('refuses duplicate usernames and emails regardless of case', async () => {
    const u = await createUser(t);
    const dup = await t.admin.post('/api/users', { username: u.username.toUpperCase(), email: u.email.toUpperCase(), password: 'long enough' });
    expect(dup.status).toBe(422);
    expect(dup.body.entry).toEqual({ username: ['has already been taken'], email: ['has already been taken'] });
  });

  it('locks and unlocks: 202; base answers mesage OK, extended the user; locked tokens get 403', async () => {
    const u = await createUser(t);
    const lock = await t.admin.post(`/api/users/${u.id}/lock`, undefined, { shape: 'base' });
    expect(lock.status).toBe(202);
    expect(lock.body).toEqual({ mesage: 'OK' });
    const refused = await u.client.get('/api/users/me');
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: 'User is locked' });
    const unlock = await t.admin.delete(`/api/users/${u.id}/unlock`);
    expect(unlock.status).toBe(202);
    expect(unlock.body).toMatchObject({ id: u.id, locked: false });
    expect((await u.client.get('/api/users/me')).status).toBe(200);
    const lockExt = await t.admin.post(`/api/users/${u.id}/lock`);
    expect(lockExt.body).toMatchObject({ id: u.id, locked: true });
    expect((await t.admin.post('/api/users/999999/lock')).status).toBe(404);
    expect((await t.admin.delete('/api/users/999999/unlock')).status).toBe(404);
  });

  it('never lets the last unlocked admin go, nor anyone lock or delete themselves (409)', async () => {
    const fresh = await startTestServer();
    try {
      const self = await fresh.admin.get('/api/users/me');
      expect((await fresh.admin.post(`/api/users/${self.body.id}/lock`)).status).toBe(409);
      expect((await fresh.admin.delete(`/api/users/${self.body.id}`)).status).toBe(409);
      const other = await createUser(fresh, 'admin');
      // the other admin may not demote, lock or delete the last remaining unlocked admin once alone
      expect((await other.client.patch(`/api/users/${self.body.id}`, { role: 'developer' })).status).toBe(200);
      const demote = await fresh.admin.patch(`/api/users/${other.id}`, { role: 'member' });
      expect(demote.status).toBe(403); // the initial admin is a developer now
      const lastDemote = await other.client.patch(`/api/users/${other.id}`, { role: 'member' });
      expect(lastDemote.status).toBe(409);
      expect(lastDemote.body.error).toMatch(/last admin/);
    } finally {
      await fresh.close();
    }
  });

  it('deletes a user with their tokens and collaborations; apps they own stay', async () => {
    const u = await createUser(t, 'member');
    const app = await u.client.post('/api/apps', { name: 'Owned' });
    const del = await t.admin.delete(`/api/users/${u.id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ mesage: 'OK' });
    expect((await u.client.get('/api/users/me')).status).toBe(401);
    expect((await t.admin.get(`/api/users/${u.id}`)).status).toBe(404);
    const remaining = await t.admin.get(`/api/apps/${app.body.id}`);
    expect(remaining.status).toBe(200);
    expect(remaining.body.collaborators).toEqual([]);
    expect((t.sql.prepare('SELECT count(*) AS n FROM api_tokens WHERE user_id = ?').get(u.id) as { n: number }).n).toBe(0);
  });
});

describe('PATCH /api/users/me: your own preferences', () => {
  it('lets any user change their language, appearance and time zone, and nothing else', async () => {
    const u = await createUser(t, 'member');
    const res = await u.client.patch('/api/users/me', { locale: 'zh-CN', appearance: 'dark', timezone: 'Europe/Berlin' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: u.id, locale: 'zh-CN', appearance: 'dark', timezone: 'Europe/Berlin', role: 'member' });
    expect((await u.client.get('/api/users/me')).body).toMatchObject({ locale: 'zh-CN', appearance: 'dark' });
    // a role or another user's fields cannot be changed this way
    const sneaky = await u.client.patch('/api/users/me', { role: 'admin', username: 'someone-else' });
    expect(sneaky.status).toBeLessThan(500);
    expect((await u.client.get('/api/users/me')).body).toMatchObject({ role: 'member', username: u.username });
    expect((await u.client.patch('/api/users/me', { locale: 'fr' })).status).toBe(422);
  });
});

describe('personal access tokens', () => {
  it('shows the value once, stores only its hash, lists without values, revokes', async () => {
    const u = await createUser(t);
    const created = await u.client.post('/api/users/me/tokens', { name: 'laptop' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      name: 'laptop',
      prefix: created.body.token.slice(0, 8),
      token: expect.stringMatching(/^hgr_[A-Za-z0-9_-]{43}$/),
      last_used_at: null,
      expires_at: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+0800$/),
    });
    const value = created.body.token as string;
    const rows = t.sql.prepare('SELECT * FROM api_tokens').all() as Record<string, unknown>[];
    expect(JSON.stringify(rows)).not.toContain(value);
    expect(rows.some((r) => r.token_hash === hashToken(value))).toBe(true);

    const works = t.client(value);
    expect((await works.get('/api/users/me')).body.id).toBe(u.id);
    const list = await u.client.get('/api/users/me/tokens');
    expect(list.body.map((x: { name: string }) => x.name)).toEqual(['laptop', 'test']);
    expect(list.text).not.toContain(value);
    expect(list.body[0].last_used_at).not.toBeNull();

    const revoke = await u.client.delete(`/api/users/me/tokens/${created.body.id}`);
    expect(revoke.status).toBe(200);
    expect(revoke.body).toEqual({ mesage: 'OK' });
    const gone = await works.get('/api/users/me');
    expect(gone.status).toBe(401);
    expect(gone.body).toEqual({ error: 'Unauthorized user token' });
    expect((await u.client.delete(`/api/users/me/tokens/${created.body.id}`)).status).toBe(404);
  });

  it('lets an admin mint and revoke tokens for another user', async () => {
    const u = await createUser(t);
    const minted = await t.admin.post(`/api/users/${u.id}/tokens`, { name: 'ci' });
    expect(minted.status).toBe(201);
    expect((await t.client(minted.body.token).get('/api/users/me')).body.id).toBe(u.id);
    expect((await t.admin.get(`/api/users/${u.id}/tokens`)).body.map((x: { name: string }) => x.name)).toEqual(['ci', 'test']);
    expect((await t.admin.delete(`/api/users/${u.id}/tokens/${minted.body.id}`)).status).toBe(200);
    // another user's token id through my own path: not found
    const mine = await t.admin.get('/api/users/me/tokens');
    const theirs = await t.admin.get(`/api/users/${u.id}/tokens`);
    expect((await t.admin.delete(`/api/users/me/tokens/${theirs.body[0].id}`)).status).toBe(404);
    expect(mine.status).toBe(200);
    expect((await t.admin.get('/api/users/999999/tokens')).body).toEqual({ error: 'User not found' });
  });

  it('honours an expiry: refused with 401 once past', async () => {
    const u = await createUser(t);
    const soon = new Date(Date.now() + 1500).toISOString();
    const minted = await u.client.post('/api/users/me/tokens', { name: 'short', expires_at: soon });
    expect(minted.status).toBe(201);
    expect(minted.body.expires_at).toMatch(/\+0800$/);
    const client = t.client(minted.body.token);
    expect((await client.get('/api/users/me')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1600));
    const expired = await client.get('/api/users/me');
    expect(expired.status).toBe(401);
    expect(expired.body).toEqual({ error: 'Token expired' });
  });

  it('accepts the token as Bearer header, query, JSON body field and form field', async () => {
    const viaQuery = await t.admin.get('/api/users/me', { tokenIn: 'query' });
    expect(viaQuery.status).toBe(200);
    const viaJson = await t.admin.post('/api/apps', { name: 'json token' }, { tokenIn: 'body' });
    expect(viaJson.status).toBe(201);
    const viaForm = await t.admin.request('POST', '/api/apps', { form: { name: 'form token' }, tokenIn: 'body' });
    expect(viaForm.status).toBe(201);
    const bad = await t.client('hgr_nope').get('/api/users/me');
    expect(bad.status).toBe(401);
    expect(bad.body).toEqual({ error: 'Unauthorized user token' });
    const none = await t.anon.get('/api/users/me');
    expect(none.status).toBe(401);
    expect(ADMIN_TOKEN).toBeTruthy();
  });
});
