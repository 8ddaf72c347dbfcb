/**
 * How errors from below the HTTP layer leave: each cause its status and a JSON `error` (R3), with
 * SQLite's extended result codes treated as their primary code.
 */
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { installErrorHandling } from '../../src-server/http/errors.ts';

async function answerTo(code: string) {
  const app = Fastify({ logger: false });
  installErrorHandling(app);
  app.get('/', async () => {
    throw Object.assign(new Error(`${code}: from below`), { code });
  });
  const res = await app.inject({ method: 'GET', url: '/' });
  await app.close();
  return { status: res.statusCode, body: res.json(), retryAfter: res.headers['retry-after'] };
}

describe('errors from the storage below', () => {
  it.each([
    ['SQLITE_BUSY', 503],
    ['SQLITE_BUSY_SNAPSHOT', 503],
    ['SQLITE_LOCKED_SHAREDCACHE', 503],
    ['SQLITE_FULL', 507],
    ['ENOSPC', 507],
    ['SQLITE_READONLY_DBMOVED', 507],
    ['EROFS', 507],
    ['SQLITE_CORRUPT', 500],
  ])('%s answers %i with an error message that names no internals', async (code, status) => {
    const { status: got, body, retryAfter } = await answerTo(code);
    expect(got).toBe(status);
    expect(typeof body.error).toBe('string');
    expect(body.error).not.toContain('from below');
    if (status === 503) expect(retryAfter).toBe('1');
  });
});
