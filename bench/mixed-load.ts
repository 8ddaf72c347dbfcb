/**
 * Mixed load: a lab's busy hour on one Hangar server. For a fixed time, at once:
 *
 *   CI agents   each uploads a large .ipa (multipart, streamed from disk) to one channel, again and
 *               again; the channel's scheme keeps the newest `agents` builds (retention runs too)
 *   devices     each polls GET /api/apps/latest of that channel as a device one build behind would,
 *               waiting pollMs after each answer (so new builds keep invalidating its cache)
 *   testers     each downloads a release of another channel whole (302, then the file), again and again
 *
 * All clients are plain node:http with keep-alive agents, in this process. Reported: upload and
 * download throughput, latest p50/p99, errors (any answer other than 2xx/3xx, any socket error, a
 * short download: there must be none), the server's resident memory over the run (start, peak, end,
 * and the drift between the run's halves: flat memory) and its CPU, and the load generator's own CPU
 * and event-loop delay (it shares the 2 cores; a busy generator would understate the server). How long
 * each one waited for a CPU (other work on the machine) is reported too: on a shared machine it says
 * how much of the figures is the machine's.
 */
import { Agent } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { downloadUrl } from './download.ts';
import { ADMIN_TOKEN, CONFIG, MiB } from './lib/config.ts';
import { download, requestJson, uploadMultipart } from './lib/http.ts';
import type { Chart } from './lib/plot.ts';
import { readRunDelaySeconds, RssSampler, type RssPoint } from './lib/rss.ts';
import { median, percentile, round } from './lib/stats.ts';
import { limitRow, reportRow, type Row } from './lib/table.ts';
import { openWorkspace, uploadRelease, type Workspace } from './lib/workspace.ts';

export interface MixedLoadResults {
  seconds: number;
  agents: number;
  uploadMiB: number;
  pollers: number;
  pollMs: number;
  downloaders: number;
  downloadMiB: number;
  uploads: number;
  uploadMiBs: number;
  /** the median agent's, and the slowest agent's, throughput */
  uploadMiBsPerAgent: number;
  uploadMiBsSlowestAgent: number;
  downloads: number;
  downloadMiBs: number;
  latest: { requests: number; rps: number; p50Ms: number; p99Ms: number; maxMs: number };
  /** answers other than 2xx/3xx, socket errors and short downloads, with the first few described */
  errors: number;
  errorSamples: string[];
  rss: { startMiB: number; peakMiB: number; endMiB: number; growthMiB: number; firstHalfPeakMiB: number; secondHalfPeakMiB: number; driftMiB: number };
  /** the server's CPU time over the run, and as cores busy on average */
  serverCpuSeconds: number;
  serverCores: number;
  /** the load generator's (this process) */
  clientCpuSeconds: number;
  clientCores: number;
  clientEventLoopP99Ms: number;
  /** the share of the run each event loop spent waiting for a CPU that other processes held */
  serverCpuWaitShare: number;
  clientCpuWaitShare: number;
  /** the server's RSS every 500 ms */
  timeline: RssPoint[];
}

/** Counts failures and keeps the first few for the report. */
class Errors {
  count = 0;
  readonly samples: string[] = [];

  add(what: string): void {
    this.count += 1;
    if (this.samples.length < 10) this.samples.push(what);
  }
}

interface Target {
  /** the channel the agents upload to and the devices poll */
  uploadChannelKey: string;
  latestPath: string;
  /** the whole-file URL the testers download */
  downloadUrl: string;
}

/** A channel of its own for the uploads, its scheme keeping `retained` builds; a release to download. */
async function prepare(ws: Workspace, retained: number, downloadBytes: number): Promise<Target> {
  const big = ws.bigIpa();
  const first = await uploadMultipart({ url: `${ws.hangar.url}/api/apps/upload`, token: ADMIN_TOKEN, filePath: big.path, fileName: 'MixedApp.ipa' });
  if (first.status !== 201) throw new Error(`first upload: ${first.status} ${first.body.slice(0, 500)}`);
  const made = JSON.parse(first.body) as { release_version: string; scheme: { id: number }; channel: { id: number } };
  const scheme = await requestJson('PATCH', `${ws.hangar.url}/api/schemes/${made.scheme.id}`, { token: ADMIN_TOKEN, body: { retained_builds: retained } });
  if (scheme.status !== 200) throw new Error(`retention: ${scheme.status} ${scheme.text}`);
  const key = await requestJson<{ key: string }>('GET', `${ws.hangar.url}/api/channels/${made.channel.id}/key`, { token: ADMIN_TOKEN });
  if (key.status !== 200) throw new Error(`channel key: ${key.status} ${key.text}`);

  const file = ws.makeIpa('download.ipa', downloadBytes);
  const releaseId = await uploadRelease(ws, file.path, 'MixedDownload.ipa');
  return {
    uploadChannelKey: key.json.key,
    // a device on build 0 of the same version: every retained build is newer
    latestPath: `/api/apps/latest?channel_key=${key.json.key}&release_version=${encodeURIComponent(made.release_version)}&build_version=0`,
    downloadUrl: await downloadUrl(ws.hangar.url, releaseId),
  };
}

