/**
 * The access log: one line per request, with secrets redacted; polls of what every device and SDK
 * polls (latest, versions, version_exist, health) only at debug level when they succeed, so that the
 * log keeps what an operator needs, while their refusals (a probed channel key) still show.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestServer } from '../helpers/server.ts';
import { createAppTree } from '../helpers/world.ts';

interface Line {
  level: number;
  msg: string;
  method?: string;
  url?: string;
  status?: number;
}

async function requestLines(logLevel: 'info' | 'debug'): Promise<Line[]> {
  const t = await startTestServer({ logLevel });
  const dataDir = t.dataDir;
  try {
    const tree = await createAppTree(t);
    expect((await t.anon.get('/api/apps/latest', { query: { channel_key: tree.channel.key } })).status).toBe(200);
    expect((await t.anon.get('/api/apps/latest', { query: { channel_key: 'not-a-key' } })).status).toBe(422);
    expect((await t.anon.get('/api/health')).status).toBe(200);
    expect((await t.admin.get('/api/users/me', { tokenIn: 'query' })).status).toBe(200);
  } finally {
    await t.server.close(); // flushes the log
    const text = await readFile(join(dataDir, 'logs', 'hangar.log'), 'utf8');
    await t.close();
    return text.trim().split('\n').map((line) => JSON.parse(line) as Line).filter((l) => l.msg === 'request');
  }
}

describe('the access log', () => {
  it('at info: one line per request, secrets redacted, successful polls left out, refused polls kept', async () => {
    const lines = await requestLines('info');
    const urls = lines.map((l) => `${l.status} ${l.method} ${l.url}`);
    expect(urls).toContain('200 GET /api/users/me?token=[REDACTED]');
    expect(urls).toContain('422 GET /api/apps/latest?channel_key=[REDACTED]');
    expect(urls.filter((u) => u.startsWith('200 GET /api/apps/latest'))).toEqual([]);
    expect(urls.filter((u) => u.includes('/api/health'))).toEqual([]);
    expect(new Set(lines.map((l) => l.level))).toEqual(new Set([30]));
  });

  it('at debug: the polls too', async () => {
    const lines = await requestLines('debug');
    const polls = lines.filter((l) => l.status === 200 && (l.url?.startsWith('/api/apps/latest') || l.url === '/api/health'));
    expect(polls.map((l) => l.level)).toEqual([20, 20]);
    expect(polls[0]!.url).toBe('/api/apps/latest?channel_key=[REDACTED]');
  });
});
