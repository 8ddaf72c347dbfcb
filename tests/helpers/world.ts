/** Builds the things tests need through the real API, as an admin or console would. */
import { expect } from 'vitest';
import type { ApiClient } from './client.ts';
import type { TestServer } from './server.ts';

let counter = 0;
/** A name unique within the test run. */
export function unique(prefix: string): string {
  counter += 1;
  return `${prefix}${process.pid}x${counter}`;
}

export interface TestUser {
  id: number;
  username: string;
  email: string;
  token: string;
  client: ApiClient;
}

export async function createUser(t: TestServer, role: 'admin' | 'developer' | 'member' | 'user' = 'member', options: { locked?: boolean } = {}): Promise<TestUser> {
  const username = unique('user');
  const email = `${username}@example.test`;
  const created = await t.admin.post('/api/users', { username, email, role, password: 'correct horse battery' });
  expect(created.status, created.text).toBe(201);
  const id = created.body.id as number;
  const minted = await t.admin.post(`/api/users/${id}/tokens`, { name: 'test' });
  expect(minted.status, minted.text).toBe(201);
  const token = minted.body.token as string;
  if (options.locked) {
    const locked = await t.admin.post(`/api/users/${id}/lock`);
    expect(locked.status, locked.text).toBe(202);
  }
  return { id, username, email, token, client: t.client(token) };
}

export interface AppTree {
  app: { id: number; name: string };
  scheme: { id: number; name: string };
  channel: { id: number; slug: string; key: string };
}

/** An app with one scheme and one channel, created by `owner` (default: the admin). */
export async function createAppTree(t: TestServer, owner: ApiClient = t.admin, deviceType = 'ios'): Promise<AppTree> {
  const app = await owner.post('/api/apps', { name: unique('App ') }, { shape: 'extended' });
  expect(app.status, app.text).toBe(201);
  const scheme = await owner.post(`/api/apps/${app.body.id}/schemes`, { name: 'Beta' });
  expect(scheme.status, scheme.text).toBe(201);
  const channel = await owner.post(`/api/schemes/${scheme.body.id}/channels`, { name: 'Main', device_type: deviceType }, { shape: 'extended' });
  expect(channel.status, channel.text).toBe(201);
  const key = await owner.get(`/api/channels/${channel.body.id}/key`);
  expect(key.status, key.text).toBe(200);
  return {
    app: { id: app.body.id, name: app.body.name },
    scheme: { id: scheme.body.id, name: scheme.body.name },
    channel: { id: channel.body.id, slug: channel.body.slug, key: key.body.key },
  };
}

export async function addCollaborator(t: TestServer, appId: number, userId: number, role: 'admin' | 'developer' | 'member'): Promise<void> {
  const added = await t.admin.post(`/api/apps/${appId}/collaborators`, { user_id: userId, role });
  expect(added.status, added.text).toBe(201);
}
