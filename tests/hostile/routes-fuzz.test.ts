/**
 * A property-based fuzz of every route (issue 7, hostile input): for each operation of the served
 * OpenAPI document, and for the device-facing routes it leaves out, requests are generated from what
 * the operation declares — path parameters, query strings, JSON and form bodies — valid-shaped,
 * wrong-typed, huge, unicode, deeply nested, malformed, with the admin's token or none or a wrong
 * one, and sent to a real server. None may answer 5xx or take longer than REQUEST_MS, the server must
 * still answer /api/health, and its log must hold no error.
 *
 * CI runs a few cases per route (the file takes well under a minute); `HANGAR_FUZZ_RUNS=500` is a
 * long run, `HANGAR_FUZZ_SEED` replays one.
 */
import fc from 'fast-check';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logFilePath } from '../../src-server/http/logging.ts';
import { multipartBody, syntheticIpa } from '../helpers/builds.ts';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.ts';
import { createAppTree, createUser } from '../helpers/world.ts';
import { asText, deepJsonText, encodeAny, fuzzRuns, fuzzSeed, hostile, nastyString, oddString, type JsonSchema } from './hostile-values.ts';

const RUNS = fuzzRuns(25);
const SEED = fuzzSeed();
/** the longest any answer may take */
const REQUEST_MS = 10_000;

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  schema: JsonSchema;
}

interface Operation {
  method: string;
  /** an OpenAPI path template, e.g. /api/apps/{id} */
  template: string;
  parameters: Parameter[];
  body: JsonSchema | null;
}

/** Device-facing routes, hidden from the OpenAPI document: their parameters are plain strings. */
const HIDDEN: Operation[] = [
  ['GET', '/{slug}'],
  ['GET', '/{slug}/{id}'],
  ['GET', '/udid/device/{token}'],
  ['GET', '/download/releases/{id}'],
  ['GET', '/download/releases/{id}/{filename}'],
  ['GET', '/download/debug_files/{id}'],
  ['GET', '/icons/releases/{file}'],
  ['GET', '/channels/{slug}/releases/{id}/install'],
  ['GET', '/channels/{slug}/releases/{id}/qrcode'],
  ['GET', '/channels/{slug}/releases/{id}/qrcode.svg'],
  ['POST', '/channels/{slug}/password'],
  ['GET', '/assets/fontawesome/webfonts/{file}'],
  ['GET', '/console/{file}'],
].map(([method, template]) => ({
  method: method!,
  template: template!,
  parameters: [...template!.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1]!, in: 'path' as const, schema: { type: 'string' } })),
  body: method === 'POST' ? { type: 'object', properties: { password: { type: 'string' } } } : null,
}));

type Generated = { path: string; query: string; body: Body | null; credential: 'header' | 'query' | 'none' | 'wrong' };

interface KnownBug {
  what: string;
  matches(op: Operation, request: Generated): boolean;
  /** a request that shows it: [method, path (with {channel} and {webhook} for real ids), JSON body] */
  example: [string, string, string];
  /** what the stack of its logged error contains */
  inStack: string;
}

/**
 * Server bugs this fuzz found that are not fixed yet (they are in files outside this work): such
 * requests are left out of the fuzz, and a test below fails as soon as one is fixed, so that its
 * entry is removed here and the fuzz covers it again.
 */
/** Bugs this fuzz found and that are not fixed yet: the fuzz skips them (give each a test of its own). None now. */
const KNOWN_BUGS: KnownBug[] = [];

let t: TestServer;
let spec: { paths: Record<string, Record<string, any>> };
/** ids and names that exist, so that generated requests also reach handlers past the 404s */
let known: { ids: number[]; slugs: string[]; keys: string[]; udids: string[]; channel: number; webhook: number };
/** answers by status, over the whole run */
const statuses = new Map<number, number>();

