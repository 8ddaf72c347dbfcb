/**
 * Download: one release's file fetched from /download/releases/:id/<name> against a bare Node static
 * file server (http + fs.createReadStream) serving the very same file, alternating, several
 * repetitions (the file is in the page cache for both). Then N parallel downloads of a smaller
 * release: aggregate throughput, and the growth of Hangar's resident memory while they run.
 *
 * Target (reported): single-download throughput >= 80% of the baseline's. The parallel run is
 * reported (its memory should stay flat), with the bare server's numbers next to it.
 */
import { rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { CONFIG, GiB, MiB } from './lib/config.ts';
import { download, requestJson, type Transfer } from './lib/http.ts';
import { startBaseline } from './lib/proc.ts';
import { RssSampler, type RssReport } from './lib/rss.ts';
import { median, round } from './lib/stats.ts';
import { ratioRow, reportRow, type Row } from './lib/table.ts';
import { storedFile, uploadRelease, warmCache, type Workspace } from './lib/workspace.ts';

export const DOWNLOAD_MIN_RATIO = 0.8;

export interface DownloadRep {
  hangarMiBs: number;
  baselineMiBs: number;
  hangarRss: RssReport;
  baselineRss: RssReport;
}

export interface ParallelRep {
  hangarMiBs: number;
  baselineMiBs: number;
  hangarSeconds: number;
  baselineSeconds: number;
  hangarRss: RssReport;
  baselineRss: RssReport;
}

export interface DownloadResults {
  fileMiB: number;
  reps: DownloadRep[];
  hangarMiBs: number;
  baselineMiBs: number;
  ratio: number;
  target: number;
  /** the largest RSS growth during one download */
  hangarRssGrowthMiB: number;
  baselineRssGrowthMiB: number;
  /** server CPU seconds per GiB sent, medians */
  hangarCpuSecondsPerGiB: number;
  baselineCpuSecondsPerGiB: number;
  parallel: {
    clients: number;
    fileMiB: number;
    reps: ParallelRep[];
    /** aggregate MiB/s (all clients' bytes / wall time), medians */
    hangarMiBs: number;
    baselineMiBs: number;
    ratio: number;
    /** largest RSS growth of any repetition */
    hangarRssGrowthMiB: number;
    hangarRssPeakMiB: number;
    baselineRssGrowthMiB: number;
  };
}

/** The download URL of a release: /download/releases/:id redirects to its named path. */
export async function downloadUrl(base: string, releaseId: number): Promise<string> {
  const redirect = await requestJson('GET', `${base}/download/releases/${releaseId}`);
  const location = redirect.headers.location;
  if (redirect.status !== 302 || !location) throw new Error(`/download/releases/${releaseId}: ${redirect.status} ${redirect.text}`);
  return new URL(location, base).href;
}

function check(t: Transfer, size: number, what: string): void {
  if (t.status !== 200 || t.bytes !== size) throw new Error(`${what}: status ${t.status}, ${t.bytes} of ${size} bytes`);
}

async function parallel(url: string, clients: number, size: number, what: string): Promise<{ MiBs: number; seconds: number }> {
  const started = process.hrtime.bigint();
  const all = await Promise.all(Array.from({ length: clients }, () => download(url)));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  for (const t of all) check(t, size, what);
  return { MiBs: (clients * size) / MiB / seconds, seconds };
}

export async function benchDownload(ws: Workspace, releaseIdFromUpload: number | null, log: (line: string) => void): Promise<{ results: DownloadResults; rows: Row[] }> {
  let releaseId = releaseIdFromUpload;
  if (!releaseId) {
    const big = ws.bigIpa();
    releaseId = await uploadRelease(ws, big.path, 'BenchApp.ipa');
  }
  const file = storedFile(ws, releaseId);
  const size = statSync(file).size;
  const filesRoot = join(ws.dataDir, 'files');
  const baseline = await startBaseline('static', filesRoot);
  const baselineUrl = `${baseline.url}/${relative(filesRoot, file).split('/').map(encodeURIComponent).join('/')}`;
  try {
    const hangarUrl = await downloadUrl(ws.hangar.url, releaseId);
    warmCache(file); // both servers read the file from the page cache
    const reps: DownloadRep[] = [];
    for (let rep = 0; rep < CONFIG.downloadReps; rep += 1) {
      const order = rep % 2 === 0 ? (['baseline', 'hangar'] as const) : (['hangar', 'baseline'] as const);
      const partial: Partial<DownloadRep> = {};
      for (const which of order) {
        if (which === 'baseline') {
          const sampler = new RssSampler(baseline.pid);
          sampler.start();
          const t = await download(baselineUrl);
          partial.baselineRss = sampler.stop();
          check(t, size, 'baseline download');
          partial.baselineMiBs = t.bytes / MiB / t.seconds;
        } else {
          const sampler = new RssSampler(ws.hangar.pid);
          sampler.start();
          const t = await download(hangarUrl);
          partial.hangarRss = sampler.stop();
          check(t, size, 'Hangar download');
          partial.hangarMiBs = t.bytes / MiB / t.seconds;
        }
      }
      const done = partial as DownloadRep;
      reps.push(done);
      log(
        `  download #${rep + 1}: hangar ${done.hangarMiBs.toFixed(0)} MiB/s (CPU ${done.hangarRss.cpuSeconds.toFixed(2)} s, RSS +${done.hangarRss.growthMiB} MiB); ` +
          `baseline ${done.baselineMiBs.toFixed(0)} MiB/s (CPU ${done.baselineRss.cpuSeconds.toFixed(2)} s, RSS +${done.baselineRss.growthMiB} MiB)`,
      );
    }

    // N clients at once, on a smaller release
    const small = ws.makeIpa('parallel.ipa', CONFIG.parallelBytes);
    const smallId = await uploadRelease(ws, small.path, 'BenchParallel.ipa');
    rmSync(small.path, { force: true });
    const smallFile = storedFile(ws, smallId);
    warmCache(smallFile);
    const smallHangarUrl = await downloadUrl(ws.hangar.url, smallId);
    const smallBaselineUrl = `${baseline.url}/${relative(filesRoot, smallFile).split('/').map(encodeURIComponent).join('/')}`;
    const clients = CONFIG.parallelClients;
    const parallelReps: ParallelRep[] = [];
    for (let rep = 0; rep < CONFIG.parallelReps; rep += 1) {
      const hangarSampler = new RssSampler(ws.hangar.pid);
      hangarSampler.start();
      const h = await parallel(smallHangarUrl, clients, small.size, 'Hangar parallel download');
      const hangarRss = hangarSampler.stop();
      const baselineSampler = new RssSampler(baseline.pid);
      baselineSampler.start();
      const b = await parallel(smallBaselineUrl, clients, small.size, 'baseline parallel download');
      const baselineRss = baselineSampler.stop();
      parallelReps.push({ hangarMiBs: h.MiBs, baselineMiBs: b.MiBs, hangarSeconds: h.seconds, baselineSeconds: b.seconds, hangarRss, baselineRss });
      log(
        `  ${clients} parallel #${rep + 1}: hangar ${h.MiBs.toFixed(0)} MiB/s (CPU ${hangarRss.cpuSeconds.toFixed(2)} s, RSS +${hangarRss.growthMiB} MiB, peak ${hangarRss.peakMiB} MiB); ` +
          `baseline ${b.MiBs.toFixed(0)} MiB/s (CPU ${baselineRss.cpuSeconds.toFixed(2)} s, RSS +${baselineRss.growthMiB} MiB)`,
      );
    }

    const hangarMiBs = median(reps.map((r) => r.hangarMiBs));
    const baselineMiBs = median(reps.map((r) => r.baselineMiBs));
    const pHangar = median(parallelReps.map((r) => r.hangarMiBs));
    const pBaseline = median(parallelReps.map((r) => r.baselineMiBs));
    const results: DownloadResults = {
      fileMiB: round(size / MiB, 1),
      reps,
      hangarMiBs: round(hangarMiBs, 1),
      baselineMiBs: round(baselineMiBs, 1),
      ratio: round(hangarMiBs / baselineMiBs, 3),
      target: DOWNLOAD_MIN_RATIO,
      hangarRssGrowthMiB: Math.max(...reps.map((r) => r.hangarRss.growthMiB)),
      baselineRssGrowthMiB: Math.max(...reps.map((r) => r.baselineRss.growthMiB)),
      hangarCpuSecondsPerGiB: round(median(reps.map((r) => r.hangarRss.cpuSeconds)) / (size / GiB), 2),
      baselineCpuSecondsPerGiB: round(median(reps.map((r) => r.baselineRss.cpuSeconds)) / (size / GiB), 2),
      parallel: {
        clients,
        fileMiB: round(small.size / MiB, 1),
        reps: parallelReps,
        hangarMiBs: round(pHangar, 1),
        baselineMiBs: round(pBaseline, 1),
        ratio: round(pHangar / pBaseline, 3),
        hangarRssGrowthMiB: Math.max(...parallelReps.map((r) => r.hangarRss.growthMiB)),
        hangarRssPeakMiB: Math.max(...parallelReps.map((r) => r.hangarRss.peakMiB)),
        baselineRssGrowthMiB: Math.max(...parallelReps.map((r) => r.baselineRss.growthMiB)),
      },
    };
    const label = `${Math.round(size / MiB)} MiB`;
    const pLabel = `${clients}x${Math.round(small.size / MiB)} MiB`;
    const rows: Row[] = [
      ratioRow(`download ${label} throughput`, 'MiB/s', hangarMiBs, baselineMiBs, DOWNLOAD_MIN_RATIO),
      { ...reportRow(`download ${label} server RSS growth`, 'MiB', results.hangarRssGrowthMiB), baseline: results.baselineRssGrowthMiB },
      reportRow(`download server CPU per GiB`, 's', results.hangarCpuSecondsPerGiB, results.baselineCpuSecondsPerGiB),
      reportRow(`download ${pLabel} parallel aggregate`, 'MiB/s', pHangar, pBaseline),
      { ...reportRow(`download ${pLabel} server RSS growth`, 'MiB', results.parallel.hangarRssGrowthMiB), baseline: results.parallel.baselineRssGrowthMiB },
    ];
    return { results, rows };
  } finally {
    await baseline.stop();
  }
}
