/**
 * GET /api/apps/latest (the SDKs' update check) on a database of many releases: channels spread over
 * apps of 2 schemes x 2 channels, each channel with the same number of releases, seeded straight into
 * SQLite while the server is stopped (lib/seed.ts). Each request asks about a random channel as a
 * client one build behind would (so exactly one newer release comes back), with a closed loop of
 * keep-alive connections, in rounds that alternate with a bare Fastify (same version, also a child
 * process) whose one route returns, as a constant, the JSON body Hangar answered with.
 * The servers' CPU time per request is reported too: it is what other load on the machine disturbs least.
 *
 * Target (reported): requests/second >= 50% of the bare route's; p50/p99 reported.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIG } from './lib/config.ts';
import { requestJson } from './lib/http.ts';
import { closedLoop, summarize, type LoadResult, type RawLoad } from './lib/load.ts';
import { removeTempDir, startBaseline, startHangar, tempDir, type Server } from './lib/proc.ts';
import { RssSampler } from './lib/rss.ts';
import { seed, type SeededChannel } from './lib/seed.ts';
import { round } from './lib/stats.ts';
import { ratioRow, reportRow, type Row } from './lib/table.ts';

export const LATEST_MIN_RATIO = 0.5;

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

export async function benchLatest(log: (line: string) => void): Promise<{ results: LatestResults; rows: Row[] }> {
  const root = tempDir('latest');
  const servers: Server[] = [];
  try {
    const dataDir = join(root, 'hangar-data');
    // a first start creates the database (migrations, the admin user); seeding happens while it is stopped
    const first = await startHangar(dataDir);
    await first.stop();
    const started = performance.now();
    const channels = seed(dataDir, { channels: CONFIG.channels, perChannel: CONFIG.releasesPerChannel });
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
