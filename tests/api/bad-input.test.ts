/**
 * Bad input on every route that takes input (R3, R8): each refusal is a clear 4xx, never a 5xx; its body
 * is a JSON object with a string `error` (and, for 422, an `entry` mapping fields to messages); and a
 * refused request changes nothing (database rows and files under the data directory are compared
 * before and after each one). Input that only looks odd (unicode, SQL-looking text) is accepted and
 * kept exactly.
 *
 * Requests go through the checked client (answers must match the served OpenAPI document), except
 * where a case says `unchecked`: those answers are asserted here, and their documentation separately.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, ApiResponse, RequestOptions } from '../helpers/client.ts';
import { counts, filesUnder, fingerprint, tables } from '../helpers/db.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCollaborator, createAppTree, createUser, unique, type AppTree, type TestUser } from '../helpers/world.ts';

// ---- harness ------------------------------------------------------------------------------------

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
type Entry = Record<string, string[]>;

/** A request. `path` may name fixtures: {app} {scheme} {channel} {other} {member} {outsider} {token} {udid}. */
interface Req {
  method: Method;
  path: string;
  /** a JSON body; a function is called at request time (bodies naming fixture ids) */
  json?: unknown;
  form?: Record<string, string>;
  raw?: { body: string | Buffer; contentType?: string };
  query?: Record<string, string | number>;
  shape?: 'base' | 'extended';
  unchecked?: boolean;
  /** the caller (default: the initial admin) */
  as?: () => ApiClient;
}

let t: TestServer;
const fx = {} as {
  tree: AppTree;
  /** a second channel of tree.scheme, with a known slug */
  other: { id: number; slug: string };
  /** a member collaborator of tree.app */
  member: TestUser;
  memberTokenId: number;
  /** a member who collaborates on nothing */
  outsider: TestUser;
  udid: string;
  /** an app the outsider must never reach */
  victim: AppTree;
};

function fill(path: string): string {
  return path.replace(/\{(\w+)\}/g, (_, key: string) => {
    switch (key) {
      case 'app': return String(fx.tree.app.id);
      case 'scheme': return String(fx.tree.scheme.id);
      case 'channel': return String(fx.tree.channel.id);
      case 'other': return String(fx.other.id);
      case 'member': return String(fx.member.id);
      case 'outsider': return String(fx.outsider.id);
      case 'token': return String(fx.memberTokenId);
      case 'udid': return fx.udid;
      default: throw new Error(`unknown placeholder {${key}}`);
    }
  });
}

function call(req: Req): Promise<ApiResponse> {
  const options: RequestOptions = {};
  if (req.json !== undefined) options.json = typeof req.json === 'function' ? (req.json as () => unknown)() : req.json;
  if (req.form) options.form = req.form;
  if (req.raw) options.raw = req.raw;
  if (req.query) options.query = req.query;
  if (req.shape) options.shape = req.shape;
  if (req.unchecked) options.unchecked = true;
  return (req.as ? req.as() : t.admin).request(req.method, fill(req.path), options);
}

/** R3: a JSON object with a string `error`, `entry` on 422; JSON content type; not cached. */
function expectErrorBody(res: ApiResponse): void {
  expect(res.headers.get('content-type'), `content type of ${res.status} ${res.text.slice(0, 200)}`).toBe('application/json; charset=utf-8');
  expect(res.headers.get('cache-control'), 'cache-control of an error').toBe('no-store');
  expect(res.body !== null && typeof res.body === 'object' && !Array.isArray(res.body), `body is an object: ${res.text.slice(0, 200)}`).toBe(true);
  expect(typeof res.body.error, 'error is a string').toBe('string');
  expect(res.body.error.length).toBeGreaterThan(0);
  if (res.status === 422) expect(res.body, '422 carries entry').toHaveProperty('entry');
  if (res.body.entry !== undefined) {
    const entry = res.body.entry as unknown;
    expect(entry !== null && typeof entry === 'object' && !Array.isArray(entry)).toBe(true);
    for (const [field, messages] of Object.entries(entry as Record<string, unknown>)) {
      expect(Array.isArray(messages) && messages.length > 0 && messages.every((m) => typeof m === 'string'), `entry.${field}`).toBe(true);
    }
  }
}

/**
 * Sends a request that must be refused with `status`, and proves that nothing changed. `detail`: for a
 * 422 the exact `entry`; otherwise the exact `error`.
 */
async function refuse(req: Req, status: number, detail?: Entry | string): Promise<ApiResponse> {
  const rowsBefore = fingerprint(t.sql);
  const filesBefore = await filesUnder(t.dataDir);
  const res = await call(req);
  expect(res.status, `${req.method} ${fill(req.path)} answered ${res.status}: ${res.text.slice(0, 300)}`).toBe(status);
  expectErrorBody(res);
  if (status === 422) {
    expect(res.body.error).toBe('Unprocessable entity');
    if (detail !== undefined) expect(res.body.entry).toEqual(detail);
  } else if (typeof detail === 'string') {
    expect(res.body).toEqual({ error: detail });
  }
  expect(fingerprint(t.sql), 'a refused request changed the database').toBe(rowsBefore);
  expect(await filesUnder(t.dataDir), 'a refused request changed the data directory').toEqual(filesBefore);
  return res;
}

async function accept(req: Req, status = 200): Promise<ApiResponse> {
  const res = await call(req);
  expect(res.status, `${req.method} ${fill(req.path)} answered ${res.status}: ${res.text.slice(0, 300)}`).toBe(status);
  return res;
}

const e = (field: string, message: string): Entry => ({ [field]: [message] });
const TEN_KB = 10 * 1024;
const MISSING = 999999;
const GOOD_PASSWORD = 'correct horse battery';
let udidCounter = 0;
/** A fresh, valid UDID. */
function newUdid(): string {
  udidCounter += 1;
  return `00008030-${process.pid.toString(16).toUpperCase().padStart(6, '0')}${String(udidCounter).padStart(10, '0')}`;
}

beforeAll(async () => {
  t = await startTestServer();
  fx.tree = await createAppTree(t);
  const other = await t.admin.post(`/api/schemes/${fx.tree.scheme.id}/channels`, { name: 'Other', device_type: 'android', slug: unique('taken-') });
  expect(other.status, other.text).toBe(201);
  fx.other = { id: other.body.id, slug: other.body.slug };
  fx.member = await createUser(t, 'member');
  await addCollaborator(t, fx.tree.app.id, fx.member.id, 'member');
  const tokens = await t.admin.get(`/api/users/${fx.member.id}/tokens`);
  expect(tokens.status, tokens.text).toBe(200);
  fx.memberTokenId = tokens.body[0].id;
  fx.outsider = await createUser(t, 'member');
  fx.udid = newUdid();
  const device = await t.admin.put(`/api/devices/${fx.udid}`, { name: 'Fixture phone', model: 'iPhone15,2' });
  expect(device.status, device.text).toBe(200);
  fx.victim = await createAppTree(t);
});
afterAll(() => t.close());

// ---- the routes ---------------------------------------------------------------------------------

type Kind = 'string' | 'nullable-string' | 'boolean' | 'integer' | 'enum';

interface BodyRoute {
  route: string;
  method: Method;
  path: string;
  /** a valid body, so that only the field under test is wrong */
  base: () => Record<string, unknown>;
  fields: Record<string, Kind>;
}

const schemeFields: Record<string, Kind> = { name: 'string', new_build_callout: 'boolean', retained_builds: 'integer' };
const channelFields: Record<string, Kind> = {
  name: 'string', device_type: 'enum', slug: 'string', bundle_id: 'string', git_url: 'nullable-string', password: 'string', download_filename_type: 'enum',
};
const userFields: Record<string, Kind> = {
  username: 'string', email: 'string', password: 'string', locale: 'enum', local: 'enum', appearance: 'enum', timezone: 'enum', role: 'enum',
};
const tokenFields: Record<string, Kind> = { name: 'string', expires_at: 'nullable-string' };
const newUser = () => ({ username: 'typed', email: 'typed@example.test', password: GOOD_PASSWORD });

