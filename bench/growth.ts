/**
 * Growth: do the endpoints stay flat as the database grows? One database is seeded (lib/seed.ts) to
 * 1k, 10k, 100k and 1M releases in turn, 100 releases per channel (so 10 to 10,000 channels, 4 per
 * app); at each size a Hangar server is started on it and, one request at a time over a keep-alive
 * connection, these are timed (client side, the median of many):
 *
 *   versions  GET /api/apps/versions of a random channel (first page)
 *   latest    GET /api/apps/latest of a random channel, as a client one build behind
 *   apps      GET /api/apps (the first page, as the admin)
 *   upload    POST /api/apps/upload of the small .ipa fixture into a seeded iOS channel
 *
 * The polled endpoints answer from a cache between writes (http/response-cache.ts); each timed request
 * carries a query parameter of its own so that it misses the cache and reaches the database. Each
 * endpoint's time at the largest size is reported against its time at the smallest (flat: about 1x).
 * Last, EXPLAIN QUERY PLAN of the queries behind them (written as the domain layer issues them) is
 * checked for full table scans.
 */
import Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import { Agent } from 'node:http';
import { join } from 'node:path';
import { DATABASE_FILE } from '../src-server/server.ts';
import { ADMIN_TOKEN, CONFIG, MiB } from './lib/config.ts';
import { requestJson, uploadMultipart } from './lib/http.ts';
import { removeTempDir, startHangar, tempDir, type Server } from './lib/proc.ts';
import { seed, type SeededChannel } from './lib/seed.ts';
import type { Chart } from './lib/plot.ts';
import { median, round } from './lib/stats.ts';
import { reportRow, type Row } from './lib/table.ts';
import { FIXTURE } from './lib/workspace.ts';

const PER_CHANNEL = 100;
/** an endpoint is flat when its time at the largest size is within this factor of its time at the smallest */
export const GROWTH_MAX_RATIO = 3;

export const ENDPOINTS = ['versions', 'latest', 'apps', 'upload'] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

export interface GrowthPoint {
  releases: number;
  channels: number;
  seedSeconds: number;
  /** from spawning the server to its "listening" line (migrations, the start-up sweep) */
  startSeconds: number;
  databaseMiB: number;
  /** median milliseconds per request */
  ms: Record<Endpoint, number>;
}

export interface QueryPlan {
  query: string;
  plan: string[];
  /** a step that reads a whole table (SCAN without an index) of more than SCAN_ROWS_LIMIT rows */
  fullScan: boolean;
}

/**
 * SQLite rightly prefers reading a small table whole to an index and a sort (the app list's schemes
 * while there are a few dozen): only a scan of a larger table counts.
 */
const SCAN_ROWS_LIMIT = 1000;

export interface GrowthResults {
  points: GrowthPoint[];
  /** per endpoint: time at the largest size / time at the smallest */
  ratios: Record<Endpoint, number>;
  target: number;
  plans: QueryPlan[];
}

/** Times `count` requests made one after another; returns the median in milliseconds. */
async function timeEach(count: number, request: (i: number) => Promise<void>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const started = performance.now();
    await request(i);
    times.push(performance.now() - started);
  }
  return round(median(times), 3);
}

async function measure(hangar: Server, channels: SeededChannel[], salt: string): Promise<Record<Endpoint, number>> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const random = () => channels[Math.floor(Math.random() * channels.length)]!;
  const get = async (path: string, token?: string) => {
    const answer = await requestJson('GET', `${hangar.url}${path}`, { agent, token });
    if (answer.status !== 200) throw new Error(`GET ${path}: ${answer.status} ${answer.text.slice(0, 300)}`);
  };
  const ios = channels.find((c) => c.deviceType === 'ios')!;
  const upload = async () => {
    const t = await uploadMultipart({ url: `${hangar.url}/api/apps/upload`, token: ADMIN_TOKEN, filePath: FIXTURE, fileName: 'Growth.ipa', fields: { channel_key: ios.key }, agent });
    if (t.status !== 201) throw new Error(`upload: ${t.status} ${t.body.slice(0, 300)}`);
  };
  const timeAll = async (reads: number, uploads: number, tag: string): Promise<Record<Endpoint, number>> => ({
    versions: await timeEach(reads, (i) => get(`/api/apps/versions?channel_key=${random().key}&nocache=${salt}${tag}${i}`)),
    latest: await timeEach(reads, (i) => {
      const c = random();
      return get(`/api/apps/latest?channel_key=${c.key}&release_version=${c.releaseVersion}&build_version=${c.buildVersion}&nocache=${salt}${tag}${i}`);
    }),
    apps: await timeEach(reads, () => get('/api/apps', ADMIN_TOKEN)),
    upload: await timeEach(uploads, upload),
  });
  try {
    // untimed first: a fresh server's first answers pay for compiling and warming up
    await timeAll(5, 1, 'warm');
    return await timeAll(CONFIG.growth.reads, CONFIG.growth.uploads, 'run');
  } finally {
    agent.destroy();
  }
}

