/**
 * `npm run bench`: Hangar against bare baselines measured in the same run, on this machine.
 *
 *   upload    a large .ipa POSTed to /api/apps/upload vs a bare http server piping the body to disk
 *   download  the same file from /download/releases/:id/<name> vs a bare http + createReadStream server;
 *             then parallel downloads of a smaller release (aggregate throughput, server memory)
 *   latest    GET /api/apps/latest on a seeded database vs a bare Fastify route with a constant body
 *   mixed     CI agents uploading, devices polling `latest` and testers downloading at once, for minutes:
 *             throughput, latency, errors, memory over time (bench/mixed-load-rss.png)
 *   growth    versions, latest, the app list and upload on databases of 1k to 1M releases: each must
 *             stay flat (bench/growth.png)
 *
 * Prints a table and writes bench/results.json (and the plots named above). Targets are reported, not
 * asserted: the exit code is 0 unless a benchmark could not run. BENCH_QUICK=1 runs a short version
 * (CI smoke test); BENCH_ONLY=upload,download,latest,mixed,growth runs a subset.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { benchDownload, type DownloadResults } from './download.ts';
import { benchGrowth, growthChart, type GrowthResults } from './growth.ts';
import { benchLatest, type LatestResults } from './latest.ts';
import { CONFIG, MiB, selected } from './lib/config.ts';
import { writeChart } from './lib/plot.ts';
import { cleanup, installCleanup } from './lib/proc.ts';
import { renderTable, type Row } from './lib/table.ts';
import { openWorkspace, type Workspace } from './lib/workspace.ts';
import { benchMixedLoad, rssChart, type MixedLoadResults } from './mixed-load.ts';
import { benchUpload, type UploadResults } from './upload.ts';

const RESULTS_FILE = fileURLToPath(new URL('./results.json', import.meta.url));
const GROWTH_PLOT = fileURLToPath(new URL('./growth.png', import.meta.url));
const MIXED_RSS_PLOT = fileURLToPath(new URL('./mixed-load-rss.png', import.meta.url));

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

function diskFree(path: string): string {
  try {
    return execFileSync('df', ['-h', '--output=avail', path], { encoding: 'utf8' }).trim().split('\n').pop()!.trim();
  } catch {
    return 'unknown';
  }
}

async function main(): Promise<number> {
  installCleanup();
  const cpu = cpus();
  const machine = {
    cpuCount: cpu.length,
    cpuModel: cpu[0]?.model ?? 'unknown',
    memoryMiB: Math.round(totalmem() / MiB),
    freeMemoryMiB: Math.round(freemem() / MiB),
    node: process.version,
    platform: `${platform()} ${release()}`,
    date: new Date().toISOString(),
    /** 1/5/15-minute load averages: other work on the machine makes throughput numbers noisy */
    loadAverageStart: loadavg().map((l) => Math.round(l * 100) / 100),
    loadAverageEnd: [] as number[],
  };
  log(`Hangar benchmarks (${CONFIG.quick ? 'quick' : 'full'}): ${machine.cpuCount} CPUs (${machine.cpuModel}), node ${machine.node}, ${diskFree(tmpdir())} free in ${tmpdir()}`);
  if (machine.loadAverageStart[0]! > machine.cpuCount * 0.5) log(`warning: load average ${machine.loadAverageStart.join(' ')} on ${machine.cpuCount} CPUs: other work on this machine will make the numbers noisy`);

  const rows: Row[] = [];
  const failures: string[] = [];
  const results: { upload?: UploadResults; download?: DownloadResults; latest?: LatestResults; mixed?: MixedLoadResults; growth?: GrowthResults } = {};

  /** Runs one benchmark: its rows join the table; a failure is recorded and the others go on. */
  async function attempt<T>(name: string, run: () => Promise<{ results: T; rows: Row[] }>): Promise<T | undefined> {
    try {
      const done = await run();
      rows.push(...done.rows);
      return done.results;
    } catch (error) {
      failures.push(`${name}: ${(error as Error).stack ?? error}`);
      log(`  ${name} FAILED: ${(error as Error).message}`);
      return undefined;
    }
  }

  if (selected('upload') || selected('download')) {
    let ws: Workspace | null = null;
    try {
      ws = await openWorkspace(CONFIG.uploadBytes);
      let releaseId: number | null = null;
      if (selected('upload')) {
        log(`upload: ${Math.round(CONFIG.uploadBytes / MiB)} MiB, ${CONFIG.uploadReps} repetition(s)`);
        try {
          const upload = await benchUpload(ws, log);
          results.upload = upload.results;
          rows.push(...upload.rows);
          releaseId = upload.results.releaseId;
        } catch (error) {
          failures.push(`upload: ${(error as Error).stack ?? error}`);
          log(`  upload FAILED: ${(error as Error).message}`);
        }
      }
      if (selected('download')) {
        log(`download: ${CONFIG.downloadReps} repetition(s); ${CONFIG.parallelClients} parallel x ${Math.round(CONFIG.parallelBytes / MiB)} MiB`);
        try {
          const download = await benchDownload(ws, releaseId, log);
          results.download = download.results;
          rows.push(...download.rows);
        } catch (error) {
          failures.push(`download: ${(error as Error).stack ?? error}`);
          log(`  download FAILED: ${(error as Error).message}`);
        }
      }
    } catch (error) {
      failures.push(`upload/download setup: ${(error as Error).stack ?? error}`);
      log(`  setup FAILED: ${(error as Error).message}`);
    } finally {
      await ws?.close();
    }
  }

  if (selected('latest')) {
    log(`latest: ${CONFIG.channels} channels x ${CONFIG.releasesPerChannel} releases, ${CONFIG.connections} connections, ${CONFIG.durationMs / 1000} s`);
    results.latest = await attempt('latest', () => benchLatest(log));
  }

  if (selected('mixed')) {
    const m = CONFIG.mixed;
    log(`mixed: ${m.seconds} s of ${m.agents} agents uploading ${m.uploadBytes / MiB} MiB, ${m.pollers} devices polling every ${m.pollMs} ms, ${m.downloaders} testers downloading ${m.downloadBytes / MiB} MiB`);
    results.mixed = await attempt('mixed', () => benchMixedLoad(log));
  }

  if (selected('growth')) {
    log(`growth: ${CONFIG.growth.sizes.join(', ')} releases; median of ${CONFIG.growth.reads} reads and ${CONFIG.growth.uploads} uploads each`);
    results.growth = await attempt('growth', () => benchGrowth(log));
  }

  machine.loadAverageEnd = loadavg().map((l) => Math.round(l * 100) / 100);
  log('');
  log(renderTable(rows));
  log(`load average at start ${machine.loadAverageStart.join(' ')}, at end ${machine.loadAverageEnd.join(' ')}`);
  writeFileSync(RESULTS_FILE, JSON.stringify({ machine, config: CONFIG, rows, ...results, failures }, null, 2) + '\n');
  log(`\nwrote ${RESULTS_FILE}`);
  if (results.growth) {
    writeChart(GROWTH_PLOT, growthChart(results.growth));
    log(`wrote ${GROWTH_PLOT}`);
  }
  if (results.mixed) {
    writeChart(MIXED_RSS_PLOT, rssChart(results.mixed));
    log(`wrote ${MIXED_RSS_PLOT}`);
  }
  if (failures.length > 0) {
    process.stderr.write(`\n${failures.length} benchmark(s) could not run:\n${failures.join('\n\n')}\n`);
    return 1;
  }
  return 0;
}

main().then(
  (code) => {
    cleanup();
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`bench: ${(error as Error).stack ?? String(error)}\n`);
    cleanup();
    process.exitCode = 1;
  },
);