const bodyRoutes: BodyRoute[] = [
  { route: 'POST /api/apps', method: 'POST', path: '/api/apps', base: () => ({ name: 'Typed' }), fields: { name: 'string' } },
  { route: 'PUT /api/apps/:id', method: 'PUT', path: '/api/apps/{app}', base: () => ({ name: 'Typed' }), fields: { name: 'string', archived: 'boolean' } },
  { route: 'PATCH /api/apps/:id', method: 'PATCH', path: '/api/apps/{app}', base: () => ({}), fields: { name: 'string', archived: 'boolean' } },
  { route: 'POST /api/apps/:id/schemes', method: 'POST', path: '/api/apps/{app}/schemes', base: () => ({ name: 'Typed' }), fields: schemeFields },
  { route: 'PUT /api/schemes/:id', method: 'PUT', path: '/api/schemes/{scheme}', base: () => ({ name: 'Typed' }), fields: schemeFields },
  { route: 'PATCH /api/schemes/:id', method: 'PATCH', path: '/api/schemes/{scheme}', base: () => ({}), fields: schemeFields },
  { route: 'POST /api/schemes/:id/channels', method: 'POST', path: '/api/schemes/{scheme}/channels', base: () => ({ name: 'Typed', device_type: 'ios' }), fields: channelFields },
  { route: 'PUT /api/channels/:id', method: 'PUT', path: '/api/channels/{channel}', base: () => ({ name: 'Typed', device_type: 'ios' }), fields: channelFields },
  { route: 'PATCH /api/channels/:id', method: 'PATCH', path: '/api/channels/{channel}', base: () => ({}), fields: channelFields },
  {
    route: 'POST /api/apps/:app_id/collaborators', method: 'POST', path: '/api/apps/{app}/collaborators',
    base: () => ({ user_id: fx.outsider.id, role: 'member' }), fields: { user_id: 'integer', role: 'enum' },
  },
  { route: 'POST /api/apps/:app_id/collaborators/:user_id', method: 'POST', path: '/api/apps/{app}/collaborators/{outsider}', base: () => ({ role: 'member' }), fields: { role: 'enum' } },
  { route: 'PUT /api/apps/:app_id/collaborators/:user_id', method: 'PUT', path: '/api/apps/{app}/collaborators/{member}', base: () => ({ role: 'developer' }), fields: { role: 'enum' } },
  { route: 'PATCH /api/apps/:app_id/collaborators/:user_id', method: 'PATCH', path: '/api/apps/{app}/collaborators/{member}', base: () => ({ role: 'developer' }), fields: { role: 'enum' } },
  { route: 'POST /api/users', method: 'POST', path: '/api/users', base: newUser, fields: userFields },
  {
    route: 'PUT /api/users/:id', method: 'PUT', path: '/api/users/{member}',
    base: () => ({ username: fx.member.username, email: fx.member.email, password: GOOD_PASSWORD }), fields: userFields,
  },
  { route: 'PATCH /api/users/:id', method: 'PATCH', path: '/api/users/{member}', base: () => ({}), fields: userFields },
  { route: 'POST /api/users/me/tokens', method: 'POST', path: '/api/users/me/tokens', base: () => ({ name: 'typed' }), fields: tokenFields },
  { route: 'POST /api/users/:id/tokens', method: 'POST', path: '/api/users/{member}/tokens', base: () => ({ name: 'typed' }), fields: tokenFields },
  { route: 'PUT /api/devices/:udid', method: 'PUT', path: '/api/devices/{udid}', base: () => ({ name: 'Typed phone' }), fields: { name: 'string', model: 'string', platform: 'string' } },
];

// ---- bodies that are not JSON objects -------------------------------------------------------------

describe('malformed JSON bodies: 400', () => {
  const payloads: Array<[label: string, body: string, error: string]> = [
    ['truncated', '{"name":"x"', 'Malformed JSON'],
    ['trailing garbage', '{"name":"x"} trailing', 'Malformed JSON'],
    ['an empty body', '', 'Malformed JSON: the body is empty'],
    ['single quotes', "{'name':'x'}", 'Malformed JSON'],
    ['a trailing comma', '{"name":"x",}', 'Malformed JSON'],
    ['NaN', '{"name":NaN}', 'Malformed JSON'],
    ['a bare word', 'name', 'Malformed JSON'],
    ['a __proto__ key', '{"name":"x","__proto__":{"role":"admin"}}', 'Malformed JSON'],
  ];
  const cases = bodyRoutes.flatMap((r) => payloads.map(([label, body, error]) => ({ name: `${r.route} with ${label}`, r, body, error })));

  it.each(cases)('$name', async ({ r, body, error }) => {
    await refuse({ method: r.method, path: r.path, raw: { body, contentType: 'application/json' } }, 400, error);
  });

  // Routes without a body schema still parse a JSON body they are sent.
  it.each([
    { name: 'POST /api/users/:id/lock', method: 'POST' as Method, path: '/api/users/{outsider}/lock' },
    { name: 'DELETE /api/users/:id/unlock', method: 'DELETE' as Method, path: '/api/users/{outsider}/unlock' },
    { name: 'POST /api/channels/:id/key', method: 'POST' as Method, path: '/api/channels/{channel}/key' },
  ])('$name with a truncated JSON body', async ({ method, path }) => {
    await refuse({ method, path, raw: { body: '{"x":', contentType: 'application/json' }, unchecked: true }, 400, 'Malformed JSON');
  });
});

describe('JSON bodies that are not objects: 422', () => {
  const values: Array<[label: string, value: unknown]> = [
    ['an array', [{ name: 'x' }]],
    ['a string', 'name'],
    ['a number', 42],
    ['null', null],
    ['true', true],
  ];
  const cases = bodyRoutes.flatMap((r) => values.map(([label, value]) => ({ name: `${r.route} with ${label}`, r, value })));

  it.each(cases)('$name', async ({ r, value }) => {
    await refuse({ method: r.method, path: r.path, json: value }, 422, e('body', 'must be an object'));
  });
});

// ---- wrong types ----------------------------------------------------------------------------------

describe('wrong JSON types: 422 naming the field', () => {
  const wrong: Record<Kind, Array<[label: string, value: unknown, message: string]>> = {
    string: [
      ['a number', 42, 'must be a string'],
      ['a boolean', true, 'must be a string'],
      ['an array', ['x'], 'must be a string'],
      ['an object', { value: 'x' }, 'must be a string'],
      ['null', null, 'must be a string'],
    ],
    'nullable-string': [
      ['a number', 42, 'must be a string'],
      ['a boolean', false, 'must be a string'],
      ['an array', ['x'], 'must be a string'],
      ['an object', { value: 'x' }, 'must be a string'],
    ],
    boolean: [
      ['the string "true"', 'true', 'must be true or false'],
      ['the string "false"', 'false', 'must be true or false'],
      ['the number 1', 1, 'must be true or false'],
      ['null', null, 'must be true or false'],
      ['an array', [true], 'must be true or false'],
      ['an object', {}, 'must be true or false'],
    ],
    integer: [
      ['the string "3"', '3', 'must be an integer'],
      ['a fraction', 1.5, 'must be an integer'],
      ['a boolean', true, 'must be an integer'],
      ['null', null, 'must be an integer'],
      ['an array', [3], 'must be an integer'],
      ['an object', {}, 'must be an integer'],
    ],
    enum: [
      ['a number', 1, 'is not included in the list'],
      ['a boolean', true, 'is not included in the list'],
      ['null', null, 'is not included in the list'],
      ['an array', ['x'], 'is not included in the list'],
      ['an object', {}, 'is not included in the list'],
    ],
  };
  const cases = bodyRoutes.flatMap((r) =>
    Object.entries(r.fields).flatMap(([field, kind]) =>
      wrong[kind].map(([label, value, message]) => ({ name: `${r.route}: ${field} as ${label}`, r, field, value, message })),
    ),
  );

  it.each(cases)('$name', async ({ r, field, value, message }) => {
    await refuse({ method: r.method, path: r.path, json: () => ({ ...r.base(), [field]: value }) }, 422, e(field, message));
  });
});

// ---- enums ----------------------------------------------------------------------------------------

describe('unknown enum values: 422 "is not included in the list"', () => {
  const channel = (extra: Record<string, unknown>) => ({ name: 'Enum', device_type: 'ios', ...extra });
  const cases: Array<{ name: string; req: Req; field: string }> = [
    ...['symbian', 'i os', 'ios ', 'android; DROP TABLE channels', ''].map((v) => ({
      name: `POST channels device_type=${JSON.stringify(v)}`, req: { method: 'POST' as Method, path: '/api/schemes/{scheme}/channels', json: channel({ device_type: v }) }, field: 'device_type',
    })),
    { name: 'POST channels device_type=harmonyos in the base shape', req: { method: 'POST', path: '/api/schemes/{scheme}/channels', json: channel({ device_type: 'harmonyos' }), shape: 'base' }, field: 'device_type' },
    { name: 'PATCH channel device_type=HarmonyOS in the base shape', req: { method: 'PATCH', path: '/api/channels/{channel}', json: { device_type: 'HarmonyOS' }, shape: 'base' }, field: 'device_type' },
    { name: 'PUT channel device_type=blackberry', req: { method: 'PUT', path: '/api/channels/{channel}', json: channel({ device_type: 'blackberry' }) }, field: 'device_type' },
    { name: 'POST channels download_filename_type=random', req: { method: 'POST', path: '/api/schemes/{scheme}/channels', json: channel({ download_filename_type: 'random' }) }, field: 'download_filename_type' },
    { name: 'PATCH channel download_filename_type=original', req: { method: 'PATCH', path: '/api/channels/{channel}', json: { download_filename_type: 'original' } }, field: 'download_filename_type' },
    ...(
      [
        ['role', 'owner'], ['role', 'superuser'], ['role', ''],
        ['locale', 'fr'], ['locale', 'zh_CN'], ['local', 'de'],
        ['appearance', 'neon'], ['appearance', 'system'],
        ['timezone', 'Mars/Olympus_Mons'], ['timezone', 'UTC+8'], ['timezone', 'Europe/Atlantis'],
      ] as const
    ).flatMap(([field, value]) => [
      { name: `POST /api/users ${field}=${JSON.stringify(value)}`, req: { method: 'POST' as Method, path: '/api/users', json: { ...newUser(), [field]: value } }, field },
      { name: `PATCH /api/users/:id ${field}=${JSON.stringify(value)}`, req: { method: 'PATCH' as Method, path: '/api/users/{member}', json: { [field]: value } }, field },
    ]),
    { name: 'PATCH /api/users/:id local=de in the base shape', req: { method: 'PATCH', path: '/api/users/{member}', json: { local: 'de' }, shape: 'base' }, field: 'local' },
    { name: 'POST collaborators role=owner', req: { method: 'POST', path: '/api/apps/{app}/collaborators', json: () => ({ user_id: fx.outsider.id, role: 'owner' }) }, field: 'role' },
    { name: 'POST collaborators/:user_id role=guest', req: { method: 'POST', path: '/api/apps/{app}/collaborators/{outsider}', json: { role: 'guest' } }, field: 'role' },
    { name: 'PUT collaborators/:user_id role=owner', req: { method: 'PUT', path: '/api/apps/{app}/collaborators/{member}', json: { role: 'owner' } }, field: 'role' },
    { name: 'PATCH collaborators/:user_id role=viewer', req: { method: 'PATCH', path: '/api/apps/{app}/collaborators/{member}', json: { role: 'viewer' } }, field: 'role' },
    ...['deleted', 'ALL', '', "all' OR 1=1 --"].map((v) => ({
      name: `GET /api/apps scope=${JSON.stringify(v)}`, req: { method: 'GET' as Method, path: '/api/apps', query: { scope: v } }, field: 'scope',
    })),
  ];

  it.each(cases)('$name', async ({ req, field }) => {
    await refuse(req, 422, e(field, 'is not included in the list'));
  });
});

