/**
 * Guessing tokens (issue 7, hostile input): failed token authentications are counted per client
 * address; past TOKEN_FAILURES.max in the window, every request of that client carrying a token
 * (wherever it carries it, valid tokens included) gets 429 with Retry-After, logged once without the
 * token. Other clients are not affected, the window ends, loopback (the desktop console) is never
 * refused, and the counter stays bounded.
 *
 * Remote clients are played with Fastify's inject (`remoteAddress`) against the running server: its
 * hooks, database and log are the real ones, only the socket is not.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientOf, failureCounter, TOKEN_FAILURES } from '../../src-server/http/failure-counter.ts';
import { logFilePath } from '../../src-server/http/logging.ts';
import { multipartBody, syntheticIpa } from '../helpers/builds.ts';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser } from '../helpers/world.ts';

const ATTACKER = '203.0.113.7';
const NEIGHBOUR = '198.51.100.9';
const WINDOW_S = TOKEN_FAILURES.windowMs / 1000;

let t: TestServer;
/** added to the server's clock, to see a window end */
let clockShift = 0;

beforeAll(async () => {
  t = await startTestServer({}, { now: () => Date.now() + clockShift });
});

afterAll(async () => {
  await t?.close();
});

/** A request as a remote client at `ip`; `token` goes where `tokenIn` says. */
async function from(ip: string, token: string | null, options: { url?: string; tokenIn?: 'header' | 'query' } = {}) {
  const url = options.url ?? '/api/users/me';
  const res = await t.server.app.inject({
    method: 'GET',
    url: token !== null && options.tokenIn === 'query' ? `${url}?token=${encodeURIComponent(token)}` : url,
    headers: token !== null && options.tokenIn !== 'query' ? { authorization: `Bearer ${token}` } : {},
    remoteAddress: ip,
  });
  return { status: res.statusCode, headers: res.headers, body: res.json() as { error?: string } };
}

/** Makes `count` failed token authentications from `ip`, each expected to be 401. */
async function guess(ip: string, count: number, prefix = 'hgr_guess') {
  for (let i = 0; i < count; i++) expect((await from(ip, `${prefix}-${i}`)).status).toBe(401);
}

async function logLines(): Promise<Array<Record<string, any>>> {
  const text = await readFile(logFilePath(t.dataDir), 'utf8');
  return text.trim().split('\n').map((line) => JSON.parse(line));
}

