/**
 * GET /api/apps/latest (the SDKs' update check) on a database of many releases: channels spread over
 * apps of 2 schemes x 2 channels, each channel with the same number of releases, seeded straight into
 * SQLite while the server is stopped (files need not exist for `latest`). Each request asks about a
 * random channel as a client one build behind would (so exactly one newer release comes back), with a
 * closed loop of keep-alive connections, in rounds that alternate with a bare Fastify (same version,
 * also a child process) whose one route returns, as a constant, the JSON body Hangar answered with.
 * The servers' CPU time per request is reported too: it is what other load on the machine disturbs least.
 *
 * Target (reported): requests/second >= 50% of the bare route's; p50/p99 reported.
 */
import Database from 'better-sqlite3';
import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { versionKey } from '../src-server/domain/versions.ts';
import { DATABASE_FILE } from '../src-server/server.ts';
import { CONFIG } from './lib/config.ts';
import { requestJson } from './lib/http.ts';
import { closedLoop, summarize, type LoadResult, type RawLoad } from './lib/load.ts';
import { removeTempDir, startBaseline, startHangar, tempDir, type Server } from './lib/proc.ts';
import { RssSampler } from './lib/rss.ts';
import { round } from './lib/stats.ts';
import { ratioRow, reportRow, type Row } from './lib/table.ts';

export const LATEST_MIN_RATIO = 0.5;

interface SeededChannel {
  key: string;
  /** the versions of the second newest release: a client one build behind */
  releaseVersion: string;
  buildVersion: string;
}

export interface LatestResults {
  channels: number;
  releases: number;
  seedSeconds: number;
  connections: number;
  durationS: number;
  rounds: number;
  responseBytes: number;
  hangar: LoadResult;
  baseline: LoadResult;
  /** server CPU time per answered request (warm-ups included), microseconds */
  hangarCpuMicrosPerRequest: number;
  baselineCpuMicrosPerRequest: number;
  ratio: number;
  target: number;
}

/** release i (0-based) of a channel: 1.0.0, 1.0.1, ... 1.0.4, 1.1.0, ... 1.3.4, 2.0.0 ... */
function releaseVersionOf(i: number): string {
  return `${1 + Math.floor(i / 20)}.${Math.floor((i % 20) / 5)}.${i % 5}`;
}