beforeAll(async () => {
  t = await startTestServer();
  spec = await (await fetch(`${t.url}/api/openapi.json`)).json();
  const tree = await createAppTree(t);
  const member = await createUser(t, 'member');
  const { body, contentType } = multipartBody({ channel_key: tree.channel.key }, { name: 'App.ipa', data: syntheticIpa() });
  const release = await t.admin.request('POST', '/api/apps/upload', { raw: { body, contentType } });
  expect(release.status, release.text).toBe(201);
  const hook = await t.admin.post(`/api/channels/${tree.channel.id}/webhooks`, { url: 'http://127.0.0.1:9/hook', events: ['upload'] });
  expect(hook.status, hook.text).toBe(201);
  known = {
    ids: [tree.app.id, tree.scheme.id, tree.channel.id, member.id, release.body.id, hook.body.id],
    slugs: [tree.channel.slug],
    keys: [tree.channel.key],
    udids: ['00008030-001A35E11E88802E'],
    channel: tree.channel.id,
    webhook: hook.body.id,
  };
  console.log(`route fuzz: ${RUNS} runs per route, seed ${SEED} (HANGAR_FUZZ_SEED=${SEED} replays it)`);
});

afterAll(async () => {
  await t?.close();
});

function operations(): Operation[] {
  const documented = Object.entries(spec.paths).flatMap(([template, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method.toUpperCase(),
      template,
      parameters: (op.parameters ?? []) as Parameter[],
      body: (op.requestBody?.content?.['application/json']?.schema ?? null) as JsonSchema | null,
    })),
  );
  return [...documented, ...HIDDEN];
}

/**
 * Requests that remove or lock things get only ids that do not exist: the world the other requests
 * reach into must stay, and the admin must keep their token.
 */
const destructive = (op: Operation) => op.method === 'DELETE' || op.template.endsWith('/lock');

function pathValue(op: Operation, param: Parameter): fc.Arbitrary<string> {
  const encoded = fc.oneof(
    { weight: 3, arbitrary: hostile(param.schema, spec).map((v) => encodeAny(asText(v))) },
    // escapes as they come: invalid ones, encoded slashes and dots, NUL
    { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%E0%A4%A', '%2e%2e%2f%2e%2e%2fetc%2fpasswd', '..%5c..%5cwin.ini', '%00', '%C0%AE%C0%AE', '%ED%A0%80') },
  );
  const real =
    param.name === 'slug' ? known.slugs
    : param.name === 'udid' ? known.udids
    : param.name.endsWith('id') ? known.ids.map(String)
    : [];
  if (destructive(op) || real.length === 0) return encoded;
  return fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...real) }, { weight: 3, arbitrary: encoded });
}

/** A query string: the declared parameters (often hostile, sometimes repeated), extra ones, a real channel key. */
function queryOf(op: Operation): fc.Arbitrary<string> {
  const declared = op.parameters.filter((p) => p.in === 'query');
  const value = (p: Parameter) => (p.name === 'channel_key' ? fc.oneof(fc.constantFrom(...known.keys), hostile(p.schema, spec)) : hostile(p.schema, spec));
  const entries = fc.tuple(
    ...declared.map((p) => fc.option(fc.array(value(p).map(asText), { minLength: 1, maxLength: 3 }).map((values) => values.map((v) => [p.name, v] as const)))),
    fc.array(fc.tuple(oddString, oddString), { maxLength: 3 }),
  );
  return entries.map((lists) => {
    const query = new URLSearchParams();
    for (const list of lists) for (const [name, v] of list ?? []) query.append(name, v);
    const text = query.toString();
    return text === '' ? '' : `?${text}`;
  });
}

interface Body {
  payload: string;
  contentType: string | null;
}

function bodyOf(op: Operation): fc.Arbitrary<Body | null> {
  if (op.method === 'GET' || op.method === 'DELETE') return fc.constant(null);
  const shapedBody = op.body ? hostile(op.body, spec) : fc.jsonValue({ maxDepth: 3 });
  return fc.oneof(
    { weight: 4, arbitrary: shapedBody.map((value) => ({ payload: JSON.stringify(value) ?? 'null', contentType: 'application/json' })) },
    {
      weight: 2,
      arbitrary: shapedBody.map((value) => {
        const entries = value !== null && typeof value === 'object' ? Object.entries(value) : [['value', value]];
        return { payload: new URLSearchParams(entries.map(([k, v]) => [String(k), asText(v)])).toString(), contentType: 'application/x-www-form-urlencoded' };
      }),
    },
    { weight: 1, arbitrary: deepJsonText.map((payload) => ({ payload, contentType: 'application/json' })) },
    { weight: 1, arbitrary: fc.integer({ min: 1_000_000, max: 1_100_000 }).map((n) => ({ payload: `{"name":"${'x'.repeat(n)}"}`, contentType: 'application/json' })) },
    { weight: 1, arbitrary: fc.tuple(nastyString, fc.constantFrom('application/json', 'text/plain', 'application/xml', 'multipart/form-data', null)).map(([payload, contentType]) => ({ payload, contentType })) },
  );
}