describe('a client guessing tokens', () => {
  it(`gets 401 for ${TOKEN_FAILURES.max} wrong tokens, then 429 with Retry-After for any token, the valid ones too, wherever it travels`, async () => {
    await guess(ATTACKER, TOKEN_FAILURES.max);

    const blocked = await from(ATTACKER, 'hgr_guess-next');
    expect(blocked.status).toBe(429);
    expect(blocked.body.error).toMatch(/Too many failed token authentications/);
    const retryAfter = Number(blocked.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW_S);

    // a right guess must not be told apart from a wrong one while blocked
    expect((await from(ATTACKER, ADMIN_TOKEN)).status).toBe(429);
    expect((await from(ATTACKER, ADMIN_TOKEN, { tokenIn: 'query' })).status).toBe(429);
    const { body, contentType } = multipartBody({ token: ADMIN_TOKEN }, { name: 'App.ipa', data: syntheticIpa() });
    const upload = await t.server.app.inject({ method: 'POST', url: '/api/apps/upload', headers: { 'content-type': contentType }, payload: body, remoteAddress: ATTACKER });
    expect(upload.statusCode, upload.body).toBe(429);

    // what needs no token still answers
    expect((await from(ATTACKER, null, { url: '/api/health' })).status).toBe(200);
  });

  it('does not affect other clients, with valid or wrong tokens', async () => {
    expect((await from(NEIGHBOUR, ADMIN_TOKEN)).status).toBe(200);
    expect((await from(NEIGHBOUR, 'hgr_not-a-token')).status).toBe(401);
  });

  it('counts expired tokens as failures, and tokens of locked users not', async () => {
    const user = await createUser(t, 'member');
    const expired = t.server.domain.tokens.create(user.id, { name: 'old', expiresAt: Date.now() - 1000 }).value;
    const client = '203.0.113.20';
    for (let i = 0; i < TOKEN_FAILURES.max; i++) expect((await from(client, expired)).status).toBe(401);
    expect((await from(client, user.token)).status).toBe(429);

    const locked = await createUser(t, 'member', { locked: true });
    const other = '203.0.113.21';
    for (let i = 0; i < TOKEN_FAILURES.max + 5; i++) expect((await from(other, locked.token)).status).toBe(403);
    expect((await from(other, ADMIN_TOKEN)).status).toBe(200);
  });

  it('counts an IPv6 client by its /64 network, where one host holds many addresses', async () => {
    for (let i = 0; i < TOKEN_FAILURES.max; i++) expect((await from(`2001:db8:7:7::${(i + 1).toString(16)}`, `hgr_v6-${i}`)).status).toBe(401);
    expect((await from('2001:db8:7:7:ffff::1', ADMIN_TOKEN)).status).toBe(429);
    expect((await from('2001:db8:7:8::1', ADMIN_TOKEN)).status).toBe(200);
  });

  it('is let in again once the window has passed', async () => {
    const client = '203.0.113.30';
    await guess(client, TOKEN_FAILURES.max);
    expect((await from(client, ADMIN_TOKEN)).status).toBe(429);
    clockShift += TOKEN_FAILURES.windowMs;
    try {
      expect((await from(client, ADMIN_TOKEN)).status).toBe(200);
      // and gets a fresh allowance
      await guess(client, TOKEN_FAILURES.max - 1);
      expect((await from(client, ADMIN_TOKEN)).status).toBe(200);
    } finally {
      clockShift -= TOKEN_FAILURES.windowMs;
    }
  });

  it('leaves a warning in the log when the limit trips, once per window, with the client and never the token', async () => {
    const lines = await logLines();
    const warnings = lines.filter((l) => l.level === 40 && /too many failed token authentications/.test(l.msg));
    expect(warnings.filter((l) => l.client === ATTACKER)).toEqual([
      expect.objectContaining({ client: ATTACKER, failures: TOKEN_FAILURES.max, refused: true, msg: 'too many failed token authentications: the client must wait' }),
    ]);
    const text = JSON.stringify(lines);
    expect(text).not.toContain('hgr_guess');
    expect(text).not.toContain(ADMIN_TOKEN);
  });
});

describe('the desktop console and scripts on this machine (loopback)', () => {
  it('are counted and logged but never refused: a valid token from loopback still works after many wrong ones', async () => {
    const wrong = t.client('hgr_local-wrong');
    for (let i = 0; i < TOKEN_FAILURES.max + 5; i++) expect((await wrong.get('/api/users/me')).status).toBe(401);
    const me = await t.admin.get('/api/users/me');
    expect(me.status, me.text).toBe(200);

    const warning = (await logLines()).find((l) => l.level === 40 && l.client === '127.0.0.1');
    expect(warning).toMatchObject({ failures: TOKEN_FAILURES.max, refused: false, msg: 'too many failed token authentications from this machine (loopback is not limited)' });
  });

  it('answers 429 in the access log of a refused remote client, with the URL token redacted', async () => {
    await t.server.close(); // flushes the batched access log
    const refused = (await logLines()).filter((l) => l.msg === 'request' && l.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.map((l) => l.ip)).toContain(ATTACKER);
    expect(refused.map((l) => l.url)).toContain('/api/users/me?token=[REDACTED]');
  });
});

describe('the failure counter', () => {
  it('stays bounded: past its capacity the oldest window is forgotten', () => {
    let now = 0;
    const counter = failureCounter({ max: 2, windowMs: 1000, capacity: 100 }, () => now);
    for (let i = 0; i < 10_000; i++) counter.fail(`client ${i}`);
    expect(counter.size).toBe(100);
    counter.fail('client 9999');
    expect(counter.waitOf('client 9999')).toBe(1000);
    expect(counter.waitOf('client 0')).toBe(0);
    now = 1000;
    expect(counter.waitOf('client 9999')).toBe(0);
    expect(counter.size).toBe(99); // the expired window was dropped when met
  });

  it('names clients by IPv4 address or IPv6 /64 network', () => {
    expect(clientOf('192.0.2.1')).toBe('192.0.2.1');
    expect(clientOf('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(clientOf('2001:db8:0:1::5')).toBe('2001:db8:0:1::/64');
    expect(clientOf('2001:0db8:0000:0001:abcd::5')).toBe('2001:db8:0:1::/64');
    expect(clientOf('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientOf('::1')).toBe('0:0:0:0::/64');
  });
});