/** The queries behind the four endpoints, as domain/releases.ts, channels.ts and apps.ts issue them. */
const QUERIES: Record<string, string> = {
  'channel by key': `SELECT * FROM channels WHERE key = 'k'`,
  'versions page': `SELECT * FROM releases WHERE channel_id = 1 ORDER BY version DESC LIMIT 25 OFFSET 0`,
  'latest newer than': `SELECT * FROM releases WHERE channel_id = 1 AND release_version_key >= 'A1.A2' AND build_version_key > 'C100' ORDER BY version DESC`,
  'latest newest': `SELECT * FROM releases WHERE channel_id = 1 ORDER BY version DESC LIMIT 1`,
  'app list page': `SELECT * FROM apps ORDER BY created_at DESC, id DESC LIMIT 25 OFFSET 0`,
  "app list's schemes": `SELECT * FROM schemes WHERE app_id IN (1, 2, 3) ORDER BY id`,
  "app list's channels": `SELECT * FROM channels WHERE scheme_id IN (1, 2, 3) ORDER BY id`,
  'token by hash': `SELECT * FROM api_tokens WHERE token_hash = 'h'`,
  'upload: next version': `UPDATE channels SET next_release_version = next_release_version + 1 WHERE id = 1`,
};

function queryPlans(dataDir: string): QueryPlan[] {
  const db = new Database(join(dataDir, DATABASE_FILE), { readonly: true });
  try {
    return Object.entries(QUERIES).map(([query, sql]) => {
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((row) => row.detail);
      const scanned = plan.map((step) => /^SCAN (\S+)$/.exec(step)?.[1]).filter((table) => table !== undefined);
      const rowsOf = (table: string) => (db.prepare(`SELECT count(*) AS n FROM "${table}"`).get() as { n: number }).n;
      return { query, plan, fullScan: scanned.some((table) => rowsOf(table) > SCAN_ROWS_LIMIT) };
    });
  } finally {
    db.close();
  }
}

export async function benchGrowth(log: (line: string) => void): Promise<{ results: GrowthResults; rows: Row[] }> {
  const root = tempDir('growth');
  const dataDir = join(root, 'hangar-data');
  try {
    // a first start creates the database (migrations, the admin user); seeding happens while it is stopped
    await (await startHangar(dataDir)).stop();
    const points: GrowthPoint[] = [];
    const channels: SeededChannel[] = [];
    for (const releases of [...CONFIG.growth.sizes].sort((a, b) => a - b)) {
      const wanted = Math.ceil(releases / PER_CHANNEL);
      const started = performance.now();
      channels.push(...seed(dataDir, { channels: wanted - channels.length, perChannel: PER_CHANNEL, firstChannel: channels.length }));
      const seedSeconds = round((performance.now() - started) / 1000, 1);
      const spawned = performance.now();
      const hangar = await startHangar(dataDir);
      const startSeconds = round((performance.now() - spawned) / 1000, 2);
      try {
        const ms = await measure(hangar, channels, `${releases}-`);
        const databaseMiB = round(statSync(join(dataDir, DATABASE_FILE)).size / MiB, 1);
        points.push({ releases, channels: channels.length, seedSeconds, startSeconds, databaseMiB, ms });
        log(
          `  ${releases} releases (${channels.length} channels, seeded in ${seedSeconds} s, ${databaseMiB} MiB, server up in ${startSeconds} s): ` +
            ENDPOINTS.map((e) => `${e} ${ms[e]} ms`).join(', '),
        );
      } finally {
        await hangar.stop();
      }
    }
    const plans = queryPlans(dataDir);
    for (const p of plans.filter((p) => p.fullScan)) log(`  full scan in ${p.query}: ${p.plan.join('; ')}`);

    const first = points[0]!;
    const last = points[points.length - 1]!;
    const ratios = Object.fromEntries(ENDPOINTS.map((e) => [e, round(last.ms[e] / first.ms[e], 2)])) as Record<Endpoint, number>;
    const span = `${Math.round(last.releases / 1000)}k vs ${Math.round(first.releases / 1000)}k releases`;
    const rows: Row[] = [
      ...ENDPOINTS.map((e) => ({
        ...reportRow(`growth ${e}: ${span}`, 'ms', last.ms[e], first.ms[e]),
        target: `<= ${GROWTH_MAX_RATIO}x (flat)`,
        pass: ratios[e] <= GROWTH_MAX_RATIO,
      })),
      { ...reportRow('growth: queries with a full table scan', '', plans.filter((p) => p.fullScan).length), target: '0', pass: plans.every((p) => !p.fullScan) },
    ];
    return { results: { points, ratios, target: GROWTH_MAX_RATIO, plans }, rows };
  } finally {
    removeTempDir(root);
  }
}

/** bench/growth.png: each endpoint's median time against the number of releases (log scale). */
export function growthChart(results: GrowthResults): Chart {
  return {
    title: 'Hangar: median request time as the database grows',
    xLabel: 'releases in the database',
    yLabel: 'ms',
    logX: true,
    series: ENDPOINTS.map((e) => ({ name: e, points: results.points.map((p): [number, number] => [p.releases, p.ms[e]]) })),
  };
}