// ---- blank, missing and over-long values -----------------------------------------------------------

describe('blank values: 422 "can\'t be blank"', () => {
  const blanks: Array<[label: string, value: string]> = [
    ['empty', ''],
    ['spaces', '   '],
    ['tabs and newlines', '\t\n\r '],
    ['ideographic spaces', '\u3000\u3000'],
    ['a no-break space', '\u00a0'],
  ];
  const nameRoutes: Array<[route: string, method: Method, path: string, base: Record<string, unknown>]> = [
    ['POST /api/apps', 'POST', '/api/apps', {}],
    ['PUT /api/apps/:id', 'PUT', '/api/apps/{app}', {}],
    ['PATCH /api/apps/:id', 'PATCH', '/api/apps/{app}', {}],
    ['POST /api/apps/:id/schemes', 'POST', '/api/apps/{app}/schemes', {}],
    ['PUT /api/schemes/:id', 'PUT', '/api/schemes/{scheme}', {}],
    ['PATCH /api/schemes/:id', 'PATCH', '/api/schemes/{scheme}', {}],
    ['POST /api/schemes/:id/channels', 'POST', '/api/schemes/{scheme}/channels', { device_type: 'ios' }],
    ['PUT /api/channels/:id', 'PUT', '/api/channels/{channel}', { device_type: 'ios' }],
    ['PATCH /api/channels/:id', 'PATCH', '/api/channels/{channel}', {}],
    ['POST /api/users/me/tokens', 'POST', '/api/users/me/tokens', {}],
    ['POST /api/users/:id/tokens', 'POST', '/api/users/{member}/tokens', {}],
    ['PUT /api/devices/:udid', 'PUT', '/api/devices/{udid}', {}],
  ];
  const cases = [
    ...nameRoutes.flatMap(([route, method, path, base]) =>
      blanks.map(([label, value]) => ({ name: `${route}: name ${label}`, req: { method, path, json: { ...base, name: value } } as Req, field: 'name' })),
    ),
    ...(['POST', 'PATCH'] as const).flatMap((method) => {
      const path = method === 'POST' ? '/api/users' : '/api/users/{member}';
      const base = method === 'POST' ? newUser() : {};
      return [
        { name: `${method} user: username empty`, req: { method, path, json: { ...base, username: '' } } as Req, field: 'username' },
        { name: `${method} user: username spaces`, req: { method, path, json: { ...base, username: '   ' } } as Req, field: 'username' },
        { name: `${method} user: email empty`, req: { method, path, json: { ...base, email: '' } } as Req, field: 'email' },
        { name: `${method} user: password empty`, req: { method, path, json: { ...base, password: '' } } as Req, field: 'password' },
        { name: `${method} user: password of spaces`, req: { method, path, json: { ...base, password: '       ' } } as Req, field: 'password' },
      ];
    }),
    { name: 'GET /api/users/search: email empty', req: { method: 'GET', path: '/api/users/search', query: { email: '' } } as Req, field: 'email' },
  ];

  it.each(cases)('$name', async ({ req, field }) => {
    await refuse(req, 422, e(field, "can't be blank"));
  });
});

describe('missing required values: 422 "can\'t be blank"', () => {
  const cases: Array<{ name: string; req: Req; field: string }> = [
    { name: 'POST /api/apps without a body', req: { method: 'POST', path: '/api/apps' }, field: 'name' },
    { name: 'POST /api/apps {}', req: { method: 'POST', path: '/api/apps', json: {} }, field: 'name' },
    { name: 'PUT /api/apps/:id without name', req: { method: 'PUT', path: '/api/apps/{app}', json: { archived: false } }, field: 'name' },
    { name: 'POST schemes without name', req: { method: 'POST', path: '/api/apps/{app}/schemes', json: { retained_builds: 3 } }, field: 'name' },
    { name: 'PUT scheme without name', req: { method: 'PUT', path: '/api/schemes/{scheme}', json: {} }, field: 'name' },
    { name: 'POST channels without name', req: { method: 'POST', path: '/api/schemes/{scheme}/channels', json: { device_type: 'ios' } }, field: 'name' },
    { name: 'POST channels without device_type', req: { method: 'POST', path: '/api/schemes/{scheme}/channels', json: { name: 'No type' } }, field: 'device_type' },
    { name: 'PUT channel without device_type', req: { method: 'PUT', path: '/api/channels/{channel}', json: { name: 'No type' } }, field: 'device_type' },
    { name: 'POST collaborators without user_id', req: { method: 'POST', path: '/api/apps/{app}/collaborators', json: { role: 'member' } }, field: 'user_id' },
    { name: 'POST collaborators without role (extended shape)', req: { method: 'POST', path: '/api/apps/{app}/collaborators', json: () => ({ user_id: fx.outsider.id }) }, field: 'role' },
    { name: 'PUT collaborator without role', req: { method: 'PUT', path: '/api/apps/{app}/collaborators/{member}', json: {} }, field: 'role' },
    { name: 'POST /api/users without username', req: { method: 'POST', path: '/api/users', json: { email: 'nouser@example.test', password: GOOD_PASSWORD } }, field: 'username' },
    { name: 'POST /api/users without email', req: { method: 'POST', path: '/api/users', json: { username: 'noemail', password: GOOD_PASSWORD } }, field: 'email' },
    { name: 'POST /api/users without password (extended shape)', req: { method: 'POST', path: '/api/users', json: { username: 'nopassword', email: 'nopassword@example.test' } }, field: 'password' },
    { name: 'PUT /api/users/:id {}', req: { method: 'PUT', path: '/api/users/{member}', json: {} }, field: 'username' },
    { name: 'POST tokens without name', req: { method: 'POST', path: '/api/users/me/tokens', json: { expires_at: null } }, field: 'name' },
    { name: 'PUT device without name', req: { method: 'PUT', path: '/api/devices/{udid}', json: { model: 'iPhone' } }, field: 'name' },
    { name: 'GET /api/users/search without email', req: { method: 'GET', path: '/api/users/search' }, field: 'email' },
  ];

  it.each(cases)('$name', async ({ req, field }) => {
    await refuse(req, 422, e(field, "can't be blank"));
  });
});

describe('over-long values (10 kB): 422 "is too long"', () => {
  const x = 'x'.repeat(TEN_KB);
  const a = 'a'.repeat(TEN_KB); // valid characters for slugs and usernames, so that only the length is wrong
  const channel = { name: 'Long', device_type: 'ios' };
  const cases: Array<{ name: string; req: Req; field: string; max: number }> = [
    { name: 'POST /api/apps name', req: { method: 'POST', path: '/api/apps', json: { name: x } }, field: 'name', max: 255 },
    { name: 'PATCH /api/apps/:id name', req: { method: 'PATCH', path: '/api/apps/{app}', json: { name: x } }, field: 'name', max: 255 },
    { name: 'POST schemes name', req: { method: 'POST', path: '/api/apps/{app}/schemes', json: { name: x } }, field: 'name', max: 255 },
    { name: 'PATCH scheme name', req: { method: 'PATCH', path: '/api/schemes/{scheme}', json: { name: x } }, field: 'name', max: 255 },
    { name: 'POST channels name', req: { method: 'POST', path: '/api/schemes/{scheme}/channels', json: { ...channel, name: x } }, field: 'name', max: 255 },
    { name: 'POST channels slug', req: { method: 'POST', path: '/api/schemes/{scheme}/channels', json: { ...channel, slug: a } }, field: 'slug', max: 64 },
    { name: 'POST channels bundle_id', req: { method: 'POST', path: '/api/schemes/{scheme}/channels', json: { ...channel, bundle_id: x } }, field: 'bundle_id', max: 255 },
    { name: 'POST channels git_url', req: { method: 'POST', path: '/api/schemes/{scheme}/channels', json: { ...channel, git_url: x } }, field: 'git_url', max: 2048 },
    { name: 'POST channels password', req: { method: 'POST', path: '/api/schemes/{scheme}/channels', json: { ...channel, password: x } }, field: 'password', max: 128 },
    { name: 'PATCH channel name', req: { method: 'PATCH', path: '/api/channels/{channel}', json: { name: x } }, field: 'name', max: 255 },
    { name: 'PATCH channel slug', req: { method: 'PATCH', path: '/api/channels/{channel}', json: { slug: a } }, field: 'slug', max: 64 },
    { name: 'POST /api/users username', req: { method: 'POST', path: '/api/users', json: { ...newUser(), username: a } }, field: 'username', max: 64 },
    { name: 'POST /api/users email', req: { method: 'POST', path: '/api/users', json: { ...newUser(), email: a } }, field: 'email', max: 254 },
    { name: 'POST /api/users password', req: { method: 'POST', path: '/api/users', json: { ...newUser(), password: x } }, field: 'password', max: 128 },
    { name: 'PATCH /api/users/:id username', req: { method: 'PATCH', path: '/api/users/{member}', json: { username: a } }, field: 'username', max: 64 },
    { name: 'PATCH /api/users/:id password', req: { method: 'PATCH', path: '/api/users/{member}', json: { password: x } }, field: 'password', max: 128 },
    { name: 'POST /api/users/me/tokens name', req: { method: 'POST', path: '/api/users/me/tokens', json: { name: x } }, field: 'name', max: 255 },
    { name: 'POST /api/users/:id/tokens name', req: { method: 'POST', path: '/api/users/{member}/tokens', json: { name: x } }, field: 'name', max: 255 },
    { name: 'PUT device name', req: { method: 'PUT', path: '/api/devices/{udid}', json: { name: x } }, field: 'name', max: 255 },
    { name: 'PUT device model', req: { method: 'PUT', path: '/api/devices/{udid}', json: { name: 'Phone', model: x } }, field: 'model', max: 255 },
    { name: 'PUT device platform', req: { method: 'PUT', path: '/api/devices/{udid}', json: { name: 'Phone', platform: x } }, field: 'platform', max: 64 },
    { name: 'GET /api/users/search email', req: { method: 'GET', path: '/api/users/search', query: { email: a } }, field: 'email', max: 254 },
  ];

  it.each(cases)('$name', async ({ req, field, max }) => {
    await refuse(req, 422, e(field, `is too long (maximum is ${max} characters)`));
  });

  it('accepts a name of exactly 255 characters and refuses 256', async () => {
    const ok = await accept({ method: 'POST', path: '/api/apps', json: { name: 'n'.repeat(255) } }, 201);
    expect(ok.body.name).toBe('n'.repeat(255));
    await refuse({ method: 'POST', path: '/api/apps', json: { name: 'n'.repeat(256) } }, 422, e('name', 'is too long (maximum is 255 characters)'));
    await refuse({ method: 'POST', path: '/api/apps', json: { name: '😀'.repeat(256) } }, 422, e('name', 'is too long (maximum is 255 characters)'));
  });
});