export function seed(dataDir: string, channelCount: number, perChannel: number): SeededChannel[] {
  const db = new Database(join(dataDir, DATABASE_FILE));
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  const admin = db.prepare(`SELECT id FROM users WHERE username = 'admin'`).get() as { id: number } | undefined;
  if (!admin) throw new Error('no admin user in the seeded database');
  const insertApp = db.prepare(`INSERT INTO apps (name, archived, owner_id, created_at, updated_at) VALUES (?, 0, ?, ?, ?)`);
  const insertCollaborator = db.prepare(`INSERT INTO collaborators (app_id, user_id, role, created_at, updated_at) VALUES (?, ?, 'admin', ?, ?)`);
  const insertScheme = db.prepare(`INSERT INTO schemes (app_id, name, new_build_callout, retained_builds, created_at, updated_at) VALUES (?, ?, 1, 0, ?, ?)`);
  const insertChannel = db.prepare(
    `INSERT INTO channels (scheme_id, name, slug, key, device_type, bundle_id, git_url, password_hash, download_filename_type, next_release_version, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, '*', ?, NULL, 'version_datetime', ?, ?, ?)`,
  );
  const insertRelease = db.prepare(
    `INSERT INTO releases (channel_id, version, app_name, bundle_id, release_version, build_version, release_version_key, build_version_key,
       release_type, source, branch, git_commit, ci_url, platform, device_type, changelog, custom_fields, metadata,
       file_path, file_name, size, sha256, icon_path, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'api', ?, ?, ?, ?, ?, ?, '[]', ?, ?, ?, ?, ?, NULL, ?, ?)`,
  );
  const setFilePath = db.prepare(`UPDATE releases SET file_path = ? WHERE id = ?`);
  const seeded: SeededChannel[] = [];
  const now = Date.now();
  const hour = 3600 * 1000;
  const changelog = JSON.stringify([{ message: 'Fix a crash when the list is empty' }, { message: 'Faster start-up' }]);
  db.transaction(() => {
    const appCount = Math.ceil(channelCount / 4);
    for (let a = 0; a < appCount && seeded.length < channelCount; a += 1) {
      const ios = a % 2 === 0;
      const appName = `Bench App ${a + 1}`;
      const bundleId = `com.example.bench.app${a + 1}`;
      const appId = Number(insertApp.run(appName, admin.id, now, now).lastInsertRowid);
      insertCollaborator.run(appId, admin.id, now, now);
      for (const schemeName of ['Debug', 'Release']) {
        const schemeId = Number(insertScheme.run(appId, schemeName, now, now).lastInsertRowid);
        for (const channelName of ios ? ['iOS', 'iOS TestFlight'] : ['Android', 'Android Beta']) {
          if (seeded.length >= channelCount) break;
          const key = randomBytes(16).toString('hex');
          const slug = `b${seeded.length.toString(36)}${randomBytes(3).toString('hex')}`;
          const channelId = Number(
            insertChannel.run(schemeId, channelName, slug, key, ios ? 'ios' : 'android', `https://git.example.com/bench/app${a + 1}.git`, perChannel + 1, now, now).lastInsertRowid,
          );
          const buildBase = 100 + (seeded.length % 37) * 50;
          for (let i = 0; i < perChannel; i += 1) {
            const releaseVersion = releaseVersionOf(i);
            const buildVersion = String(buildBase + i);
            const created = now - (perChannel - i) * hour;
            const sha256 = createHash('sha256').update(`${channelId}/${i}`).digest('hex');
            const info = insertRelease.run(
              channelId,
              i + 1,
              appName,
              bundleId,
              releaseVersion,
              buildVersion,
              versionKey(releaseVersion),
              versionKey(buildVersion),
              ios ? (schemeName === 'Debug' ? 'debug' : 'adhoc') : 'adhoc',
              'main',
              sha256.slice(0, 40),
              `https://ci.example.com/job/app${a + 1}/${buildBase + i}`,
              ios ? 'iOS' : 'Android',
              ios ? 'ios' : 'android',
              changelog,
              ios ? '{"minimumOsVersion":"13.0","deviceFamilies":["iphone"]}' : '{"minSdkVersion":24,"targetSdkVersion":34}',
              '',
              ios ? 'App.ipa' : 'app-release.apk',
              48 * 1024 * 1024 + i,
              sha256,
              created,
              created,
            );
            const releaseId = Number(info.lastInsertRowid);
            setFilePath.run(
              `files/channels/${channelId}/releases/${releaseId}/release${ios ? '.ipa' : '.apk'}`,
              releaseId,
            );
          }
          seeded.push({ key, releaseVersion: releaseVersionOf(perChannel - 2), buildVersion: String(buildBase + perChannel - 2) });
        }
      }
    }
  })();
  db.pragma('optimize');
  db.close();
  return seeded;
}

