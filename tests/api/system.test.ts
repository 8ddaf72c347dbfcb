import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBuildInfo } from '../../src-server/config/build-info.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

describe('GET /api/version', () => {
  it('reports the package version, VCS revision and build date, without a token', async () => {
    const res = await t.anon.get('/api/version');
    expect(res.status).toBe(200);
    const info = readBuildInfo();
    expect(res.body).toEqual({ version: info.version, vcs_ref: info.vcsRef, build_date: info.buildDate });
    expect(res.body.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(res.body.build_date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('answers JSON with no-store caching', async () => {
    const res = await t.anon.get('/api/version');
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
  });
});

describe('GET /api/health', () => {
  it('is healthy while the database answers', async () => {
    const res = await t.anon.get('/api/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ healthy: true });
  });
});

describe('unknown paths', () => {
  it('answers 404 "API not found" under /api', async () => {
    for (const path of ['/api/nope', '/api/apps/1/nope', '/api']) {
      const res = await t.admin.get(path);
      expect(res.status, path).toBe(404);
      expect(res.body).toEqual({ error: 'API not found' });
    }
  });

  it('answers 404 for an unknown method on a known path', async () => {
    const res = await t.admin.request('PATCH', '/api/version');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'API not found' });
  });
});

describe('X-Api-Shape', () => {
  it('refuses an unknown shape with 422', async () => {
    const res = await t.admin.get('/api/users/me', { headers: { 'x-api-shape': 'fancy' }, unchecked: true });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: 'Unprocessable entity', entry: { 'X-Api-Shape': ['is not included in the list'] } });
  });

  it('accepts any letter case', async () => {
    const res = await t.admin.get('/api/users/me', { headers: { 'x-api-shape': 'BASE' } });
    expect(res.status).toBe(200);
    expect(res.body.role).toBe('admin');
  });
});

describe('OpenAPI', () => {
  it('serves a document generated from the route schemas, covering every /api route', async () => {
    const res = await t.anon.get('/api/openapi.json', { unchecked: true });
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    const documented = new Set<string>();
    for (const [path, ops] of Object.entries<Record<string, unknown>>(res.body.paths)) {
      for (const method of Object.keys(ops)) documented.add(`${method.toUpperCase()} ${path}`);
    }
    const routes = [...t.server.app.accessRules.keys()]
      .filter((r) => !r.includes('/api/docs') && r !== 'GET /api/openapi.json')
      .map((r) => r.replace(/:(\w+)/g, '{$1}'));
    expect(routes.length).toBeGreaterThan(40);
    for (const route of routes) expect(documented, route).toContain(route);
  });

  it('documents the schema constraints that validation enforces', async () => {
    const res = await t.anon.get('/api/openapi.json', { unchecked: true });
    const create = res.body.paths['/api/apps'].post;
    const schema = create.requestBody.content['application/json'].schema;
    expect(schema.required).toContain('name');
    expect(schema.properties.name).toMatchObject({ minLength: 1, maxLength: 255 });
    expect(create.security).toEqual([{ bearer: [] }, { token: [] }]);
    expect(res.body.paths['/api/version'].get.security).toBeUndefined();
  });
});