// ---- unicode and SQL-looking text -------------------------------------------------------------------

interface NamedThing {
  kind: string;
  table: string;
  /** how the row counts grow with one creation */
  grows: Record<string, number>;
  /** creates (or renames) one with this name; answers the key to read it back by */
  create(name: string): Promise<{ key: number | string; res: ApiResponse }>;
  /** the name as the API shows it afterwards */
  read(key: number | string): Promise<string>;
  /** the name as stored */
  stored(key: number | string): string;
}

function storedName(table: string, column: string, key: number | string): string {
  const row = t.sql.prepare(`SELECT name FROM "${table}" WHERE "${column}" = ?`).get(key) as { name: string } | undefined;
  expect(row, `${table} row ${key}`).toBeDefined();
  return row!.name;
}

const namedThings: NamedThing[] = [
  {
    kind: 'app (create)', table: 'apps', grows: { apps: 1, collaborators: 1 },
    async create(name) {
      const res = await accept({ method: 'POST', path: '/api/apps', json: { name } }, 201);
      return { key: res.body.id, res };
    },
    read: async (id) => (await t.admin.get(`/api/apps/${id}`)).body.name,
    stored: (id) => storedName('apps', 'id', id),
  },
  {
    kind: 'app (rename)', table: 'apps', grows: {},
    async create(name) {
      const res = await accept({ method: 'PATCH', path: '/api/apps/{app}', json: { name } }, 200);
      return { key: res.body.id, res };
    },
    read: async (id) => (await t.admin.get(`/api/apps/${id}`)).body.name,
    stored: (id) => storedName('apps', 'id', id),
  },
  {
    kind: 'scheme', table: 'schemes', grows: { schemes: 1 },
    async create(name) {
      const res = await accept({ method: 'POST', path: '/api/apps/{app}/schemes', json: { name } }, 201);
      return { key: res.body.id, res };
    },
    read: async (id) => (await t.admin.get(`/api/schemes/${id}`)).body.name,
    stored: (id) => storedName('schemes', 'id', id),
  },
  {
    kind: 'channel', table: 'channels', grows: { channels: 1 },
    async create(name) {
      const res = await accept({ method: 'POST', path: '/api/schemes/{scheme}/channels', json: { name, device_type: 'android' } }, 201);
      return { key: res.body.id, res };
    },
    read: async (id) => (await t.admin.get(`/api/channels/${id}`)).body.name,
    stored: (id) => storedName('channels', 'id', id),
  },
  {
    kind: 'token', table: 'api_tokens', grows: { api_tokens: 1 },
    async create(name) {
      const res = await accept({ method: 'POST', path: '/api/users/me/tokens', json: { name } }, 201);
      return { key: res.body.id, res };
    },
    read: async (id) => ((await t.admin.get('/api/users/me/tokens')).body as Array<{ id: number; name: string }>).find((tk) => tk.id === id)!.name,
    stored: (id) => storedName('api_tokens', 'id', id),
  },
  {
    kind: 'device', table: 'devices', grows: { devices: 1 },
    async create(name) {
      const udid = newUdid();
      const res = await accept({ method: 'PUT', path: `/api/devices/${udid}`, json: { name } }, 200);
      return { key: udid, res };
    },
    read: async (udid) => ((await t.admin.get('/api/devices', { query: { per_page: 100 } })).body as Array<{ udid: string; name: string }>).find((d) => d.udid === udid)!.name,
    stored: (udid) => storedName('devices', 'udid', udid),
  },
];

describe('unicode names: accepted and kept exactly (outer whitespace trimmed)', () => {
  const names: Array<[label: string, sent: string, kept: string]> = [
    ['emoji with ZWJ sequences and skin tones', '🚀 Launch 👩🏽‍💻 👨‍👩‍👧‍👦', '🚀 Launch 👩🏽‍💻 👨‍👩‍👧‍👦'],
    ['CJK', '测试应用 テスト 테스트', '测试应用 テスト 테스트'],
    ['right-to-left (Arabic, Hebrew)', 'تطبيق تجريبي עברית', 'تطبيق تجريبي עברית'],
    ['bidi marks inside', 'v2 \u200Fשלום\u200E beta', 'v2 \u200Fשלום\u200E beta'],
    ['combining marks (decomposed, not normalised)', 'Cafe\u0301 Ame\u0301lie Z\u0351\u0311a\u0344l\u0352go', 'Cafe\u0301 Ame\u0301lie Z\u0351\u0311a\u0344l\u0352go'],
    ['outer whitespace of any kind', ' \t\u3000\u00a0 Ünïcödé 名前 \n', 'Ünïcödé 名前'],
    ['inner whitespace', 'a  b\u3000c', 'a  b\u3000c'],
    ['255 astral characters', '😀'.repeat(255), '😀'.repeat(255)],
  ];
  const cases = namedThings.flatMap((thing) => names.map(([label, sent, kept]) => ({ name: `${thing.kind}: ${label}`, thing, sent, kept })));

  it.each(cases)('$name', async ({ thing, sent, kept }) => {
    const { key, res } = await thing.create(sent);
    expect(res.body.name).toBe(kept);
    expect(await thing.read(key)).toBe(kept);
    expect(thing.stored(key)).toBe(kept);
  });

  it('refuses a name that is not valid Unicode (a lone surrogate) rather than altering it', async () => {
    await refuse({ method: 'POST', path: '/api/apps', json: { name: 'a\uD800b' } }, 400, 'Malformed JSON: strings must be valid Unicode');
  });
});

describe('unicode usernames: accepted and kept exactly', () => {
  const usernames: Array<[label: string, username: string]> = [
    ['Latin with diaeresis', 'Zoë'],
    ['CJK', '李小龙'],
    ['Latin with punctuation', 'Ñandú-2.0_x'],
    ['Arabic', 'مستخدم'],
    ['Devanagari with combining marks', 'नमस्ते'],
    ['decomposed combining accent', 'E\u0301lodie'],
    ['Greek', 'Σωκράτης'],
  ];

  it.each(usernames.map(([label, username]) => ({ name: label, username })))('$name', async ({ username }) => {
    const suffixed = `${username}${unique('')}`;
    const email = `${unique('uni')}@example.test`;
    const res = await accept({ method: 'POST', path: '/api/users', json: { username: suffixed, email, password: GOOD_PASSWORD } }, 201);
    expect(res.body.username).toBe(suffixed);
    expect((await t.admin.get(`/api/users/${res.body.id}`)).body.username).toBe(suffixed);
    const row = t.sql.prepare('SELECT username FROM users WHERE id = ?').get(res.body.id) as { username: string };
    expect(row.username).toBe(suffixed);
    const found = await t.admin.get('/api/users/search', { query: { email: email.toUpperCase() } });
    expect(found.status).toBe(200);
    expect(found.body.map((u: { id: number }) => u.id)).toEqual([res.body.id]);
  });
});

describe('SQL-looking text: stored verbatim, the schema untouched', () => {
  const strings = [
    "'; DROP TABLE apps; --",
    '1 OR 1=1',
    "Robert'); DROP TABLE users;--",
    '" OR ""="',
    "%' OR '1'='1",
    "admin'--",
    '1; SELECT * FROM api_tokens',
    "'); DELETE FROM channels WHERE ('1'='1",
  ];
  const cases = namedThings.flatMap((thing) => strings.map((text) => ({ name: `${thing.kind}: ${text}`, thing, text })));

  it.each(cases)('$name', async ({ thing, text }) => {
    const schema = tables(t.sql);
    const before = counts(t.sql);
    const { key, res } = await thing.create(text);
    expect(res.body.name).toBe(text);
    expect(await thing.read(key)).toBe(text);
    expect(thing.stored(key)).toBe(text);
    expect(tables(t.sql)).toEqual(schema);
    const expected = { ...before };
    for (const [table, n] of Object.entries(thing.grows)) expected[table] = (expected[table] ?? 0) + n;
    expect(counts(t.sql)).toEqual(expected);
  });

  it('keeps SQL-looking bundle ids, git URLs and device models verbatim', async () => {
    const text = strings[0]!;
    const channel = await accept({ method: 'POST', path: '/api/schemes/{scheme}/channels', json: { name: 'Sql', device_type: 'ios', bundle_id: text, git_url: text } }, 201);
    expect(channel.body.bundle_id).toBe(text);
    expect(channel.body.git_url).toBe(text);
    const udid = newUdid();
    const device = await accept({ method: 'PUT', path: `/api/devices/${udid}`, json: { name: 'Sql', model: text, platform: text } }, 200);
    expect(device.body.model).toBe(text);
    expect(device.body.platform).toBe(text);
    expect(tables(t.sql)).toContain('apps');
  });

  it.each(["' OR 1=1 --", "admin@localhost' OR '1'='1", '%', '%@%', '_dmin@localhost', '*'])(
    'GET /api/users/search?email=%s matches nobody (exact match, no wildcards)',
    async (email) => {
      const res = await accept({ method: 'GET', path: '/api/users/search', query: { email } }, 200);
      expect(res.body).toEqual([]);
    },
  );

  it.each(["admin'--", 'a OR 1=1', 'bob smith', 'x;DROP', 'a/b', 'bob@home', 'emoji😀'])(
    'refuses the username %j as invalid',
    async (username) => {
      await refuse({ method: 'POST', path: '/api/users', json: { ...newUser(), username } }, 422, e('username', 'is invalid'));
    },
  );
});