export async function benchLatest(log: (line: string) => void): Promise<{ results: LatestResults; rows: Row[] }> {
  const root = tempDir('latest');
  const servers: Server[] = [];
  try {
    const dataDir = join(root, 'hangar-data');
    // a first start creates the database (migrations, the admin user); seeding happens while it is stopped
    const first = await startHangar(dataDir);
    await first.stop();
    const started = performance.now();
    const channels = seed(dataDir, CONFIG.channels, CONFIG.releasesPerChannel);
    const seedSeconds = (performance.now() - started) / 1000;
    log(`  seeded ${channels.length} channels x ${CONFIG.releasesPerChannel} releases in ${seedSeconds.toFixed(1)} s`);

    const pathOf = (c: SeededChannel) =>
      `/api/apps/latest?channel_key=${c.key}&release_version=${encodeURIComponent(c.releaseVersion)}&build_version=${encodeURIComponent(c.buildVersion)}`;
    const randomPath = () => pathOf(channels[Math.floor(Math.random() * channels.length)]!);

    const hangar = await startHangar(dataDir);
    servers.push(hangar);
    const sample = await requestJson<{ releases: unknown[] }>('GET', `${hangar.url}${pathOf(channels[0]!)}`);
    if (sample.status !== 200 || !Array.isArray(sample.json.releases) || sample.json.releases.length !== 1) {
      throw new Error(`latest: ${sample.status} ${sample.text.slice(0, 500)}`);
    }
    const responseBytes = Buffer.byteLength(sample.text);
    const bodyFile = join(root, 'latest-body.json');
    writeFileSync(bodyFile, sample.text);
    const baseline = await startBaseline('fastify-json', bodyFile);
    servers.push(baseline);

    // Rounds alternate the two servers (the other one idles), so that other load on the machine
    // weighs on both alike.
    const runs = { hangar: [] as RawLoad[], baseline: [] as RawLoad[] };
    const cpu = { hangar: 0, baseline: 0 };
    const perRound = Math.round(CONFIG.durationMs / CONFIG.rounds);
    for (let round = 0; round < CONFIG.rounds; round += 1) {
      for (const [which, server] of [['hangar', hangar], ['baseline', baseline]] as const) {
        const sampler = new RssSampler(server.pid);
        sampler.start();
        const raw = await closedLoop({ host: server.host, port: server.port, path: randomPath, connections: CONFIG.connections, warmupMs: CONFIG.warmupMs, durationMs: perRound });
        cpu[which] += sampler.stop().cpuSeconds;
        runs[which].push(raw);
        log(`  round ${round + 1} ${which}: ${(raw.latencies.length / raw.seconds).toFixed(0)} req/s`);
      }
    }
    const hangarResult = summarize(runs.hangar);
    const baselineResult = summarize(runs.baseline);
    const cpuMicros = (which: 'hangar' | 'baseline', result: LoadResult) => round((cpu[which] / result.allRequests) * 1e6, 0);
    for (const [which, result] of [['hangar', hangarResult], ['baseline', baselineResult]] as const) {
      log(
        `  ${which}: ${result.rps.toFixed(0)} req/s, p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms, ` +
          `${cpuMicros(which, result)} us server CPU per request (${result.meanBodyBytes.toFixed(0)} B answers)`,
      );
    }

    const results: LatestResults = {
      channels: channels.length,
      releases: channels.length * CONFIG.releasesPerChannel,
      seedSeconds: round(seedSeconds, 1),
      connections: CONFIG.connections,
      durationS: CONFIG.durationMs / 1000,
      rounds: CONFIG.rounds,
      responseBytes,
      hangar: hangarResult,
      baseline: baselineResult,
      hangarCpuMicrosPerRequest: cpuMicros('hangar', hangarResult),
      baselineCpuMicrosPerRequest: cpuMicros('baseline', baselineResult),
      ratio: round(hangarResult.rps / baselineResult.rps, 3),
      target: LATEST_MIN_RATIO,
    };
    const label = `latest (${Math.round(results.releases / 1000)}k releases, ${results.channels} ch)`;
    const rows: Row[] = [
      ratioRow(`${label} req/s`, 'req/s', hangarResult.rps, baselineResult.rps, LATEST_MIN_RATIO),
      reportRow(`${label} p50`, 'ms', hangarResult.p50Ms, baselineResult.p50Ms),
      reportRow(`${label} p99`, 'ms', hangarResult.p99Ms, baselineResult.p99Ms),
      reportRow(`latest server CPU per request`, 'us', results.hangarCpuMicrosPerRequest, results.baselineCpuMicrosPerRequest),
    ];
    return { results, rows };
  } finally {
    for (const server of servers) await server.stop();
    removeTempDir(root);
  }
}
