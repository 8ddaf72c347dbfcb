import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCollaborator, createAppTree, createUser } from '../helpers/world.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

describe('collaborators', () => {
  it('adds (201), gets, re-roles and removes a collaborator; roles named by shape', async () => {
    const { app } = await createAppTree(t);
    const u = await createUser(t);
    const added = await t.admin.post(`/api/apps/${app.id}/collaborators`, { user_id: u.id, role: 'user' });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({ id: u.id, username: u.username, email: u.email, role: 'member', owner: false });
    const base = await t.admin.get(`/api/apps/${app.id}/collaborators/${u.id}`, { shape: 'base' });
    expect(base.body.role).toBe('user');
    const put = await t.admin.put(`/api/apps/${app.id}/collaborators/${u.id}`, { role: 'developer' });
    expect(put.status).toBe(200);
    expect(put.body.role).toBe('developer');
    const list = await t.admin.get(`/api/apps/${app.id}/collaborators`);
    expect(list.body.map((c: { id: number; role: string }) => [c.id, c.role])).toEqual([[1, 'admin'], [u.id, 'developer']]);
    const del = await t.admin.delete(`/api/apps/${app.id}/collaborators/${u.id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ mesage: 'OK' });
    expect((await t.admin.get(`/api/apps/${app.id}/collaborators/${u.id}`)).body).toEqual({ error: 'Collaborator not found' });
  });

  it('also adds through POST /api/apps/:app_id/collaborators/:user_id; role defaults to user in base, required in extended', async () => {
    const { app } = await createAppTree(t);
    const u1 = await createUser(t);
    const u2 = await createUser(t);
    const base = await t.admin.post(`/api/apps/${app.id}/collaborators/${u1.id}`, {}, { shape: 'base' });
    expect(base.status).toBe(201);
    expect(base.body.role).toBe('user');
    const ext = await t.admin.post(`/api/apps/${app.id}/collaborators/${u2.id}`, {});
    expect(ext.status).toBe(422);
    expect(ext.body.entry).toEqual({ role: ["can't be blank"] });
  });

  it('answers 404 for an unknown app or user, 409 for a second add', async () => {
    const { app } = await createAppTree(t);
    const u = await createUser(t);
    expect((await t.admin.post('/api/apps/999999/collaborators', { user_id: u.id, role: 'member' })).body).toEqual({ error: 'App not found' });
    expect((await t.admin.post(`/api/apps/${app.id}/collaborators`, { user_id: 999999, role: 'member' })).body).toEqual({ error: 'User not found' });
    await addCollaborator(t, app.id, u.id, 'member');
    const again = await t.admin.post(`/api/apps/${app.id}/collaborators`, { user_id: u.id, role: 'developer' });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: 'Collaborator already exists' });
    expect((await t.admin.delete(`/api/apps/999999/collaborators/${u.id}`)).body).toEqual({ error: 'App not found' });
    expect((await t.admin.put(`/api/apps/${app.id}/collaborators/999999`, { role: 'member' })).body).toEqual({ error: 'Collaborator not found' });
  });

  it('keeps the owner: cannot be removed or re-roled (422)', async () => {
    const owner = await createUser(t, 'member');
    const app = await owner.client.post('/api/apps', { name: 'Owned' });
    const remove = await t.admin.delete(`/api/apps/${app.body.id}/collaborators/${owner.id}`);
    expect(remove.status).toBe(422);
    expect(remove.body.entry).toEqual({ user_id: ['is the owner of the app and cannot be removed'] });
    const rerole = await t.admin.put(`/api/apps/${app.body.id}/collaborators/${owner.id}`, { role: 'member' });
    expect(rerole.status).toBe(422);
    expect((await t.admin.get(`/api/apps/${app.body.id}/collaborators/${owner.id}`)).body).toMatchObject({ role: 'admin', owner: true });
  });

  it('lets only app admins grant or touch the admin role', async () => {
    const { app } = await createAppTree(t);
    const dev = await createUser(t);
    const appAdmin = await createUser(t);
    const target = await createUser(t);
    await addCollaborator(t, app.id, dev.id, 'developer');
    await addCollaborator(t, app.id, appAdmin.id, 'admin');

    const promoteSelf = await dev.client.put(`/api/apps/${app.id}/collaborators/${dev.id}`, { role: 'admin' });
    expect(promoteSelf.status).toBe(403);
    expect((await dev.client.post(`/api/apps/${app.id}/collaborators`, { user_id: target.id, role: 'admin' })).status).toBe(403);
    expect((await dev.client.delete(`/api/apps/${app.id}/collaborators/${appAdmin.id}`)).status).toBe(403);
    expect((await dev.client.post(`/api/apps/${app.id}/collaborators`, { user_id: target.id, role: 'developer' })).status).toBe(201);
    expect((await appAdmin.client.put(`/api/apps/${app.id}/collaborators/${target.id}`, { role: 'admin' })).status).toBe(200);
    expect((await appAdmin.client.put(`/api/apps/${app.id}/collaborators/${dev.id}`, { role: 'admin' })).status).toBe(200);
  });
});