// ---- pagination --------------------------------------------------------------------------------------

describe('pagination (R8): 422 out of range, 200 at the edges', () => {
  const bad: Array<[param: 'page' | 'per_page', value: string, message: string]> = [
    ['page', '0', 'must be greater than or equal to 1'],
    ['page', '-1', 'must be greater than or equal to 1'],
    ['page', '1.5', 'must be an integer'],
    ['page', 'abc', 'must be an integer'],
    ['page', '', 'must be an integer'],
    ['page', '1e20', 'must be an integer'],
    ['page', '1000001', 'must be less than or equal to 1000000'],
    ['page', '1;DROP TABLE apps', 'must be an integer'],
    ['per_page', '0', 'must be greater than or equal to 1'],
    ['per_page', '-1', 'must be greater than or equal to 1'],
    ['per_page', '101', 'must be less than or equal to 100'],
    ['per_page', '1.5', 'must be an integer'],
    ['per_page', 'abc', 'must be an integer'],
    ['per_page', '', 'must be an integer'],
    ['per_page', '1e20', 'must be an integer'],
    ['per_page', '1 OR 1=1', 'must be an integer'],
  ];
  const lists = ['/api/apps', '/api/devices'];
  const cases = lists.flatMap((path) => bad.map(([param, value, message]) => ({ name: `GET ${path}?${param}=${value}`, path, param, value, message })));

  it.each(cases)('$name', async ({ path, param, value, message }) => {
    await refuse({ method: 'GET', path, query: { [param]: value } }, 422, e(param, message));
  });

  it.each(lists)('GET %s with page given twice', async (path) => {
    await refuse({ method: 'GET', path: `${path}?page=1&page=2` }, 422, e('page', 'must be an integer'));
  });

  it.each(lists)('GET %s accepts per_page=1, per_page=100 and a page past the end', async (path) => {
    const one = await accept({ method: 'GET', path, query: { per_page: 1 } });
    expect(one.body).toHaveLength(1);
    const hundred = await accept({ method: 'GET', path, query: { per_page: 100, page: 1 } });
    expect(hundred.body.length).toBeGreaterThanOrEqual(1);
    expect(hundred.body.length).toBeLessThanOrEqual(100);
    const far = await accept({ method: 'GET', path, query: { page: 1000000, per_page: 100 } });
    expect(far.body).toEqual([]);
  });

  it('GET /api/devices reports the total in X-Total-Count whatever the page', async () => {
    const res = await accept({ method: 'GET', path: '/api/devices', query: { per_page: 1, page: 1000000 } });
    const total = (t.sql.prepare('SELECT count(*) AS n FROM devices').get() as { n: number }).n;
    expect(res.headers.get('x-total-count')).toBe(String(total));
  });
});

describe('GET /api/users/search', () => {
  it('refuses the email given twice', async () => {
    await refuse({ method: 'GET', path: '/api/users/search?email=a@example.test&email=b@example.test' }, 422, e('email', 'must be a string'));
  });

  it('finds a user by email in any letter case (control)', async () => {
    const res = await accept({ method: 'GET', path: '/api/users/search', query: { email: ` ${fx.member.email.toUpperCase()} ` } });
    expect(res.body.map((u: { id: number }) => u.id)).toEqual([fx.member.id]);
  });
});

// ---- path parameters ----------------------------------------------------------------------------------

describe('path ids that are not ids: 422 naming the parameter', () => {
  /** `:x` marks the parameter under attack; the others are valid fixtures. */
  const routes: Array<[method: Method, path: string, param: string, json?: unknown]> = [
    ['GET', '/api/apps/:x', 'id'],
    ['PUT', '/api/apps/:x', 'id', { name: 'Renamed' }],
    ['PATCH', '/api/apps/:x', 'id', { name: 'Renamed' }],
    ['DELETE', '/api/apps/:x', 'id'],
    ['GET', '/api/apps/:x/schemes', 'id'],
    ['POST', '/api/apps/:x/schemes', 'id', { name: 'Scheme' }],
    ['GET', '/api/schemes/:x', 'id'],
    ['PUT', '/api/schemes/:x', 'id', { name: 'Scheme' }],
    ['PATCH', '/api/schemes/:x', 'id', { name: 'Scheme' }],
    ['DELETE', '/api/schemes/:x', 'id'],
    ['GET', '/api/schemes/:x/channels', 'id'],
    ['POST', '/api/schemes/:x/channels', 'id', { name: 'Channel', device_type: 'ios' }],
    ['GET', '/api/channels/:x', 'id'],
    ['PUT', '/api/channels/:x', 'id', { name: 'Channel', device_type: 'ios' }],
    ['PATCH', '/api/channels/:x', 'id', { name: 'Channel' }],
    ['DELETE', '/api/channels/:x', 'id'],
    ['GET', '/api/channels/:x/key', 'id'],
    ['POST', '/api/channels/:x/key', 'id'],
    ['GET', '/api/apps/:x/collaborators', 'app_id'],
    ['POST', '/api/apps/:x/collaborators', 'app_id', () => ({ user_id: fx.outsider.id, role: 'member' })],
    ['GET', '/api/apps/:x/collaborators/{member}', 'app_id'],
    ['GET', '/api/apps/{app}/collaborators/:x', 'user_id'],
    ['POST', '/api/apps/:x/collaborators/{outsider}', 'app_id', { role: 'member' }],
    ['POST', '/api/apps/{app}/collaborators/:x', 'user_id', { role: 'member' }],
    ['PUT', '/api/apps/:x/collaborators/{member}', 'app_id', { role: 'developer' }],
    ['PUT', '/api/apps/{app}/collaborators/:x', 'user_id', { role: 'developer' }],
    ['PATCH', '/api/apps/:x/collaborators/{member}', 'app_id', { role: 'developer' }],
    ['PATCH', '/api/apps/{app}/collaborators/:x', 'user_id', { role: 'developer' }],
    ['DELETE', '/api/apps/:x/collaborators/{member}', 'app_id'],
    ['DELETE', '/api/apps/{app}/collaborators/:x', 'user_id'],
    ['GET', '/api/users/:x', 'id'],
    ['PUT', '/api/users/:x', 'id', { username: 'ghost', email: 'ghost@example.test', password: GOOD_PASSWORD }],
    ['PATCH', '/api/users/:x', 'id', { locale: 'en' }],
    ['DELETE', '/api/users/:x', 'id'],
    ['POST', '/api/users/:x/lock', 'id'],
    ['DELETE', '/api/users/:x/unlock', 'id'],
    ['GET', '/api/users/:x/tokens', 'id'],
    ['POST', '/api/users/:x/tokens', 'id', { name: 'Token' }],
    ['DELETE', '/api/users/:x/tokens/{token}', 'id'],
    ['DELETE', '/api/users/{member}/tokens/:x', 'token_id'],
    ['DELETE', '/api/users/me/tokens/:x', 'token_id'],
  ];
  const badIds: Array<[label: string, raw: string, message: string]> = [
    ['abc', 'abc', 'must be an integer'],
    ['1.5', '1.5', 'must be an integer'],
    ['-1', '-1', 'must be greater than or equal to 1'],
    ['0', '0', 'must be greater than or equal to 1'],
    ['9999999999999999999', '9999999999999999999', 'must be less than or equal to 9007199254740991'],
    ['2^53', '9007199254740992', 'must be less than or equal to 9007199254740991'],
    ['1;DROP', '1;DROP', 'must be an integer'],
    ['1 OR 1=1', '1%20OR%201%3D1', 'must be an integer'],
  ];
  const cases = routes.flatMap(([method, path, param, json]) =>
    badIds.map(([label, raw, message]) => ({ name: `${method} ${path.replace(':x', `:${param}`)} with ${param}=${label}`, req: { method, path: path.replace(':x', raw), json } as Req, param, message })),
  );

  it.each(cases)('$name', async ({ req, param, message }) => {
    await refuse(req, 422, e(param, message));
  });
});

