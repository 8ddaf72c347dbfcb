/**
 * `hangar serve` as a real process: the listening line, flags and their environment variables,
 * a clean stop on SIGTERM/SIGINT (requests in flight finish, new ones are turned away).
 */
import http from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { secureFetch } from '../helpers/https.ts';
import { api, DATABASE_FILE, freePort, LISTENING, runCli, startServe, tempDir, useCliCleanup, withDatabase } from './spawn.ts';

useCliCleanup();

const ADMIN = 'hgr_cli-serve-admin-token-0123456789';

describe('hangar serve: listening line and defaults', () => {
  it('prints exactly one "Hangar listening on" line with the real port, and serves /api/health there', async () => {
    const data = await tempDir();
    const server = await startServe(['--host', '127.0.0.1', '--port', '0', '--data', data]);
    expect(server.listening).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.port).toBeGreaterThan(0);

    const health = await api(server.url, 'GET', '/api/health');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ healthy: true });

    const exit = await server.proc.stop('SIGTERM');
    expect(exit.code).toBe(0);
    const lines = server.proc.stdoutLines().filter((line) => /Hangar listening on/.test(line));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Hangar listening on http:\/\/127\.0\.0\.1:\d+$/);
    expect(lines[0]).toBe(`Hangar listening on http://127.0.0.1:${server.port}`);
  });

  it('listens on 0.0.0.0 when no host is given', async () => {
    const data = await tempDir();
    const server = await startServe(['--port', '0', '--data', data]);
    expect(server.listening).toMatch(/^http:\/\/0\.0\.0\.0:\d+$/);
    const health = await api(server.url, 'GET', '/api/health');
    expect(health.status).toBe(200);
    expect((await server.proc.stop()).code).toBe(0);
  });

  it('answers POST /api/apps with an object in the default (extended) shape', async () => {
    const data = await tempDir();
    const server = await startServe(['--host', '127.0.0.1', '--port', '0', '--data', data], { env: { HANGAR_ADMIN_TOKEN: ADMIN } });
    const created = await api(server.url, 'POST', '/api/apps', { token: ADMIN, json: { name: 'Default shape' } });
    expect(created.status, created.text).toBe(201);
    expect(Array.isArray(created.body)).toBe(false);
    expect(created.body.name).toBe('Default shape');
    expect((await server.proc.stop()).code).toBe(0);
  });
});

