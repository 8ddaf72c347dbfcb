/**
 * The permission matrix (R2, R16): every /api route the server registers, called with a valid request
 * by each of nine actors, with the exact status each must get. The matrix proves it is complete by
 * comparing itself with the server's own list of routes (`accessRules`).
 *
 * Requests that change state get fresh targets per cell (a fresh app tree, a fresh user, a fresh token,
 * a fresh device), made by the initial admin just before the request, so each cell stands alone.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, RequestOptions } from '../helpers/client.ts';
import { multipartBody, syntheticIpa } from '../helpers/builds.ts';
import { dsymZip } from '../helpers/symbols.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCollaborator, createAppTree, createUser, unique, type AppTree, type TestUser } from '../helpers/world.ts';

// ---------------------------------------------------------------------------------------------------
// Actors

const ACTORS = [
  'anonymous', //        no token
  'bad token', //        a token never issued
  'locked user', //      a global admin whose account is locked: a lock beats any role
  'member', //           global member, app role member on the target app
  'non-collaborator', // global member, not on the target app
  'app developer', //    global member, app role developer
  'app admin', //        global member, app role admin (not the owner: the initial admin owns the app)
  'global developer', // global developer, not a collaborator
  'global admin', //     global admin (not the initial admin), not a collaborator
] as const;
type ActorName = (typeof ACTORS)[number];
/** Actors holding a valid token of an unlocked user. */
type SignedInActor = Exclude<ActorName, 'anonymous' | 'bad token' | 'locked user'>;
/** Actors that are users of the server. */
type UserActor = Exclude<ActorName, 'anonymous' | 'bad token'>;

// ---------------------------------------------------------------------------------------------------
// Expectation rows: for each kind of route, what each actor gets. `OK` is the route's success status.

const OK = 'ok' as const;
type Cell = typeof OK | 401 | 403;
type Row = Record<ActorName, Cell>;

/** Anonymous and unknown tokens: 401; locked users: 403 whatever their role; the rest as `allowed` says. */
function tokenRow(allowed: readonly SignedInActor[]): Row {
  const signedIn: SignedInActor[] = ['member', 'non-collaborator', 'app developer', 'app admin', 'global developer', 'global admin'];
  const row = { anonymous: 401, 'bad token': 401, 'locked user': 403 } as Row;
  for (const actor of signedIn) row[actor] = allowed.includes(actor) ? OK : 403;
  return row;
}

const ROWS = {
  /** GET /api/version, GET /api/health: everyone, even with a bad or locked token */
  public: Object.fromEntries(ACTORS.map((a) => [a, OK])) as Row,
  /** any signed-in, unlocked user */
  signedIn: tokenRow(['member', 'non-collaborator', 'app developer', 'app admin', 'global developer', 'global admin']),
  /** user administration, and other users' tokens: global admins only */
  usersManage: tokenRow(['global admin']),
  /** forgetting a test device */
  devicesDelete: tokenRow(['global developer', 'global admin']),
  /** reading an app, its schemes, channels and keys */
  appRead: tokenRow(['member', 'app developer', 'app admin', 'global developer', 'global admin']),
  /** changing an app, its schemes and channels */
  appManage: tokenRow(['app developer', 'app admin', 'global developer', 'global admin']),
  /** deleting a whole app */
  appDelete: tokenRow(['app admin', 'global developer', 'global admin']),
  /** reading, adding, re-roling (member/developer) and removing collaborators */
  collaborators: tokenRow(['app developer', 'app admin', 'global developer', 'global admin']),
} satisfies Record<string, Row>;
type RowName = keyof typeof ROWS;

// ---------------------------------------------------------------------------------------------------
// The world every cell runs in

const PASSWORD = 'correct horse battery';
const BAD_TOKEN = `hgr_${randomBytes(24).toString('hex')}`;

let t: TestServer;
let users: Record<UserActor, TestUser>;
/** a user no actor is, whose tokens the token routes act on */
let third: TestUser;
/** an app tree owned by the initial admin, with the actors' memberships; only read */
let shared: AppTree;
/** a release of the shared channel (dev.hangar.synthetic 1.0 (1)) */
let sharedRelease: number;
/** a webhook of the shared channel (to a closed port: deliveries fail quietly) */
let sharedWebhook: number;
/** a debug file of the shared channel (1.0 (1)) */
let sharedDebugFile: number;


function clientOf(actor: ActorName): ApiClient {
  if (actor === 'anonymous') return t.anon;
  if (actor === 'bad token') return t.client(BAD_TOKEN);
  return users[actor].client;
}