const credentials = fc.constantFrom<'header' | 'query' | 'none' | 'wrong'>('header', 'header', 'header', 'query', 'none', 'wrong');

function requestOf(op: Operation) {
  const params = op.parameters.filter((p) => p.in === 'path');
  return fc.record({
    path: fc.tuple(...params.map((p) => pathValue(op, p))).map((values) => params.reduce((path, p, i) => path.replace(`{${p.name}}`, values[i]!), op.template)),
    query: queryOf(op),
    body: bodyOf(op),
    credential: credentials,
  });
}

async function send(op: Operation, request: Generated): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = {};
  let query = request.query;
  if (request.credential === 'header') headers.authorization = `Bearer ${ADMIN_TOKEN}`;
  if (request.credential === 'wrong') headers.authorization = 'Bearer hgr_wrong';
  if (request.credential === 'query') query += `${query === '' ? '?' : '&'}token=${encodeURIComponent(ADMIN_TOKEN)}`;
  if (request.body?.contentType) headers['content-type'] = request.body.contentType;
  const response = await fetch(`${t.url}${request.path}${query}`, {
    method: op.method,
    headers,
    body: request.body?.payload,
    redirect: 'manual',
    signal: AbortSignal.timeout(REQUEST_MS),
  });
  // the event stream never ends: its head is the answer
  if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    await response.body?.cancel();
    return { status: response.status, text: '' };
  }
  return { status: response.status, text: (await response.text()).slice(0, 300) };
}

describe('every route, fuzzed', () => {
  it('has the routes of the OpenAPI document and the device-facing ones to fuzz', () => {
    expect(operations().length).toBeGreaterThan(80);
  });

  it.each([0, 1, 2, 3])('answers no 5xx, each within the time limit (share %i of the routes)', async (share) => {
    const mine = operations().filter((_op, i) => i % 4 === share);
    for (const op of mine) {
      await fc.assert(
        fc.asyncProperty(requestOf(op), async (request) => {
          fc.pre(!KNOWN_BUGS.some((bug) => bug.matches(op, request)));
          const { status, text } = await send(op, request);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          expect(status, `${op.method} ${request.path}${request.query.slice(0, 200)} → ${status} ${text}`).toBeLessThan(500);
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    }
    expect((await t.anon.get('/api/health')).status).toBe(200);
  }, 600_000);

  it('a JSON body that is not an object (a number, a string) to the webhook routes is refused, not a 500 (found by this fuzz)', async () => {
    for (const [method, template] of [['POST', `/api/channels/${known.channel}/webhooks`], ['PUT', `/api/webhooks/${known.webhook}`], ['PATCH', `/api/webhooks/${known.webhook}`]] as const) {
      for (const payload of ['9007199254740992', '"events"', 'null']) {
        const res = await fetch(`${t.url}${template}`, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: payload });
        expect(res.status, `${method} ${template} ${payload}`).toBeGreaterThanOrEqual(400);
        expect(res.status, `${method} ${template} ${payload}`).toBeLessThan(500);
      }
    }
  });

  it('reached past validation into the handlers, not only refusals', () => {
    console.log(`route fuzz answers by status: ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}`);
    for (const status of [200, 201, 400, 401, 404, 413, 422]) expect(statuses.get(status) ?? 0, `answers with ${status}`).toBeGreaterThan(0);
  });

  it('left no error in the log, and the server still answers', async () => {
    expect((await t.anon.get('/api/health')).status).toBe(200);
    const errors = (await readFile(logFilePath(t.dataDir), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .filter((line) => line.level >= 50 && !KNOWN_BUGS.some((bug) => line.err?.stack?.includes(bug.inStack)));
    expect(errors).toEqual([]);
  });
});