describe('hangar serve: environment variables', () => {
  it('takes host, port, data directory and API shape from HANGAR_HOST, HANGAR_PORT, HANGAR_DATA_DIR, HANGAR_API_SHAPE', async () => {
    const data = await tempDir();
    const cwd = await tempDir();
    const port = await freePort();
    const server = await startServe([], {
      cwd,
      env: { HANGAR_HOST: '127.0.0.1', HANGAR_PORT: String(port), HANGAR_HTTPS_PORT: '0', HANGAR_DATA_DIR: data, HANGAR_API_SHAPE: 'base', HANGAR_ADMIN_TOKEN: ADMIN },
    });
    expect(server.listening).toBe(`http://127.0.0.1:${port}`);

    // base shape: POST /api/apps answers an array holding the app
    const created = await api(server.url, 'POST', '/api/apps', { token: ADMIN, json: { name: 'Base shape' } });
    expect(created.status, created.text).toBe(201);
    expect(Array.isArray(created.body)).toBe(true);
    expect(created.body[0].name).toBe('Base shape');

    expect((await server.proc.stop()).code).toBe(0);
    expect(existsSync(join(data, DATABASE_FILE))).toBe(true);
    expect(existsSync(join(cwd, 'data'))).toBe(false);
    const names = withDatabase(data, (sql) => sql.prepare('SELECT name FROM apps').all() as { name: string }[]);
    expect(names.map((r) => r.name)).toEqual(['Base shape']);
  });

  it('accepts a valid HANGAR_BASE_URL', async () => {
    const data = await tempDir();
    const server = await startServe(['--host', '127.0.0.1', '--port', '0', '--data', data], { env: { HANGAR_BASE_URL: 'https://hangar.lab.test/' } });
    expect((await api(server.url, 'GET', '/api/health')).status).toBe(200);
    expect((await server.proc.stop()).code).toBe(0);
  });

  it('exits with code 2 and a clear message for an invalid HANGAR_BASE_URL, without serving', async () => {
    const data = await tempDir();
    const run = await runCli(['serve', '--host', '127.0.0.1', '--port', '0', '--data', data], { env: { HANGAR_BASE_URL: 'ftp://x' } });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/base URL/i);
    expect(run.stderr).toContain('ftp://x');
    expect(run.stdout).not.toMatch(LISTENING);
  });

  it('serves HTTPS on --https-port (or HANGAR_HTTPS_PORT), says where devices go, and can turn HTTPS off', async () => {
    const data = await tempDir();
    const httpsPort = await freePort();
    const server = await startServe(['--host', '127.0.0.1', '--port', '0', '--https-port', String(httpsPort), '--data', data, '--base-url', 'http://hangar.lab.test:7700']);
    const ca = await readFile(join(data, 'tls', 'ca.pem'), 'utf8');
    const res = await secureFetch(`https://127.0.0.1:${httpsPort}/api/health`, ca);
    expect(res.status).toBe(200);
    await server.proc.waitForLine(/^Devices open/);
    expect(server.proc.stdoutLines()).toContain(`Devices open http://hangar.lab.test:7700 (HTTPS for iOS installs on port ${httpsPort}; trust it once at http://hangar.lab.test:7700/ca)`);
    expect((await server.proc.stop()).code).toBe(0);

    const off = await startServe(['--host', '127.0.0.1', '--port', '0', '--data', data, '--base-url', 'http://hangar.lab.test:7700'], { env: { HANGAR_HTTPS_PORT: 'off' } });
    await off.proc.waitForLine(/^Devices open/);
    expect(off.proc.stdoutLines()).toContain('Devices open http://hangar.lab.test:7700');
    expect((await off.proc.stop()).code).toBe(0);
  });

  it('exits with code 2 for an invalid --base-url, --port, --https-port, --api-shape, HANGAR_PORT, HANGAR_HTTPS_PORT or HANGAR_MDNS', async () => {
    const data = await tempDir();
    for (const [args, env] of [
      [['--base-url', 'not a url'], {}],
      [['--port', '70000'], {}],
      [['--api-shape', 'fancy'], {}],
      [['--https-port', '70000'], {}],
      [[], { HANGAR_PORT: 'eighty' }],
      [[], { HANGAR_HTTPS_PORT: 'https' }],
      [[], { HANGAR_MDNS: 'maybe' }],
    ] as const) {
      const run = await runCli(['serve', '--host', '127.0.0.1', '--data', data, ...args], { env });
      expect(run.code, `${args.join(' ')} ${JSON.stringify(env)}: ${run.stderr}`).toBe(2);
      expect(run.stderr).toMatch(/^hangar: \S/);
      expect(run.stdout).not.toMatch(/Hangar listening/);
    }
  });

  it('lets flags win over the environment', async () => {
    const flagData = await tempDir();
    const envData = await tempDir();
    const envPort = await freePort();
    const server = await startServe(['--host', '127.0.0.1', '--port', '0', '--data', flagData, '--api-shape', 'extended', '--base-url', 'http://hangar.lab.test'], {
      env: {
        HANGAR_HOST: '0.0.0.0',
        HANGAR_PORT: String(envPort),
        HANGAR_DATA_DIR: envData,
        HANGAR_API_SHAPE: 'base',
        HANGAR_BASE_URL: 'ftp://x',
        HANGAR_ADMIN_TOKEN: ADMIN,
      },
    });
    expect(server.host).toBe('127.0.0.1');
    expect(server.port).not.toBe(envPort);
    const created = await api(server.url, 'POST', '/api/apps', { token: ADMIN, json: { name: 'Flag shape' } });
    expect(created.status, created.text).toBe(201);
    expect(Array.isArray(created.body)).toBe(false);
    expect((await server.proc.stop()).code).toBe(0);
    expect(existsSync(join(flagData, DATABASE_FILE))).toBe(true);
    expect(existsSync(join(envData, DATABASE_FILE))).toBe(false);
  });
});