/** Makes the member, app developer and app admin actors collaborators of an app, as the brief's world has it. */
async function joinActors(appId: number): Promise<void> {
  await addCollaborator(t, appId, users.member.id, 'member');
  await addCollaborator(t, appId, users['app developer'].id, 'developer');
  await addCollaborator(t, appId, users['app admin'].id, 'admin');
}

/** A fresh app (owned by the initial admin) with a scheme and a channel, and the actors' memberships. */
async function freshTree(): Promise<AppTree> {
  const tree = await createAppTree(t);
  await joinActors(tree.app.id);
  return tree;
}

/** A fresh global member, without a token. */
async function freshUser(): Promise<{ id: number; username: string; email: string }> {
  const username = unique('target');
  const email = `${username}@example.test`;
  const res = await t.admin.post('/api/users', { username, email, role: 'member', password: PASSWORD });
  expect(res.status, res.text).toBe(201);
  return { id: res.body.id, username, email };
}

/** A fresh token of `userId`, minted by the initial admin; its id. */
async function freshTokenOf(userId: number): Promise<number> {
  const res = await t.admin.post(`/api/users/${userId}/tokens`, { name: unique('token') });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

async function freshDevice(): Promise<string> {
  const udid = unique('DEVICE-');
  const res = await t.admin.put(`/api/devices/${udid}`, { name: 'Matrix phone' });
  expect(res.status, res.text).toBe(200);
  return udid;
}

/** A webhook (to a closed port) on a fresh app tree; its id. */
async function freshWebhook(): Promise<number> {
  const tree = await freshTree();
  const res = await t.admin.post(`/api/channels/${tree.channel.id}/webhooks`, { url: 'http://127.0.0.1:9/hook', events: ['upload'] });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

/** Uploads a synthetic build to a channel as the initial admin; the release id. */
async function freshRelease(tree: AppTree): Promise<number> {
  const { body, contentType } = multipartBody({ channel_key: tree.channel.key }, { name: 'Synthetic.ipa', data: syntheticIpa() });
  const res = await t.admin.request('POST', '/api/apps/upload', { raw: { body, contentType } });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

let debugFiles = 0;
/** A zipped dSYM no channel holds yet (its own UUID). */
function freshDsym(): Buffer {
  debugFiles += 1;
  return dsymZip({ uuid: `00000000-0000-4000-8000-${String(debugFiles).padStart(12, '0')}` });
}

/** Uploads a fresh debug file to a channel as the initial admin; its id. */
async function freshDebugFile(tree: AppTree): Promise<number> {
  const res = await t.admin.request('POST', '/api/debug_files/upload', { raw: multipartBody({ channel_key: tree.channel.key }, { name: 'symbols.zip', data: freshDsym() }) });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

async function addAs(appId: number, role: 'member' | 'developer' | 'admin'): Promise<number> {
  const user = await freshUser();
  await addCollaborator(t, appId, user.id, role);
  return user.id;
}

// ---------------------------------------------------------------------------------------------------
// The matrix: one entry per route

interface Request {
  /** values of the route's path parameters */
  params?: Record<string, string | number>;
  json?: unknown;
  query?: RequestOptions['query'];
  raw?: RequestOptions['raw'];
}

interface RouteCase {
  /** "METHOD /api/path/:param", exactly as the server registers it */
  route: string;
  row: RowName;
  /** the status of a successful call */
  success: 200 | 201 | 202 | 204 | 302;
  /** builds a valid request for this actor (fresh targets where the call changes state) */
  request?: (actor: ActorName) => Promise<Request>;
  /** the answer is an endless stream: only its status is read */
  stream?: boolean;
  /** the answer is a redirect: its status is read, it is not followed */
  redirect?: boolean;
}

const MATRIX: RouteCase[] = [
  // public
  { route: 'GET /api/version', row: 'public', success: 200 },
  { route: 'GET /api/health', row: 'public', success: 200 },
  // public, keyed by channel_key (R2)
  { route: 'GET /api/apps/versions', row: 'public', success: 200, request: async () => ({ query: { channel_key: shared.channel.key } }) },
  {
    route: 'GET /api/apps/latest',
    row: 'public',
    success: 200,
    request: async () => ({ query: { channel_key: shared.channel.key, release_version: '0.1', build_version: '0' } }),
  },
  {
    route: 'GET /api/apps/version_exist',
    row: 'public',
    success: 200,
    request: async () => ({ query: { channel_key: shared.channel.key, bundle_id: 'dev.hangar.synthetic', release_version: '1.0', build_version: '1' } }),
  },
  { route: 'GET /api/debug_files', row: 'public', success: 200, request: async () => ({ query: { channel_key: shared.channel.key } }) },
  {
    route: 'GET /api/debug_files/download',
    row: 'public',
    success: 302,
    redirect: true,
    request: async () => ({ query: { channel_key: shared.channel.key, release_version: '1.0', build_version: '1' } }),
  },
  { route: 'GET /api/events', row: 'signedIn', success: 200, stream: true },
  // console sign-in: anyone may try (a real user's password here); the rest by token as well
  { route: 'POST /api/session', row: 'public', success: 200, request: async () => ({ json: { login: third.username, password: 'correct horse battery' } }) },
  { route: 'GET /api/session', row: 'signedIn', success: 200 },
  { route: 'DELETE /api/session', row: 'signedIn', success: 204 },
  { route: 'GET /api/server', row: 'signedIn', success: 200 },

  // signed in
  { route: 'GET /api/apps', row: 'signedIn', success: 200 },
  { route: 'POST /api/apps', row: 'signedIn', success: 201, request: async () => ({ json: { name: unique('Matrix app ') } }) },
  { route: 'GET /api/users/me', row: 'signedIn', success: 200 },
  { route: 'PATCH /api/users/me', row: 'signedIn', success: 200, request: async () => ({ json: { appearance: 'dark' } }) },
  { route: 'GET /api/users/me/tokens', row: 'signedIn', success: 200 },
  { route: 'POST /api/users/me/tokens', row: 'signedIn', success: 201, request: async () => ({ json: { name: unique('token') } }) },
  {
    route: 'DELETE /api/users/me/tokens/:token_id',
    row: 'signedIn',
    success: 200,
    // a signed-in actor revokes a fresh token of their own; the others name an existing token of someone
    request: async (actor) => {
      const owner = actor === 'anonymous' || actor === 'bad token' || actor === 'locked user' ? third : users[actor];
      return { params: { token_id: await freshTokenOf(owner.id) } };
    },
  },
  {
    route: 'PUT /api/devices/:udid',
    row: 'signedIn',
    success: 200,
    request: async () => ({ params: { udid: unique('DEVICE-') }, json: { name: 'Matrix phone', model: 'iPhone15,2', platform: 'ios' } }),
  },
  { route: 'GET /api/devices', row: 'signedIn', success: 200 },

  // global admins only
  { route: 'GET /api/users', row: 'usersManage', success: 200 },
  { route: 'GET /api/users/search', row: 'usersManage', success: 200, request: async () => ({ query: { email: third.email } }) },
  {
    route: 'POST /api/users',
    row: 'usersManage',
    success: 201,
    request: async () => {
      const username = unique('new');
      return { json: { username, email: `${username}@example.test`, role: 'member', password: PASSWORD } };
    },
  },
  { route: 'GET /api/users/:id', row: 'usersManage', success: 200, request: async () => ({ params: { id: third.id } }) },
  {
    route: 'PUT /api/users/:id',
    row: 'usersManage',
    success: 200,
    request: async () => {
      const target = await freshUser();
      const username = unique('renamed');
      return { params: { id: target.id }, json: { username, email: `${username}@example.test`, password: PASSWORD } };
    },
  },
  {
    route: 'PATCH /api/users/:id',
    row: 'usersManage',
    success: 200,
    request: async () => ({ params: { id: (await freshUser()).id }, json: { username: unique('renamed') } }),
  },
  { route: 'DELETE /api/users/:id', row: 'usersManage', success: 200, request: async () => ({ params: { id: (await freshUser()).id } }) },
  { route: 'POST /api/users/:id/lock', row: 'usersManage', success: 202, request: async () => ({ params: { id: (await freshUser()).id } }) },
  {
    route: 'DELETE /api/users/:id/unlock',
    row: 'usersManage',
    success: 202,
    request: async () => {
      const target = await freshUser();
      const locked = await t.admin.post(`/api/users/${target.id}/lock`);
      expect(locked.status, locked.text).toBe(202);
      return { params: { id: target.id } };
    },
  },
  // another user's tokens (:id = a third user): global admins only
  { route: 'GET /api/users/:id/tokens', row: 'usersManage', success: 200, request: async () => ({ params: { id: third.id } }) },
  {
    route: 'POST /api/users/:id/tokens',
    row: 'usersManage',
    success: 201,
    request: async () => ({ params: { id: third.id }, json: { name: unique('token') } }),
  },
  {
    route: 'DELETE /api/users/:id/tokens/:token_id',
    row: 'usersManage',
    success: 200,
    request: async () => ({ params: { id: third.id, token_id: await freshTokenOf(third.id) } }),
  },

  // devices
  { route: 'DELETE /api/devices/:udid', row: 'devicesDelete', success: 200, request: async () => ({ params: { udid: await freshDevice() } }) },

  // app: read (the shared app)
  { route: 'GET /api/apps/:id', row: 'appRead', success: 200, request: async () => ({ params: { id: shared.app.id } }) },
  { route: 'GET /api/apps/:id/schemes', row: 'appRead', success: 200, request: async () => ({ params: { id: shared.app.id } }) },
  { route: 'GET /api/schemes/:id', row: 'appRead', success: 200, request: async () => ({ params: { id: shared.scheme.id } }) },
  { route: 'GET /api/schemes/:id/channels', row: 'appRead', success: 200, request: async () => ({ params: { id: shared.scheme.id } }) },
  { route: 'GET /api/channels/:id', row: 'appRead', success: 200, request: async () => ({ params: { id: shared.channel.id } }) },
  { route: 'GET /api/channels/:id/key', row: 'appRead', success: 200, request: async () => ({ params: { id: shared.channel.id } }) },

  // app: manage (a fresh app tree per cell)
  {
    route: 'PUT /api/apps/:id',
    row: 'appManage',
    success: 200,
    request: async () => ({ params: { id: (await freshTree()).app.id }, json: { name: unique('Renamed ') } }),
  },
  {
    route: 'PATCH /api/apps/:id',
    row: 'appManage',
    success: 200,
    request: async () => ({ params: { id: (await freshTree()).app.id }, json: { name: unique('Renamed ') } }),
  },
  {
    route: 'POST /api/apps/:id/schemes',
    row: 'appManage',
    success: 201,
    request: async () => ({ params: { id: (await freshTree()).app.id }, json: { name: unique('Scheme ') } }),
  },
  {
    route: 'PUT /api/schemes/:id',
    row: 'appManage',
    success: 200,
    request: async () => ({ params: { id: (await freshTree()).scheme.id }, json: { name: unique('Scheme ') } }),
  },
  {
    route: 'PATCH /api/schemes/:id',
    row: 'appManage',
    success: 200,
    request: async () => ({ params: { id: (await freshTree()).scheme.id }, json: { name: unique('Scheme ') } }),
  },
  { route: 'DELETE /api/schemes/:id', row: 'appManage', success: 200, request: async () => ({ params: { id: (await freshTree()).scheme.id } }) },
  {
    route: 'POST /api/schemes/:id/channels',
    row: 'appManage',
    success: 201,
    request: async () => ({ params: { id: (await freshTree()).scheme.id }, json: { name: unique('Channel '), device_type: 'android' } }),
  },
  {
    route: 'PUT /api/channels/:id',
    row: 'appManage',
    success: 200,
    request: async () => ({ params: { id: (await freshTree()).channel.id }, json: { name: unique('Channel '), device_type: 'ios' } }),
  },
  {
    route: 'PATCH /api/channels/:id',
    row: 'appManage',
    success: 200,
    request: async () => ({ params: { id: (await freshTree()).channel.id }, json: { name: unique('Channel ') } }),
  },
  { route: 'DELETE /api/channels/:id', row: 'appManage', success: 200, request: async () => ({ params: { id: (await freshTree()).channel.id } }) },
  { route: 'POST /api/channels/:id/key', row: 'appManage', success: 200, request: async () => ({ params: { id: (await freshTree()).channel.id } }) },

  // uploads with a channel_key (without one, any signed-in user may upload: tested below)
  {
    route: 'POST /api/apps/upload',
    row: 'appManage',
    success: 201,
    request: async () => {
      const tree = await freshTree();
      return { raw: multipartBody({ channel_key: tree.channel.key }, { name: 'Synthetic.ipa', data: syntheticIpa() }) };
    },
  },
  // releases
  { route: 'GET /api/releases/:id', row: 'appRead', success: 200, request: async () => ({ params: { id: sharedRelease } }) },
  {
    route: 'PUT /api/releases/:id',
    row: 'appManage',
    success: 200,
    request: async () => ({ params: { id: await freshRelease(await freshTree()) }, json: { changelog: 'Fixed it' } }),
  },
  {
    route: 'PATCH /api/releases/:id',
    row: 'appManage',
    success: 200,
    request: async () => ({ params: { id: await freshRelease(await freshTree()) }, json: { branch: 'main' } }),
  },
  { route: 'DELETE /api/releases/:id', row: 'appManage', success: 200, request: async () => ({ params: { id: await freshRelease(await freshTree()) } }) },

  // debug files: read by id with the read right; upload, replace and delete with the manage right
  { route: 'GET /api/debug_files/:id', row: 'appRead', success: 200, request: async () => ({ params: { id: sharedDebugFile } }) },
  {
    route: 'POST /api/debug_files/upload',
    row: 'appManage',
    success: 201,
    request: async () => ({ raw: multipartBody({ channel_key: (await freshTree()).channel.key }, { name: 'symbols.zip', data: freshDsym() }) }),
  },
  {
    route: 'PUT /api/debug_files/:id',
    row: 'appManage',
    success: 200,
    request: async () => ({ params: { id: await freshDebugFile(await freshTree()) }, raw: multipartBody({}, { name: 'symbols.zip', data: freshDsym() }) }),
  },
  { route: 'DELETE /api/debug_files/:id', row: 'appManage', success: 200, request: async () => ({ params: { id: await freshDebugFile(await freshTree()) } }) },

  // webhooks: app managers only, reads included (target URLs and deliveries are the app's business)
  { route: 'GET /api/channels/:id/webhooks', row: 'appManage', success: 200, request: async () => ({ params: { id: shared.channel.id } }) },
  {
    route: 'POST /api/channels/:id/webhooks',
    row: 'appManage',
    success: 201,
    request: async () => ({ params: { id: (await freshTree()).channel.id }, json: { url: 'http://127.0.0.1:9/hook', events: ['upload'] } }),
  },
  { route: 'GET /api/webhooks/:id', row: 'appManage', success: 200, request: async () => ({ params: { id: sharedWebhook } }) },
  { route: 'PUT /api/webhooks/:id', row: 'appManage', success: 200, request: async () => ({ params: { id: await freshWebhook() }, json: { url: 'http://127.0.0.1:9/other', events: ['download'] } }) },
  { route: 'PATCH /api/webhooks/:id', row: 'appManage', success: 200, request: async () => ({ params: { id: await freshWebhook() }, json: { enabled: false } }) },
  { route: 'DELETE /api/webhooks/:id', row: 'appManage', success: 200, request: async () => ({ params: { id: await freshWebhook() } }) },
  { route: 'GET /api/webhooks/:id/deliveries', row: 'appManage', success: 200, request: async () => ({ params: { id: sharedWebhook } }) },
  { route: 'POST /api/webhooks/:id/test', row: 'appManage', success: 202, request: async () => ({ params: { id: await freshWebhook() } }) },
  {
    route: 'POST /api/webhooks/:id/deliveries/:delivery_id/redeliver',
    row: 'appManage',
    success: 202,
    request: async () => {
      const id = await freshWebhook();
      const sent = await t.admin.post(`/api/webhooks/${id}/test`);
      expect(sent.status, sent.text).toBe(202);
      return { params: { id, delivery_id: sent.body.id } };
    },
  },

  // app: delete
  { route: 'DELETE /api/apps/:id', row: 'appDelete', success: 200, request: async () => ({ params: { id: (await freshTree()).app.id } }) },

  // collaborators (roles member/developer only; granting admin is tested separately below)
  { route: 'GET /api/apps/:app_id/collaborators', row: 'collaborators', success: 200, request: async () => ({ params: { app_id: shared.app.id } }) },
  {
    route: 'GET /api/apps/:app_id/collaborators/:user_id',
    row: 'collaborators',
    success: 200,
    request: async () => ({ params: { app_id: shared.app.id, user_id: users.member.id } }),
  },
  {
    route: 'POST /api/apps/:app_id/collaborators',
    row: 'collaborators',
    success: 201,
    request: async () => ({ params: { app_id: (await freshTree()).app.id }, json: { user_id: (await freshUser()).id, role: 'developer' } }),
  },
  {
    route: 'POST /api/apps/:app_id/collaborators/:user_id',
    row: 'collaborators',
    success: 201,
    request: async () => ({ params: { app_id: (await freshTree()).app.id, user_id: (await freshUser()).id }, json: { role: 'developer' } }),
  },
  {
    route: 'PUT /api/apps/:app_id/collaborators/:user_id',
    row: 'collaborators',
    success: 200,
    request: async () => {
      const appId = (await freshTree()).app.id;
      return { params: { app_id: appId, user_id: await addAs(appId, 'member') }, json: { role: 'developer' } };
    },
  },
  {
    route: 'PATCH /api/apps/:app_id/collaborators/:user_id',
    row: 'collaborators',
    success: 200,
    request: async () => {
      const appId = (await freshTree()).app.id;
      return { params: { app_id: appId, user_id: await addAs(appId, 'developer') }, json: { role: 'member' } };
    },
  },
  {
    route: 'DELETE /api/apps/:app_id/collaborators/:user_id',
    row: 'collaborators',
    success: 200,
    request: async () => {
      const appId = (await freshTree()).app.id;
      return { params: { app_id: appId, user_id: await addAs(appId, 'developer') } };
    },
  },
];

/** Routes served by plugins (the API documentation) are outside the matrix. */
function isDocumentationRoute(route: string): boolean {
  return route.includes(' /api/docs') || route === 'GET /api/openapi.json';
}

function expectedStatus(entry: RouteCase, actor: ActorName): number {
  const cell = ROWS[entry.row][actor];
  return cell === OK ? entry.success : cell;
}

function pathOf(template: string, params: Record<string, string | number> = {}): string {
  return template.replace(/:(\w+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${template}: no value for :${name}`);
    return encodeURIComponent(String(value));
  });
}

async function call(entry: RouteCase, actor: ActorName): Promise<{ status: number; text: string }> {
  const [method, template] = entry.route.split(' ') as [string, string];
  const request = entry.request ? await entry.request(actor) : {};
  const client = clientOf(actor);
  if (entry.redirect) {
    const url = new URL(pathOf(template, request.params), t.url);
    for (const [k, v] of Object.entries(request.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const res = await fetch(url, { method, redirect: 'manual', headers: client.token ? { authorization: `Bearer ${client.token}` } : {} });
    return { status: res.status, text: await res.text() };
  }
  if (entry.stream) {
    const abort = new AbortController();
    const headers: Record<string, string> = client.token ? { authorization: `Bearer ${client.token}` } : {};
    const res = await fetch(new URL(pathOf(template, request.params), t.url), { method, headers, signal: abort.signal });
    const text = res.ok ? '' : await res.text();
    abort.abort();
    return { status: res.status, text };
  }
  return client.request(method, pathOf(template, request.params), { json: request.json, query: request.query, raw: request.raw });
}

// ---------------------------------------------------------------------------------------------------

beforeAll(async () => {
  t = await startTestServer();
  const [member, nonCollaborator, appDeveloper, appAdmin, globalDeveloper, globalAdmin, locked, thirdUser] = [
    await createUser(t, 'member'),
    await createUser(t, 'member'),
    await createUser(t, 'member'),
    await createUser(t, 'member'),
    await createUser(t, 'developer'),
    await createUser(t, 'admin'),
    await createUser(t, 'admin', { locked: true }),
    await createUser(t, 'member'),
  ];
  users = {
    'locked user': locked!,
    member: member!,
    'non-collaborator': nonCollaborator!,
    'app developer': appDeveloper!,
    'app admin': appAdmin!,
    'global developer': globalDeveloper!,
    'global admin': globalAdmin!,
  };
  third = thirdUser!;
  shared = await freshTree();
  sharedRelease = await freshRelease(shared);
  const hook = await t.admin.post(`/api/channels/${shared.channel.id}/webhooks`, { url: 'http://127.0.0.1:9/hook', events: ['download'] });
  expect(hook.status, hook.text).toBe(201);
  sharedWebhook = hook.body.id;
  sharedDebugFile = await freshDebugFile(shared);
});
afterAll(() => t?.close());

describe('the world the matrix runs in', () => {
  it('has the actors it claims', async () => {
    const expectedRoles: Record<UserActor, string> = {
      'locked user': 'admin',
      member: 'member',
      'non-collaborator': 'member',
      'app developer': 'member',
      'app admin': 'member',
      'global developer': 'developer',
      'global admin': 'admin',
    };
    for (const [actor, role] of Object.entries(expectedRoles) as [UserActor, string][]) {
      const res = await t.admin.get(`/api/users/${users[actor].id}`);
      expect(res.status, `${actor}: ${res.text}`).toBe(200);
      // the extended shape names the member role `member`, the base shape `user`
      expect([role, role === 'member' ? 'user' : role], actor).toContain(res.body.role);
      expect(res.body.locked, actor).toBe(actor === 'locked user');
    }
    const collaborators = await t.admin.get(`/api/apps/${shared.app.id}/collaborators`);
    expect(collaborators.status, collaborators.text).toBe(200);
    const roleOn = (id: number) => collaborators.body.find((c: { id: number }) => c.id === id);
    expect(roleOn(users.member.id)).toMatchObject({ role: expect.stringMatching(/^(member|user)$/), owner: false });
    expect(roleOn(users['app developer'].id)).toMatchObject({ role: 'developer', owner: false });
    expect(roleOn(users['app admin'].id)).toMatchObject({ role: 'admin', owner: false });
    for (const actor of ['non-collaborator', 'global developer', 'global admin', 'locked user'] as const) expect(roleOn(users[actor].id), actor).toBeUndefined();
    expect(collaborators.body.find((c: { owner: boolean }) => c.owner)?.username).toBe('admin');
  });
});

describe('the permission matrix', () => {
  it('covers every /api route the server registers, and nothing else', () => {
    const registered = new Set([...t.server.app.accessRules.keys()].filter((route) => !isDocumentationRoute(route)));
    const inMatrix = MATRIX.map((entry) => entry.route);
    expect(new Set(inMatrix).size, 'a route appears twice in the matrix').toBe(inMatrix.length);
    const missing = [...registered].filter((route) => !inMatrix.includes(route)).sort();
    const unknown = inMatrix.filter((route) => !registered.has(route)).sort();
    expect(missing, 'registered routes missing from the permission matrix').toEqual([]);
    expect(unknown, 'matrix routes the server does not register').toEqual([]);
  });

  for (const entry of MATRIX) {
    describe(entry.route, () => {
      for (const actor of ACTORS) {
        const expected = expectedStatus(entry, actor);
        it(`as ${actor}: ${expected}`, async () => {
          const res = await call(entry, actor);
          expect(res.status, `${entry.route} as ${actor}: ${res.text}`).toBe(expected);
        });
      }
    });
  }
});

describe('uploading without a channel_key', () => {
  for (const actor of ACTORS) {
    const expected = actor === 'anonymous' || actor === 'bad token' ? 401 : actor === 'locked user' ? 403 : 201;
    it(`as ${actor}: ${expected} (a new app, owned by the uploader)`, async () => {
      const res = await clientOf(actor).request('POST', '/api/apps/upload', { raw: multipartBody({}, { name: 'Synthetic.ipa', data: syntheticIpa() }) });
      expect(res.status, `${actor}: ${res.text}`).toBe(expected);
      if (expected === 201) {
        const app = await t.admin.get(`/api/apps/${res.body.app.id}`);
        expect(app.body.collaborators.find((c: { owner: boolean }) => c.owner)?.id).toBe(users[actor as UserActor].id);
      }
    });
  }
});

describe('granting the admin role on an app', () => {
  const developer = () => users['app developer'];
  const appAdmin = () => users['app admin'];

  it('refuses an app developer who adds someone as admin (403), and lets an app admin (201)', async () => {
    const tree = await freshTree();
    for (const [who, expected] of [[developer(), 403], [appAdmin(), 201]] as const) {
      const viaBody = await freshUser();
      const res = await who.client.post(`/api/apps/${tree.app.id}/collaborators`, { user_id: viaBody.id, role: 'admin' });
      expect(res.status, `POST /api/apps/:app_id/collaborators as ${who === developer() ? 'app developer' : 'app admin'}: ${res.text}`).toBe(expected);
      const viaPath = await freshUser();
      const res2 = await who.client.post(`/api/apps/${tree.app.id}/collaborators/${viaPath.id}`, { role: 'admin' });
      expect(res2.status, `POST /api/apps/:app_id/collaborators/:user_id as ${who === developer() ? 'app developer' : 'app admin'}: ${res2.text}`).toBe(expected);
    }
  });

  it('refuses an app developer who promotes a collaborator to admin (403), and lets an app admin (200)', async () => {
    const tree = await freshTree();
    for (const method of ['put', 'patch'] as const) {
      const target = await addAs(tree.app.id, 'member');
      const refused = await developer().client[method](`/api/apps/${tree.app.id}/collaborators/${target}`, { role: 'admin' });
      expect(refused.status, `${method.toUpperCase()} /api/apps/:app_id/collaborators/:user_id to admin as app developer: ${refused.text}`).toBe(403);
      const granted = await appAdmin().client[method](`/api/apps/${tree.app.id}/collaborators/${target}`, { role: 'admin' });
      expect(granted.status, `${method.toUpperCase()} /api/apps/:app_id/collaborators/:user_id to admin as app admin: ${granted.text}`).toBe(200);
      expect(granted.body.role).toBe('admin');
    }
  });

  it('refuses an app developer who changes or removes an admin collaborator (403), and lets an app admin (200)', async () => {
    const tree = await freshTree();
    for (const method of ['put', 'patch'] as const) {
      const target = await addAs(tree.app.id, 'admin');
      const refused = await developer().client[method](`/api/apps/${tree.app.id}/collaborators/${target}`, { role: 'developer' });
      expect(refused.status, `${method.toUpperCase()} /api/apps/:app_id/collaborators/:user_id of an admin as app developer: ${refused.text}`).toBe(403);
      const changed = await appAdmin().client[method](`/api/apps/${tree.app.id}/collaborators/${target}`, { role: 'developer' });
      expect(changed.status, `${method.toUpperCase()} /api/apps/:app_id/collaborators/:user_id of an admin as app admin: ${changed.text}`).toBe(200);
      expect(changed.body.role).toBe('developer');
    }
    const target = await addAs(tree.app.id, 'admin');
    const refused = await developer().client.delete(`/api/apps/${tree.app.id}/collaborators/${target}`);
    expect(refused.status, `DELETE /api/apps/:app_id/collaborators/:user_id of an admin as app developer: ${refused.text}`).toBe(403);
    const removed = await appAdmin().client.delete(`/api/apps/${tree.app.id}/collaborators/${target}`);
    expect(removed.status, `DELETE /api/apps/:app_id/collaborators/:user_id of an admin as app admin: ${removed.text}`).toBe(200);
  });

  it('does not let an app developer promote themselves', async () => {
    const tree = await freshTree();
    const res = await developer().client.put(`/api/apps/${tree.app.id}/collaborators/${developer().id}`, { role: 'admin' });
    expect(res.status, `PUT /api/apps/:app_id/collaborators/<own id> to admin as app developer: ${res.text}`).toBe(403);
    const after = await t.admin.get(`/api/apps/${tree.app.id}/collaborators/${developer().id}`);
    expect(after.body.role).toBe('developer');
  });
});

describe('a user\'s own tokens through /api/users/:id/tokens', () => {
  it('lets a member list, create and revoke their own tokens', async () => {
    const me = await createUser(t, 'member');
    const base = `/api/users/${me.id}/tokens`;

    const listed = await me.client.get(base);
    expect(listed.status, `GET ${base} as the member: ${listed.text}`).toBe(200);
    expect(listed.body.map((token: { name: string }) => token.name)).toEqual(['test']);

    const created = await me.client.post(base, { name: 'laptop' });
    expect(created.status, `POST ${base} as the member: ${created.text}`).toBe(201);
    expect(created.body.token).toEqual(expect.any(String));
    const laptop = t.client(created.body.token);
    expect((await laptop.get('/api/users/me')).body.id).toBe(me.id);

    const relisted = await me.client.get(base);
    expect(relisted.body.map((token: { name: string }) => token.name).sort()).toEqual(['laptop', 'test']);

    const revoked = await me.client.delete(`${base}/${created.body.id}`);
    expect(revoked.status, `DELETE ${base}/:token_id as the member: ${revoked.text}`).toBe(200);
    const refused = await laptop.get('/api/users/me');
    expect(refused.status, `the revoked token: ${refused.text}`).toBe(401);
    expect((await me.client.get(base)).body.map((token: { name: string }) => token.name)).toEqual(['test']);
  });
});

describe('where the token may travel (R2)', () => {
  const route = 'POST /api/users/me/tokens';

  it(`${route} accepts the token in the Authorization header, the query, a JSON body field and a form field`, async () => {
    const me = await createUser(t, 'member');
    const names: string[] = [];

    const header = await me.client.post('/api/users/me/tokens', { name: 'via-header' });
    expect(header.status, `${route} with Authorization: ${header.text}`).toBe(201);
    names.push('via-header');

    const query = await me.client.post('/api/users/me/tokens', { name: 'via-query' }, { tokenIn: 'query' });
    expect(query.status, `${route} with ?token=: ${query.text}`).toBe(201);
    names.push('via-query');

    const json = await me.client.post('/api/users/me/tokens', { name: 'via-json' }, { tokenIn: 'body' });
    expect(json.status, `${route} with a JSON body field token: ${json.text}`).toBe(201);
    names.push('via-json');

    const form = await me.client.request('POST', '/api/users/me/tokens', { form: { name: 'via-form' }, tokenIn: 'body' });
    expect(form.status, `${route} with a form field token: ${form.text}`).toBe(201);
    names.push('via-form');

    // each request acted as the member: the tokens are theirs
    const listed = await me.client.get('/api/users/me/tokens');
    expect(listed.body.map((token: { name: string }) => token.name).sort()).toEqual([...names, 'test'].sort());

    // and a GET takes the query token too
    const whoAmI = await me.client.get('/api/users/me', { tokenIn: 'query' });
    expect(whoAmI.status, `GET /api/users/me with ?token=: ${whoAmI.text}`).toBe(200);
    expect(whoAmI.body.id).toBe(me.id);
  });

  it('refuses the same request without a token (401) and with a locked user\'s token in any place (403)', async () => {
    const none = await t.anon.post('/api/users/me/tokens', { name: 'nobody' });
    expect(none.status, `${route} as anonymous: ${none.text}`).toBe(401);
    for (const tokenIn of ['header', 'query', 'body'] as const) {
      const res = await users['locked user'].client.post('/api/users/me/tokens', { name: 'locked' }, { tokenIn });
      expect(res.status, `${route} as locked user, token in ${tokenIn}: ${res.text}`).toBe(403);
      const bad = await t.client(BAD_TOKEN).post('/api/users/me/tokens', { name: 'bad' }, { tokenIn });
      expect(bad.status, `${route} with a bad token in ${tokenIn}: ${bad.text}`).toBe(401);
    }
  });
});