describe('unknown but well-formed ids: 404 "<Thing> not found"', () => {
  const m = MISSING;
  const cases: Array<{ name: string; req: Req; error: string }> = [
    ...(['GET', 'PUT', 'PATCH', 'DELETE'] as const).map((method) => ({ name: `${method} /api/apps/:id`, req: { method, path: `/api/apps/${m}`, json: method === 'PUT' || method === 'PATCH' ? { name: 'x' } : undefined }, error: 'App not found' })),
    { name: 'GET /api/apps/:id/schemes', req: { method: 'GET', path: `/api/apps/${m}/schemes` }, error: 'App not found' },
    { name: 'POST /api/apps/:id/schemes', req: { method: 'POST', path: `/api/apps/${m}/schemes`, json: { name: 'x' } }, error: 'App not found' },
    ...(['GET', 'PUT', 'PATCH', 'DELETE'] as const).map((method) => ({ name: `${method} /api/schemes/:id`, req: { method, path: `/api/schemes/${m}`, json: method === 'PUT' || method === 'PATCH' ? { name: 'x' } : undefined }, error: 'Scheme not found' })),
    { name: 'GET /api/schemes/:id/channels', req: { method: 'GET', path: `/api/schemes/${m}/channels` }, error: 'Scheme not found' },
    { name: 'POST /api/schemes/:id/channels', req: { method: 'POST', path: `/api/schemes/${m}/channels`, json: { name: 'x', device_type: 'ios' } }, error: 'Scheme not found' },
    ...(['GET', 'PUT', 'PATCH', 'DELETE'] as const).map((method) => ({ name: `${method} /api/channels/:id`, req: { method, path: `/api/channels/${m}`, json: method === 'PUT' || method === 'PATCH' ? { name: 'x', device_type: 'ios' } : undefined }, error: 'Channel not found' })),
    { name: 'GET /api/channels/:id/key', req: { method: 'GET', path: `/api/channels/${m}/key` }, error: 'Channel not found' },
    { name: 'POST /api/channels/:id/key', req: { method: 'POST', path: `/api/channels/${m}/key` }, error: 'Channel not found' },
    { name: 'GET /api/apps/:app_id/collaborators', req: { method: 'GET', path: `/api/apps/${m}/collaborators` }, error: 'App not found' },
    { name: 'POST /api/apps/:app_id/collaborators (unknown app)', req: { method: 'POST', path: `/api/apps/${m}/collaborators`, json: () => ({ user_id: fx.outsider.id, role: 'member' }) }, error: 'App not found' },
    { name: 'POST /api/apps/:app_id/collaborators (unknown user)', req: { method: 'POST', path: '/api/apps/{app}/collaborators', json: { user_id: m, role: 'member' } }, error: 'User not found' },
    { name: 'POST /api/apps/:app_id/collaborators/:user_id (unknown user)', req: { method: 'POST', path: `/api/apps/{app}/collaborators/${m}`, json: { role: 'member' } }, error: 'User not found' },
    ...(['GET', 'PUT', 'PATCH', 'DELETE'] as const).map((method) => ({ name: `${method} /api/apps/:app_id/collaborators/:user_id (not a collaborator)`, req: { method, path: `/api/apps/{app}/collaborators/${m}`, json: method === 'PUT' || method === 'PATCH' ? { role: 'developer' } : undefined }, error: 'Collaborator not found' })),
    { name: 'GET collaborator who is a user but no collaborator', req: { method: 'GET', path: '/api/apps/{app}/collaborators/{outsider}' }, error: 'Collaborator not found' },
    ...(['GET', 'PUT', 'PATCH', 'DELETE'] as const).map((method) => ({ name: `${method} /api/users/:id`, req: { method, path: `/api/users/${m}`, json: method === 'PUT' ? { username: 'ghost', email: 'ghost@example.test', password: GOOD_PASSWORD } : method === 'PATCH' ? { locale: 'en' } : undefined }, error: 'User not found' })),
    { name: 'POST /api/users/:id/lock', req: { method: 'POST', path: `/api/users/${m}/lock` }, error: 'User not found' },
    { name: 'DELETE /api/users/:id/unlock', req: { method: 'DELETE', path: `/api/users/${m}/unlock` }, error: 'User not found' },
    { name: 'GET /api/users/:id/tokens', req: { method: 'GET', path: `/api/users/${m}/tokens` }, error: 'User not found' },
    { name: 'POST /api/users/:id/tokens', req: { method: 'POST', path: `/api/users/${m}/tokens`, json: { name: 'x' } }, error: 'User not found' },
    { name: 'DELETE /api/users/:id/tokens/:token_id (unknown user)', req: { method: 'DELETE', path: `/api/users/${m}/tokens/1` }, error: 'User not found' },
    { name: 'DELETE /api/users/:id/tokens/:token_id (unknown token)', req: { method: 'DELETE', path: `/api/users/{member}/tokens/${m}` }, error: 'Token not found' },
    { name: "DELETE /api/users/:id/tokens/:token_id (another user's token)", req: { method: 'DELETE', path: '/api/users/{outsider}/tokens/{token}' }, error: 'Token not found' },
    { name: 'DELETE /api/users/me/tokens/:token_id (unknown token)', req: { method: 'DELETE', path: `/api/users/me/tokens/${m}` }, error: 'Token not found' },
    { name: "DELETE /api/users/me/tokens/:token_id (another user's token)", req: { method: 'DELETE', path: '/api/users/me/tokens/{token}' }, error: 'Token not found' },
    { name: 'DELETE /api/devices/:udid', req: { method: 'DELETE', path: '/api/devices/FFFFFFFF00000000' }, error: 'Device not found' },
  ];

  it.each(cases)('$name', async ({ req, error }) => {
    await refuse(req, 404, error);
  });
});

describe('invalid UDIDs: 422', () => {
  const udids: Array<[label: string, raw: string, message: string]> = [
    ['too short', 'abc', 'is too short (minimum is 8 characters)'],
    ['a dollar sign', 'ABCDEF12$$', 'is invalid'],
    ['spaces', 'ABCD%20EFGH%201234', 'is invalid'],
    ['an underscore', 'ABCDEF_0123456789', 'is invalid'],
    ['a non-ASCII letter', encodeURIComponent('ÄBCDEF0123456789'), 'is invalid'],
    ['SQL', encodeURIComponent("'; DROP TABLE devices;--"), 'is invalid'],
    ['SQL after a valid prefix', '12345678;DROP', 'is invalid'],
    ['an encoded path traversal', '..%2F..%2Fetc%2Fpasswd', 'is invalid'],
    ['only spaces', '%20'.repeat(8), "can't be blank"],
    ['65 characters', 'A'.repeat(65), 'is too long (maximum is 64 characters)'],
  ];
  const cases = udids.flatMap(([label, raw, message]) => [
    { name: `PUT /api/devices/:udid with ${label}`, req: { method: 'PUT', path: `/api/devices/${raw}`, json: { name: 'Phone' } } as Req, message },
    { name: `DELETE /api/devices/:udid with ${label}`, req: { method: 'DELETE', path: `/api/devices/${raw}` } as Req, message },
  ]);

  it.each(cases)('$name', async ({ req, message }) => {
    await refuse(req, 422, e('udid', message));
  });
});

// ---- form bodies ----------------------------------------------------------------------------------------

describe('form-encoded bodies: text values are coerced, JSON values are not', () => {
  it('POST /api/apps/:id/schemes form retained_builds=3 new_build_callout=false: 201 with the typed values', async () => {
    const res = await accept({ method: 'POST', path: '/api/apps/{app}/schemes', form: { name: 'Form scheme', retained_builds: '3', new_build_callout: 'false' } }, 201);
    expect(res.body).toMatchObject({ name: 'Form scheme', retained_builds: 3, new_build_callout: false });
    const row = t.sql.prepare('SELECT retained_builds, new_build_callout FROM schemes WHERE id = ?').get(res.body.id) as Record<string, unknown>;
    expect(row).toEqual({ retained_builds: 3, new_build_callout: 0 });
  });

  it('PATCH /api/schemes/:id form new_build_callout=true retained_builds=0: 200', async () => {
    const res = await accept({ method: 'PATCH', path: '/api/schemes/{scheme}', form: { new_build_callout: 'true', retained_builds: '0' } });
    expect(res.body).toMatchObject({ new_build_callout: true, retained_builds: 0 });
  });

  it('PATCH /api/apps/:id form archived=false: 200', async () => {
    const res = await accept({ method: 'PATCH', path: '/api/apps/{app}', form: { archived: 'false' } });
    expect(res.body.archived).toBe(false);
  });

  it('POST /api/apps/:app_id/collaborators form user_id="<id>": 201, then removed again', async () => {
    const user = await createUser(t, 'member');
    const res = await accept({ method: 'POST', path: '/api/apps/{app}/collaborators', form: { user_id: String(user.id), role: 'member' } }, 201);
    expect(res.body.id).toBe(user.id);
    await accept({ method: 'DELETE', path: `/api/apps/{app}/collaborators/${user.id}` });
  });

  it('PUT /api/devices/:udid form name and model (fastlane device sync): 200', async () => {
    const udid = newUdid();
    const res = await accept({ method: 'PUT', path: `/api/devices/${udid}`, form: { name: 'Form phone', model: 'iPhone15,2' } });
    expect(res.body).toMatchObject({ udid, name: 'Form phone', model: 'iPhone15,2' });
  });

  const refused: Array<{ name: string; req: Req; entry: Entry }> = [
    { name: 'JSON retained_builds "3"', req: { method: 'POST', path: '/api/apps/{app}/schemes', json: { name: 'Json', retained_builds: '3' } }, entry: e('retained_builds', 'must be an integer') },
    { name: 'JSON new_build_callout "false"', req: { method: 'POST', path: '/api/apps/{app}/schemes', json: { name: 'Json', new_build_callout: 'false' } }, entry: e('new_build_callout', 'must be true or false') },
    { name: 'JSON archived "false"', req: { method: 'PATCH', path: '/api/apps/{app}', json: { archived: 'false' } }, entry: e('archived', 'must be true or false') },
    { name: 'JSON user_id as a string', req: { method: 'POST', path: '/api/apps/{app}/collaborators', json: () => ({ user_id: String(fx.outsider.id), role: 'member' }) }, entry: e('user_id', 'must be an integer') },
    { name: 'form retained_builds=abc', req: { method: 'POST', path: '/api/apps/{app}/schemes', form: { name: 'Form', retained_builds: 'abc' } }, entry: e('retained_builds', 'must be an integer') },
    { name: 'form retained_builds empty', req: { method: 'POST', path: '/api/apps/{app}/schemes', form: { name: 'Form', retained_builds: '' } }, entry: e('retained_builds', 'must be an integer') },
    { name: 'form retained_builds=3.5', req: { method: 'POST', path: '/api/apps/{app}/schemes', form: { name: 'Form', retained_builds: '3.5' } }, entry: e('retained_builds', 'must be an integer') },
    { name: 'form retained_builds=-1', req: { method: 'POST', path: '/api/apps/{app}/schemes', form: { name: 'Form', retained_builds: '-1' } }, entry: e('retained_builds', 'must be greater than or equal to 0') },
    { name: 'form new_build_callout=yes', req: { method: 'POST', path: '/api/apps/{app}/schemes', form: { name: 'Form', new_build_callout: 'yes' } }, entry: e('new_build_callout', 'must be true or false') },
    { name: 'form new_build_callout=1', req: { method: 'POST', path: '/api/apps/{app}/schemes', form: { name: 'Form', new_build_callout: '1' } }, entry: e('new_build_callout', 'must be true or false') },
    { name: 'form archived=maybe', req: { method: 'PATCH', path: '/api/apps/{app}', form: { archived: 'maybe' } }, entry: e('archived', 'must be true or false') },
    { name: 'form user_id=abc', req: { method: 'POST', path: '/api/apps/{app}/collaborators', form: { user_id: 'abc', role: 'member' } }, entry: e('user_id', 'must be an integer') },
    { name: 'form name given twice', req: { method: 'POST', path: '/api/apps', raw: { body: 'name=a&name=b', contentType: 'application/x-www-form-urlencoded' } }, entry: e('name', 'must be a string') },
    { name: 'form name empty', req: { method: 'POST', path: '/api/apps', form: { name: '' } }, entry: e('name', "can't be blank") },
    { name: 'form body empty', req: { method: 'POST', path: '/api/apps', raw: { body: '', contentType: 'application/x-www-form-urlencoded' } }, entry: e('name', "can't be blank") },
    { name: 'form device_type=symbian', req: { method: 'POST', path: '/api/schemes/{scheme}/channels', form: { name: 'Form', device_type: 'symbian' } }, entry: e('device_type', 'is not included in the list') },
  ];

  it.each(refused)('refuses $name', async ({ req, entry }) => {
    await refuse(req, 422, entry);
  });
});