const ok = (status: number) => status >= 200 && status < 400;

export async function benchMixedLoad(log: (line: string) => void): Promise<{ results: MixedLoadResults; rows: Row[] }> {
  const cfg = CONFIG.mixed;
  const ws = await openWorkspace(cfg.uploadBytes);
  try {
    const target = await prepare(ws, cfg.agents, cfg.downloadBytes);
    const big = ws.bigIpa();
    const errors = new Errors();
    const agentBytes = new Array<number>(cfg.agents).fill(0);
    let uploads = 0;
    let downloads = 0;
    let downloadBytes = 0;
    const latencies: number[] = [];

    const sampler = new RssSampler(ws.hangar.pid);
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    const clientCpu = process.cpuUsage();
    const waited = { server: readRunDelaySeconds(ws.hangar.pid), client: readRunDelaySeconds(process.pid) };
    sampler.start(500);
    loopDelay.enable();
    const started = performance.now();
    const deadline = started + cfg.seconds * 1000;
    const running = () => performance.now() < deadline;

    async function agent(index: number): Promise<void> {
      const keepAlive = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        while (running()) {
          try {
            const t = await uploadMultipart({
              url: `${ws.hangar.url}/api/apps/upload`,
              token: ADMIN_TOKEN,
              filePath: big.path,
              fileName: 'MixedApp.ipa',
              fields: { channel_key: target.uploadChannelKey, changelog: `agent ${index} build ${uploads}` },
              agent: keepAlive,
            });
            if (t.status === 201) {
              agentBytes[index]! += t.bytes;
              uploads += 1;
            } else errors.add(`upload: ${t.status} ${t.body.slice(0, 200)}`);
          } catch (error) {
            errors.add(`upload: ${(error as Error).message}`);
            await sleep(100);
          }
        }
      } finally {
        keepAlive.destroy();
      }
    }

    async function tester(): Promise<void> {
      const keepAlive = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        while (running()) {
          try {
            const t = await download(target.downloadUrl, {}, keepAlive);
            if (t.status !== 200 || t.bytes !== cfg.downloadBytes) errors.add(`download: ${t.status}, ${t.bytes} of ${cfg.downloadBytes} bytes`);
            else {
              downloads += 1;
              downloadBytes += t.bytes;
            }
          } catch (error) {
            errors.add(`download: ${(error as Error).message}`);
            await sleep(100);
          }
        }
      } finally {
        keepAlive.destroy();
      }
    }

    const devices = new Agent({ keepAlive: true, maxSockets: cfg.pollers });
    async function device(): Promise<void> {
      await sleep(Math.random() * cfg.pollMs); // devices do not poll in step
      while (running()) {
        const sent = performance.now();
        try {
          const answer = await requestJson('GET', `${ws.hangar.url}${target.latestPath}`, { agent: devices });
          if (ok(answer.status)) latencies.push(performance.now() - sent);
          else errors.add(`latest: ${answer.status} ${answer.text.slice(0, 200)}`);
        } catch (error) {
          errors.add(`latest: ${(error as Error).message}`);
        }
        await sleep(cfg.pollMs);
      }
    }

    await Promise.all([
      ...Array.from({ length: cfg.agents }, (_, i) => agent(i)),
      ...Array.from({ length: cfg.downloaders }, () => tester()),
      ...Array.from({ length: cfg.pollers }, () => device()),
    ]);
    const seconds = (performance.now() - started) / 1000;
    const waitShare = (pid: number, before: number) => round((readRunDelaySeconds(pid) - before) / seconds, 2);
    const serverCpuWaitShare = waitShare(ws.hangar.pid, waited.server);
    const clientCpuWaitShare = waitShare(process.pid, waited.client);
    const rss = sampler.stop();
    loopDelay.disable();
    const cpu = process.cpuUsage(clientCpu);
    devices.destroy();

    const timeline = sampler.timeline;
    const half = seconds / 2;
    const peakOf = (points: RssPoint[]) => Math.max(...points.map((p) => p.rssMiB));
    const firstHalfPeakMiB = peakOf(timeline.filter((p) => p.seconds < half));
    const secondHalfPeakMiB = peakOf(timeline.filter((p) => p.seconds >= half));
    const sorted = Float64Array.from(latencies).sort();
    const perAgent = agentBytes.map((bytes) => bytes / MiB / seconds);
    const clientCpuSeconds = (cpu.user + cpu.system) / 1e6;
    const results: MixedLoadResults = {
      seconds: round(seconds, 1),
      agents: cfg.agents,
      uploadMiB: round(cfg.uploadBytes / MiB, 1),
      pollers: cfg.pollers,
      pollMs: cfg.pollMs,
      downloaders: cfg.downloaders,
      downloadMiB: round(cfg.downloadBytes / MiB, 1),
      uploads,
      uploadMiBs: round(agentBytes.reduce((a, b) => a + b, 0) / MiB / seconds, 1),
      uploadMiBsPerAgent: round(median(perAgent), 1),
      uploadMiBsSlowestAgent: round(Math.min(...perAgent), 1),
      downloads,
      downloadMiBs: round(downloadBytes / MiB / seconds, 1),
      latest: {
        requests: sorted.length,
        rps: round(sorted.length / seconds, 1),
        p50Ms: round(percentile(sorted, 50), 2),
        p99Ms: round(percentile(sorted, 99), 2),
        maxMs: round(sorted[sorted.length - 1] ?? Number.NaN, 2),
      },
      errors: errors.count,
      errorSamples: errors.samples,
      rss: {
        startMiB: rss.beforeMiB,
        peakMiB: rss.peakMiB,
        endMiB: rss.afterMiB,
        growthMiB: round(rss.afterMiB - rss.beforeMiB, 1),
        firstHalfPeakMiB,
        secondHalfPeakMiB,
        driftMiB: round(secondHalfPeakMiB - firstHalfPeakMiB, 1),
      },
      serverCpuSeconds: rss.cpuSeconds,
      serverCores: round(rss.cpuSeconds / seconds, 2),
      clientCpuSeconds: round(clientCpuSeconds, 2),
      clientCores: round(clientCpuSeconds / seconds, 2),
      clientEventLoopP99Ms: round(loopDelay.percentile(99) / 1e6, 1),
      serverCpuWaitShare,
      clientCpuWaitShare,
      timeline,
    };
    log(
      `  ${results.seconds} s: ${uploads} uploads, ${results.uploadMiBs} MiB/s (${results.uploadMiBsPerAgent} per agent); ${downloads} downloads, ${results.downloadMiBs} MiB/s; ` +
        `latest ${results.latest.requests} answers, p50 ${results.latest.p50Ms} ms, p99 ${results.latest.p99Ms} ms; ${errors.count} errors`,
    );
    log(
      `  server RSS ${rss.beforeMiB} -> peak ${rss.peakMiB} -> ${rss.afterMiB} MiB (halves' peaks ${firstHalfPeakMiB} / ${secondHalfPeakMiB} MiB), ` +
        `CPU ${results.serverCores} cores (waiting for a CPU ${Math.round(serverCpuWaitShare * 100)}% of the time); ` +
        `load generator CPU ${results.clientCores} cores (waiting ${Math.round(clientCpuWaitShare * 100)}%), event-loop p99 ${results.clientEventLoopP99Ms} ms`,
    );
    for (const sample of errors.samples) log(`  error: ${sample}`);

    const label = `mixed ${cfg.agents}x${Math.round(results.uploadMiB)} MiB up, ${cfg.pollers} polling, ${cfg.downloaders} down`;
    const rows: Row[] = [
      reportRow(`${label}: upload total`, 'MiB/s', results.uploadMiBs),
      reportRow(`${label}: upload per agent`, 'MiB/s', results.uploadMiBsPerAgent),
      reportRow(`${label}: download total`, 'MiB/s', results.downloadMiBs),
      reportRow(`${label}: latest p50`, 'ms', results.latest.p50Ms),
      reportRow(`${label}: latest p99`, 'ms', results.latest.p99Ms),
      { ...limitRow(`${label}: errors`, '', errors.count, 1), target: '0 errors' },
      reportRow(`${label}: server RSS peak`, 'MiB', results.rss.peakMiB),
      reportRow(`${label}: server RSS drift (2nd half - 1st)`, 'MiB', results.rss.driftMiB),
      reportRow(`${label}: server CPU`, 'cores', results.serverCores),
      reportRow(`${label}: server waiting for a CPU`, '%', serverCpuWaitShare * 100),
      reportRow(`${label}: load generator CPU`, 'cores', results.clientCores),
    ];
    return { results, rows };
  } finally {
    await ws.close();
  }
}

/** bench/mixed-load-rss.png: the server's resident memory through the run. */
export function rssChart(results: MixedLoadResults): Chart {
  return {
    title: `Hangar RSS: ${results.agents} agents uploading, ${results.pollers} devices polling, ${results.downloaders} downloading`,
    xLabel: 'seconds',
    yLabel: 'MiB',
    series: [{ name: 'server RSS', points: results.timeline.map((p): [number, number] => [p.seconds, p.rssMiB]) }],
  };
}
