/**
 * "Token values, passwords and channel keys never appear in them (query, form or header)": a real
 * `hangar serve` with stdout logging on gets requests carrying secrets every way a client can send
 * them, successful and failing; afterwards neither <data>/logs/hangar.log nor the captured output
 * holds any of them, while the log does hold the request lines, with the values redacted.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { api, startServe, tempDir, useCliCleanup } from './spawn.ts';

useCliCleanup();

const ADMIN = 'hgr_logging-admin-SECRET-0123456789abcdef';

interface LogLine {
  level?: number;
  msg?: string;
  /** access-log lines (http/logging.ts AccessLog): one per request */
  method?: string;
  url?: string;
  status?: number;
  [key: string]: unknown;
}

function parseLines(text: string, where: string): LogLine[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as LogLine;
      } catch {
        throw new Error(`${where}: a log line that is not JSON: ${line}`);
      }
    });
}

describe.each(['info', 'trace'])('request logs keep secrets out (log level %s)', (level) => {
  it('logs requests without token values, passwords or channel keys, wherever they were sent', async () => {
    const data = await tempDir();
    const server = await startServe(['--host', '127.0.0.1', '--port', '0', '--data', data], {
      env: { HANGAR_ADMIN_TOKEN: ADMIN, HANGAR_LOG_STDOUT: '1', HANGAR_LOG_LEVEL: level },
    });
    const url = server.url;
    const secrets: Record<string, string> = { 'admin token (HANGAR_ADMIN_TOKEN, sent as a Bearer header)': ADMIN };

    // four tokens, one for each way of sending a token (R2)
    const mint = async (name: string): Promise<string> => {
      const res = await api(url, 'POST', '/api/users/me/tokens', { token: ADMIN, json: { name } });
      expect(res.status, res.text).toBe(201);
      return res.body.token as string;
    };
    const tQuery = await mint('query');
    const tHeader = await mint('header');
    const tForm = await mint('form');
    const tJson = await mint('json');
    Object.assign(secrets, { 'token in ?token=': tQuery, 'token in Authorization': tHeader, 'token in a form field': tForm, 'token in a JSON field': tJson });

    // token in the query
    const q = await api(url, 'GET', `/api/users/me?token=${encodeURIComponent(tQuery)}`);
    expect(q.status, q.text).toBe(200);
    const q2 = await api(url, 'GET', `/api/apps?page=1&token=${encodeURIComponent(tQuery)}&per_page=5`);
    expect(q2.status, q2.text).toBe(200);
    // token in the Authorization header
    const h = await api(url, 'GET', '/api/users/me', { headers: { authorization: `Bearer ${tHeader}` } });
    expect(h.status, h.text).toBe(200);
    // token in a form body field
    const f = await api(url, 'POST', '/api/apps', { form: { name: 'Form app', token: tForm } });
    expect(f.status, f.text).toBe(201);
    // token in a JSON body field
    const j = await api(url, 'POST', '/api/apps', { json: { name: 'JSON app', token: tJson } });
    expect(j.status, j.text).toBe(201);
    const appId = (Array.isArray(j.body) ? j.body[0] : j.body).id as number;

    // user passwords in a JSON body and in a form body
    const pwJson = 'pw-JSON-Secret-7f3a9c21';
    const pwForm = 'pw-FORM-Secret-5b8e0d44';
    Object.assign(secrets, { 'password in a JSON body': pwJson, 'password in a form body': pwForm });
    const uj = await api(url, 'POST', '/api/users', { token: ADMIN, json: { username: 'carol', email: 'carol@lab.test', password: pwJson, role: 'member' } });
    expect(uj.status, uj.text).toBe(201);
    const uf = await api(url, 'POST', '/api/users', { token: ADMIN, form: { username: 'dave', email: 'dave@lab.test', password: pwForm, role: 'member' } });
    expect(uf.status, uf.text).toBe(201);

    // a channel visit password
    const visit = 'visit-Secret-2c4d6e8f';
    secrets['channel visit password'] = visit;
    const scheme = await api(url, 'POST', `/api/apps/${appId}/schemes`, { token: ADMIN, json: { name: 'Beta' } });
    expect(scheme.status, scheme.text).toBe(201);
    const channel = await api(url, 'POST', `/api/schemes/${scheme.body.id}/channels`, { token: ADMIN, json: { name: 'Main', device_type: 'ios', password: visit } });
    expect(channel.status, channel.text).toBe(201);

    // a channel key in the query
    const keyRes = await api(url, 'GET', `/api/channels/${channel.body.id}/key`, { token: ADMIN });
    expect(keyRes.status, keyRes.text).toBe(200);
    const key = keyRes.body.key as string;
    expect(key.length).toBeGreaterThan(8);
    secrets['channel key in ?channel_key='] = key;
    const k = await api(url, 'GET', `/api/apps?channel_key=${encodeURIComponent(key)}`, { token: ADMIN });
    expect(k.status, k.text).toBe(200);

    // failing requests carrying secrets
    const pwFail = 'pw-FAIL-Secret-9a1b2c3d';
    const bogus = 'hgr_bogus-SECRET-token-fedcba9876543210';
    Object.assign(secrets, { 'password of a refused user': pwFail, 'unknown token in ?token=': bogus });
    const bad = await api(url, 'POST', `/api/apps?token=${encodeURIComponent(tQuery)}`, { json: { name: '', token: tJson } });
    expect(bad.status, bad.text).toBe(422);
    const badForm = await api(url, 'POST', '/api/apps', { form: { name: '', token: tForm } });
    expect(badForm.status, badForm.text).toBe(422);
    const badUser = await api(url, 'POST', '/api/users', { token: ADMIN, json: { username: 'erin', email: 'not-an-email', password: pwFail } });
    expect(badUser.status, badUser.text).toBe(422);
    const badUserForm = await api(url, 'POST', '/api/users', { token: ADMIN, form: { username: 'erin', email: 'not-an-email', password: pwFail } });
    expect(badUserForm.status, badUserForm.text).toBe(422);
    const badChannel = await api(url, 'POST', `/api/schemes/${scheme.body.id}/channels`, { token: ADMIN, json: { name: '', device_type: 'ios', password: visit } });
    expect(badChannel.status, badChannel.text).toBe(422);
    const unknown = await api(url, 'GET', `/api/users/me?token=${encodeURIComponent(bogus)}`);
    expect(unknown.status, unknown.text).toBe(401);
    const unknownBearer = await api(url, 'GET', '/api/users/me', { headers: { authorization: `Bearer ${bogus}` } });
    expect(unknownBearer.status, unknownBearer.text).toBe(401);
    // malformed JSON holding secrets: the parser's message must not carry them into a log line
    const broken = await fetch(`${url}/api/apps`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN}` },
      body: `{"name":"x","token":"${tJson}","password":"${pwFail}"`,
    });
    expect(broken.status).toBe(400);
    await broken.arrayBuffer();

    const exit = await server.proc.stop('SIGTERM');
    expect(exit.code, server.proc.describe()).toBe(0);

    const logText = await readFile(join(data, 'logs', 'hangar.log'), 'utf8');
    const found: string[] = [];
    for (const [what, secret] of Object.entries(secrets)) {
      if (logText.includes(secret)) found.push(`${what} in logs/hangar.log`);
      if (server.proc.stdout.includes(secret)) found.push(`${what} on stdout`);
      if (server.proc.stderr.includes(secret)) found.push(`${what} on stderr`);
    }
    expect(found, 'secrets that leaked').toEqual([]);

    // ...and the requests were logged, one access line each (method, url, status)
    const lines = parseLines(logText, 'logs/hangar.log');
    const reqs = lines.filter((l) => l.msg === 'request');
    expect(reqs.length).toBeGreaterThanOrEqual(20);
    const logged = reqs.map((l) => `${l.method} ${l.url}`);
    expect(logged).toContain('GET /api/users/me?token=[REDACTED]');
    expect(logged).toContain('GET /api/apps?page=1&token=[REDACTED]&per_page=5');
    expect(logged).toContain('GET /api/apps?channel_key=[REDACTED]');
    expect(logged).toContain('POST /api/apps?token=[REDACTED]');
    expect(logged).toContain('POST /api/users');
    expect(logged).toContain(`POST /api/schemes/${scheme.body.id}/channels`);
    const statuses = reqs.map((l) => l.status);
    for (const status of [200, 201, 400, 401, 422]) expect(statuses).toContain(status);

    // stdout logging was on: the same request lines went there too
    const stdoutLogs = parseLines(
      server.proc.stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .join('\n'),
      'stdout',
    );
    expect(stdoutLogs.some((l) => l.msg === 'request' && l.url === '/api/apps?channel_key=[REDACTED]')).toBe(true);
  });
});