// ---- size and content type --------------------------------------------------------------------------------

describe('body size and content type', () => {
  const huge = 'a'.repeat(1024 * 1024 + 1);
  it.each([
    { name: 'POST /api/apps JSON', req: { method: 'POST', path: '/api/apps', json: { name: 'Big', pad: huge } } as Req },
    { name: 'POST /api/apps JSON name', req: { method: 'POST', path: '/api/apps', json: { name: huge } } as Req },
    { name: 'PUT /api/devices/:udid JSON', req: { method: 'PUT', path: '/api/devices/{udid}', json: { name: 'Big', model: huge } } as Req },
    { name: 'POST /api/users/me/tokens JSON', req: { method: 'POST', path: '/api/users/me/tokens', json: { name: huge } } as Req },
    { name: 'POST /api/apps form', req: { method: 'POST', path: '/api/apps', raw: { body: `name=${huge}`, contentType: 'application/x-www-form-urlencoded' } } as Req },
  ])('$name over 1 MiB: 413', async ({ req }) => {
    await refuse({ ...req, unchecked: true }, 413, 'Request body is too large');
  });

  it('accepts a JSON body just under 1 MiB', async () => {
    const pad = 'p'.repeat(1024 * 1024 - 100);
    const res = await accept({ method: 'POST', path: '/api/apps', json: { name: 'Just under the limit', pad } }, 201);
    expect(res.body.name).toBe('Just under the limit');
  });

  const unsupported = 'Unsupported Content-Type: send JSON, a form or multipart';
  it.each([
    { name: 'POST /api/apps text/plain', path: '/api/apps', method: 'POST' as Method, contentType: 'text/plain', body: 'name=x' },
    { name: 'POST /api/apps text/plain holding JSON', path: '/api/apps', method: 'POST' as Method, contentType: 'text/plain; charset=utf-8', body: '{"name":"x"}' },
    { name: 'PUT /api/devices/:udid text/plain', path: '/api/devices/{udid}', method: 'PUT' as Method, contentType: 'text/plain', body: '{"name":"x"}' },
    { name: 'POST /api/users/me/tokens text/plain', path: '/api/users/me/tokens', method: 'POST' as Method, contentType: 'text/plain', body: 'x' },
    { name: 'POST /api/apps application/xml', path: '/api/apps', method: 'POST' as Method, contentType: 'application/xml', body: '<app><name>x</name></app>' },
    { name: 'POST /api/apps application/octet-stream', path: '/api/apps', method: 'POST' as Method, contentType: 'application/octet-stream', body: '{"name":"x"}' },
    { name: 'PATCH /api/apps/:id text/html', path: '/api/apps/{app}', method: 'PATCH' as Method, contentType: 'text/html', body: '<b>x</b>' },
  ])('$name: 415', async ({ path, method, contentType, body }) => {
    await refuse({ method, path, raw: { body, contentType }, unchecked: true }, 415, unsupported);
  });

  it('the OpenAPI document lists 400, 413 and 415 for every operation that reads a body', async () => {
    const spec = (await t.anon.get('/api/openapi.json', { unchecked: true })).body as { paths: Record<string, Record<string, { responses?: Record<string, unknown> }>> };
    const missing: string[] = [];
    for (const [path, ops] of Object.entries(spec.paths)) {
      if (!path.startsWith('/api/') || path.startsWith('/api/docs')) continue;
      for (const [method, op] of Object.entries(ops)) {
        if (!['post', 'put', 'patch'].includes(method)) continue;
        for (const status of ['400', '413', '415']) if (!op.responses?.[status]) missing.push(`${method.toUpperCase()} ${path} ${status}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

describe('refusals by the router: still R3', () => {
  it.each([
    { name: 'an over-long app id', path: `/api/apps/${'1'.repeat(300)}`, method: 'GET' as Method, status: 414 },
    { name: 'an over-long UDID', path: `/api/devices/${'A'.repeat(300)}`, method: 'PUT' as Method, status: 414 },
    { name: 'a broken percent-encoding in an id', path: '/api/apps/%E0%A4%A', method: 'GET' as Method, status: 400 },
    { name: 'a broken percent-encoding in a UDID', path: '/api/devices/%E0%A4%AZZZZZZZZ', method: 'DELETE' as Method, status: 400 },
  ])('$name: $status with a JSON error body', async ({ path, method, status }) => {
    const res = await refuse({ method, path, unchecked: true, ...(method === 'PUT' && { json: { name: 'x' } }) }, status);
    expect(Object.keys(res.body)).toEqual(['error']);
  });
});

// ---- uniqueness and format rules -----------------------------------------------------------------------

describe('users: uniqueness, email format, password length', () => {
  it.each([
    { name: 'the same username', username: (u: TestUser) => u.username, email: () => `${unique('dup')}@example.test`, entry: e('username', 'has already been taken') },
    { name: 'the username in upper case', username: (u: TestUser) => u.username.toUpperCase(), email: () => `${unique('dup')}@example.test`, entry: e('username', 'has already been taken') },
    { name: 'the username in mixed case', username: (u: TestUser) => u.username.replace(/^./, (c) => c.toUpperCase()), email: () => `${unique('dup')}@example.test`, entry: e('username', 'has already been taken') },
    { name: 'the same email', username: () => unique('dup'), email: (u: TestUser) => u.email, entry: e('email', 'has already been taken') },
    { name: 'the email in upper case', username: () => unique('dup'), email: (u: TestUser) => u.email.toUpperCase(), entry: e('email', 'has already been taken') },
    { name: 'both in another case', username: (u: TestUser) => u.username.toUpperCase(), email: (u: TestUser) => u.email.toUpperCase(), entry: { username: ['has already been taken'], email: ['has already been taken'] } },
  ])('POST /api/users with $name: 422', async ({ username, email, entry }) => {
    await refuse({ method: 'POST', path: '/api/users', json: () => ({ username: username(fx.member), email: email(fx.member), password: GOOD_PASSWORD }) }, 422, entry);
  });

  it.each([
    { name: "another user's username in upper case", json: () => ({ username: fx.member.username.toUpperCase() }), entry: e('username', 'has already been taken') },
    { name: "another user's email in upper case", json: () => ({ email: fx.member.email.toUpperCase() }), entry: e('email', 'has already been taken') },
  ])('PATCH /api/users/:id to $name: 422', async ({ json, entry }) => {
    await refuse({ method: 'PATCH', path: '/api/users/{outsider}', json }, 422, entry);
  });

  it.each([
    ['Zoë', 'ZOË'],
    ['Ärger', 'äRGER'],
    ['Ωmega', 'ωMEGA'],
    ['łukasz', 'ŁUKASZ'],
  ])('refuses a username that differs from an existing one only in the case of non-ASCII letters (%s / %s)', async (first, second) => {
    const suffix = unique('');
    await accept({ method: 'POST', path: '/api/users', json: { username: `${first}${suffix}`, email: `${unique('a')}@example.test`, password: GOOD_PASSWORD } }, 201);
    await refuse({ method: 'POST', path: '/api/users', json: { username: `${second}${suffix}`, email: `${unique('b')}@example.test`, password: GOOD_PASSWORD } }, 422, e('username', 'has already been taken'));
  });

  it.each([
    'not-an-email', 'a@', '@example.test', 'a b@example.test', 'a@b@example.test', 'a@example..test', 'a@example', '<script>@example.test', ' padded@example.test ', 'a@exa mple.test',
  ])('refuses the email %j as invalid', async (email) => {
    await refuse({ method: 'POST', path: '/api/users', json: { ...newUser(), email } }, 422, e('email', 'is invalid'));
    await refuse({ method: 'PATCH', path: '/api/users/{member}', json: { email } }, 422, e('email', 'is invalid'));
  });

  it.each(['short', '1234567', 'ab'])('refuses the password %j as too short', async (password) => {
    await refuse({ method: 'POST', path: '/api/users', json: { ...newUser(), password } }, 422, e('password', 'is too short (minimum is 8 characters)'));
    await refuse({ method: 'PATCH', path: '/api/users/{member}', json: { password } }, 422, e('password', 'is too short (minimum is 8 characters)'));
    await refuse({ method: 'PUT', path: '/api/users/{member}', json: () => ({ username: fx.member.username, email: fx.member.email, password }) }, 422, e('password', 'is too short (minimum is 8 characters)'));
  });

  it('refuses a username of 65 characters', async () => {
    await refuse({ method: 'POST', path: '/api/users', json: { ...newUser(), username: 'u'.repeat(65) } }, 422, e('username', 'is too long (maximum is 64 characters)'));
  });
});

describe('channels: duplicate and reserved slugs', () => {
  const create = (slug: string): Req => ({ method: 'POST', path: '/api/schemes/{scheme}/channels', json: { name: 'Slugged', device_type: 'ios', slug } });

  it('POST with a slug already taken: 422', async () => {
    await refuse({ method: 'POST', path: '/api/schemes/{scheme}/channels', json: () => ({ name: 'Dup', device_type: 'ios', slug: fx.other.slug }) }, 422, e('slug', 'has already been taken'));
  });

  it.each(['PUT', 'PATCH'] as const)('%s a channel to a slug already taken: 422', async (method) => {
    await refuse({ method, path: '/api/channels/{channel}', json: () => ({ name: 'Dup', device_type: 'ios', slug: fx.other.slug }) }, 422, e('slug', 'has already been taken'));
  });

  it.each(['api', 'download', 'API', 'Download', 'well-known', 'console', 'udid'])('POST with the reserved slug %j: 422', async (slug) => {
    await refuse(create(slug), 422, e('slug', 'is reserved'));
  });

  it.each(['api', 'Download'])('PATCH to the reserved slug %j: 422', async (slug) => {
    await refuse({ method: 'PATCH', path: '/api/channels/{channel}', json: { slug } }, 422, e('slug', 'is reserved'));
  });

  it.each(['a/b', '-leading-dash', '_leading', 'with space', 'dot.ted', 'ünï', "x';--", '%2e%2e'])('POST with the malformed slug %j: 422', async (slug) => {
    await refuse(create(slug), 422, e('slug', 'is invalid'));
  });
});

describe('tokens: expires_at', () => {
  const paths = ['/api/users/me/tokens', '/api/users/{member}/tokens'];
  const past = ['2000-01-01T00:00:00Z', '1970-01-01T00:00:00.000Z', '2020-02-29T12:00:00+08:00'];
  const invalid = ['tomorrow', '', '2999-13-45T00:00:00Z', '2999-01-01', '2030-01-01T00:00:00', '01/01/2030', '2030-01-01T25:00:00Z', '+275760-09-13T00:00:00Z', "2030-01-01T00:00:00Z'; DROP TABLE api_tokens; --"];
  const cases = paths.flatMap((path) => [
    ...past.map((v) => ({ name: `POST ${path} expires_at=${v} (past)`, path, value: v, message: 'must be in the future' })),
    ...invalid.map((v) => ({ name: `POST ${path} expires_at=${JSON.stringify(v)} (not a date-time)`, path, value: v, message: 'is invalid' })),
  ]);

  it.each(cases)('$name', async ({ path, value, message }) => {
    await refuse({ method: 'POST', path, json: { name: 'Expiring', expires_at: value } }, 422, e('expires_at', message));
  });

  it('refuses an expiry one second ago', async () => {
    const value = new Date(Date.now() - 1000).toISOString();
    await refuse({ method: 'POST', path: '/api/users/me/tokens', json: { name: 'Expiring', expires_at: value } }, 422, e('expires_at', 'must be in the future'));
  });

  it('accepts null and a future date-time (control)', async () => {
    await accept({ method: 'POST', path: '/api/users/me/tokens', json: { name: 'Never', expires_at: null } }, 201);
    const res = await accept({ method: 'POST', path: '/api/users/me/tokens', json: { name: 'Later', expires_at: '2999-01-01T00:00:00Z' } }, 201);
    expect(res.body.expires_at).not.toBeNull();
  });
});

// ---- ids written differently must not skip the access check ------------------------------------------------

describe('ids written non-canonically ("01", "1.0", "0x1", " 1") never reach what the caller may not see', () => {
  const forms: Array<[label: string, write: (id: number) => string]> = [
    ['leading zero', (id) => `0${id}`],
    ['decimal point', (id) => `${id}.0`],
    ['hexadecimal', (id) => `0x${id.toString(16)}`],
    ['leading space', (id) => `%20${id}`],
  ];
  const routes: Array<[method: Method, path: string, of: 'app' | 'scheme' | 'channel', json?: () => unknown]> = [
    ['GET', '/api/apps/:x', 'app'],
    ['GET', '/api/apps/:x/schemes', 'app'],
    ['GET', '/api/apps/:x/collaborators', 'app'],
    ['GET', '/api/schemes/:x', 'scheme'],
    ['GET', '/api/schemes/:x/channels', 'scheme'],
    ['GET', '/api/channels/:x', 'channel'],
    ['GET', '/api/channels/:x/key', 'channel'],
    ['PATCH', '/api/apps/:x', 'app', () => ({ name: 'pwned' })],
    ['POST', '/api/apps/:x/schemes', 'app', () => ({ name: 'pwned' })],
    ['POST', '/api/apps/:x/collaborators', 'app', () => ({ user_id: fx.outsider.id, role: 'member' })],
    ['PATCH', '/api/schemes/:x', 'scheme', () => ({ name: 'pwned' })],
    ['POST', '/api/schemes/:x/channels', 'scheme', () => ({ name: 'pwned', device_type: 'ios' })],
    ['PATCH', '/api/channels/:x', 'channel', () => ({ name: 'pwned' })],
    ['POST', '/api/channels/:x/key', 'channel'],
    ['DELETE', '/api/channels/:x', 'channel'],
    ['DELETE', '/api/schemes/:x', 'scheme'],
    ['DELETE', '/api/apps/:x', 'app'],
  ];
  const idOf = (of: 'app' | 'scheme' | 'channel') => fx.victim[of].id;

  it('the outsider is refused with the canonical id (control)', async () => {
    await refuse({ method: 'GET', path: `/api/apps/${fx.victim.app.id}`, as: () => fx.outsider.client }, 403, 'You are not allowed to perform this action');
    await refuse({ method: 'GET', path: `/api/channels/${fx.victim.channel.id}/key`, as: () => fx.outsider.client }, 403, 'You are not allowed to perform this action');
    await refuse({ method: 'GET', path: '/api/users/{member}/tokens', as: () => fx.outsider.client }, 403, 'You are not allowed to perform this action');
    await refuse({ method: 'POST', path: '/api/users/1/tokens', json: { name: 'takeover' }, as: () => fx.outsider.client }, 403, 'You are not allowed to perform this action');
  });

  /** The outsider sends `req`: refused (403, or 422 for an id that is not canonical), nothing leaked or changed. */
  async function expectNoReach(req: Req): Promise<void> {
    const rowsBefore = fingerprint(t.sql);
    const res = await call({ ...req, as: () => fx.outsider.client, unchecked: true });
    expect([403, 422], `${req.method} ${fill(req.path)} answered ${res.status}: ${res.text.slice(0, 200)}`).toContain(res.status);
    expectErrorBody(res);
    expect(res.text).not.toContain(fx.victim.channel.key);
    expect(res.text).not.toMatch(/"token":"hgr_/);
    expect(fingerprint(t.sql), 'an outsider changed the database').toBe(rowsBefore);
  }

  it.each(forms.map(([label, write]) => ({ name: label, write })))('GET /api/apps/:id with a $name: 403 or 422, nothing read', async ({ write }) => {
    await expectNoReach({ method: 'GET', path: `/api/apps/${write(fx.victim.app.id)}` });
  });

  // Routes open to "the user themselves, or an admin": another user's tokens must stay out of reach.
  it.each([
    { name: "GET /api/users/:id/tokens (another user's)", req: (): Req => ({ method: 'GET', path: `/api/users/0${fx.member.id}/tokens` }) },
    { name: 'POST /api/users/:id/tokens (minting a token for the initial admin)', req: (): Req => ({ method: 'POST', path: '/api/users/01/tokens', json: { name: 'takeover' } }) },
    { name: "DELETE /api/users/:id/tokens/:token_id (another user's)", req: (): Req => ({ method: 'DELETE', path: `/api/users/0${fx.member.id}/tokens/{token}` }) },
  ])('$name with a leading zero: 403 or 422, nothing read or changed', async ({ req }) => {
    await expectNoReach(req());
  });

  it.each(routes.map(([method, path, of, json]) => ({ name: `${method} ${path.replace(':x', ':id')}`, method, path, of, json })))(
    '$name with a leading zero: 403 or 422, nothing read or changed',
    async ({ method, path, of, json }) => {
      await expectNoReach({ method, path: path.replace(':x', `0${idOf(of)}`), ...(json && { json }) });
    },
  );
});