describe('hangar serve: clean stop', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`exits with code 0 within 5 s on ${signal}`, async () => {
      const data = await tempDir();
      const server = await startServe(['--host', '127.0.0.1', '--port', '0', '--data', data]);
      // a keep-alive connection left open must not hold the stop up
      expect((await api(server.url, 'GET', '/api/health')).status).toBe(200);
      const exit = await server.proc.stop(signal, 5_000);
      expect(exit.signal).toBeNull();
      expect(exit.code, server.proc.describe()).toBe(0);
      expect(exit.ms).toBeLessThan(5_000);
      expect(server.proc.stderr).toBe('');
    });
  }

  // "Hangar listening on" tells a supervisor (systemd, a container runtime, a test) that the server
  // is up; a stop requested from that moment on must be a clean one. (A race: several starts, so
  // that a narrow window shows.)
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`exits with code 0 on a ${signal} sent as soon as the listening line is printed`, async () => {
      const runs = await Promise.all(
        [1, 2, 3, 4].map(async () => {
          const data = await tempDir();
          const server = await startServe(['--host', '127.0.0.1', '--port', '0', '--data', data]);
          const exit = await server.proc.stop(signal, 5_000);
          const log = readFileSync(join(data, 'logs', 'hangar.log'), 'utf8');
          return { code: exit.code, signal: exit.signal, stoppedLogged: log.includes('"msg":"stopped"') };
        }),
      );
      expect(runs).toEqual(runs.map(() => ({ code: 0, signal: null, stoppedLogged: true })));
    });
  }

  it('lets a request in flight finish, refuses new connections, then exits 0 with the data saved', async () => {
    const data = await tempDir();
    const server = await startServe(['--host', '127.0.0.1', '--port', '0', '--data', data], { env: { HANGAR_ADMIN_TOKEN: ADMIN } });

    const body = JSON.stringify({ name: 'Finished during shutdown' });
    const half = Math.floor(body.length / 2);
    const agent = new http.Agent({ keepAlive: true });
    const request = http.request({
      host: '127.0.0.1',
      port: server.port,
      method: 'POST',
      path: '/api/apps',
      agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${ADMIN}` },
    });
    const response = new Promise<{ status: number; text: string; connection: string | undefined }>((resolveResponse, reject) => {
      request.on('error', reject);
      request.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolveResponse({ status: res.statusCode ?? 0, text, connection: res.headers.connection }));
        res.on('error', reject);
      });
    });
    response.catch(() => {}); // awaited below; a failure before that must not surface as unhandled
    request.write(body.slice(0, half));
    await sleep(300); // the server has the headers and half the body

    const signalled = Date.now();
    server.proc.child.kill('SIGTERM');
    await sleep(150);

    // a new connection now: refused, or answered 503
    let fresh: string;
    try {
      const res = await fetch(`${server.url}/api/health`, { signal: AbortSignal.timeout(2_000) });
      fresh = `status ${res.status}`;
      await res.arrayBuffer();
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause;
      fresh = `error ${cause?.code ?? (error as Error).name}`;
    }
    expect(fresh).toMatch(/^(status 503|error (ECONNREFUSED|ECONNRESET|UND_ERR_SOCKET))$/);
    expect(server.proc.exit, 'the process must wait for the request in flight').toBeNull();

    await sleep(Math.max(0, 300 - (Date.now() - signalled)));
    request.end(body.slice(half));
    const answer = await response.finally(() => setTimeout(() => agent.destroy(), 6_000).unref());
    expect(answer.status, answer.text).toBe(201);
    expect(JSON.parse(answer.text).name).toBe('Finished during shutdown');

    // The answer closes its keep-alive connection, so the stop does not wait for the shutdown
    // timeout (4.5 s) to cut it: the process exits 0 well within 5 s of the signal.
    expect(answer.connection).toBe('close');
    const exit = await server.proc.waitForExit(5_000);
    expect(exit.code, server.proc.describe()).toBe(0);
    expect(Date.now() - signalled, 'stop took as long as the shutdown timeout').toBeLessThan(3_000);

    const apps = withDatabase(data, (sql) => sql.prepare('SELECT name FROM apps').all() as { name: string }[]);
    expect(apps.map((a) => a.name)).toEqual(['Finished during shutdown']);
  });
});
