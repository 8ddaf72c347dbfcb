/**
 * Upload: the large package POSTed to /api/apps/upload (multipart, streamed from disk, Content-Length)
 * against a bare Node http server that pipes the same request body to disk, alternating, several
 * repetitions, dirty pages flushed before each. Hangar's resident memory is sampled throughout (the
 * stream to disk, the hashing, the parse and the move into place: the whole request).
 *
 * Targets (reported): throughput >= 70% of the baseline's; RSS growth < 64 MiB.
 */
import { rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { ADMIN_TOKEN, CONFIG, GiB, MiB } from './lib/config.ts';
import { requestJson, uploadMultipart, type Transfer } from './lib/http.ts';
import { removeTempDir, startBaseline, tempDir } from './lib/proc.ts';
import { RssSampler, type RssReport } from './lib/rss.ts';
import { median, round } from './lib/stats.ts';
import { limitRow, ratioRow, reportRow, type Row } from './lib/table.ts';
import { syncDisks, type Workspace } from './lib/workspace.ts';

export const UPLOAD_MIN_RATIO = 0.7;
export const UPLOAD_MAX_RSS_GROWTH_MIB = 64;

export interface UploadRep {
  hangarMiBs: number;
  baselineMiBs: number;
  hangarSeconds: number;
  baselineSeconds: number;
  /** from the last byte sent to the answer: what the server does after the body (parse, record, move) */
  hangarTailSeconds: number;
  baselineTailSeconds: number;
  hangarRss: RssReport;
  baselineRss: RssReport;
}

export interface UploadResults {
  fileMiB: number;
  reps: UploadRep[];
  /** medians over the repetitions */
  hangarMiBs: number;
  baselineMiBs: number;
  ratio: number;
  target: number;
  /** the largest RSS growth of any repetition */
  hangarRssGrowthMiB: number;
  baselineRssGrowthMiB: number;
  /** the RSS growth of the repetitions after the first (the first one grows the heap once) */
  hangarRssGrowthLaterMiB: number | null;
  rssTargetMiB: number;
  /** server CPU seconds (user + system) per GiB uploaded, medians */
  hangarCpuSecondsPerGiB: number;
  baselineCpuSecondsPerGiB: number;
  /** the release the last upload made (the download benchmark reuses it) */
  releaseId: number;
}

function throughput(t: Transfer): number {
  return t.bytes / MiB / t.seconds;
}

export async function benchUpload(ws: Workspace, log: (line: string) => void): Promise<{ results: UploadResults; rows: Row[] }> {
  const big = ws.bigIpa();
  const sinkDir = tempDir('sink');
  const baseline = await startBaseline('sink', sinkDir);
  const reps: UploadRep[] = [];
  let releaseId = 0;
  let baselineFile: string | null = null;
  /**
   * Both sides start alike: their previous upload removed (only one copy each on disk), dirty pages
   * flushed, a moment's pause. On a VM whose free pages go back to the host, whoever writes right
   * after a large delete pays for faulting pages in again; this way each side pays for its own.
   */
  async function prepare(which: 'hangar' | 'baseline'): Promise<void> {
    if (which === 'baseline' && baselineFile) {
      rmSync(baselineFile, { force: true });
      baselineFile = null;
    }
    if (which === 'hangar' && releaseId) {
      const removed = await requestJson('DELETE', `${ws.hangar.url}/api/releases/${releaseId}`, { token: ADMIN_TOKEN });
      if (removed.status !== 200) throw new Error(`delete release ${releaseId}: ${removed.status} ${removed.text}`);
    }
    syncDisks();
    await sleep(500);
  }

  try {
    for (let rep = 0; rep < CONFIG.uploadReps; rep += 1) {
      // alternate who goes first
      const order = rep % 2 === 0 ? (['baseline', 'hangar'] as const) : (['hangar', 'baseline'] as const);
      const partial: Partial<UploadRep> = {};
      for (const which of order) {
        await prepare(which);
        if (which === 'baseline') {
          const sampler = new RssSampler(baseline.pid);
          sampler.start();
          const t = await uploadMultipart({ url: `${baseline.url}/upload`, filePath: big.path, fileName: 'BenchApp.ipa', fields: { channel_key: ws.channelKey } });
          partial.baselineRss = sampler.stop();
          if (t.status !== 201) throw new Error(`baseline upload: ${t.status} ${t.body}`);
          baselineFile = (JSON.parse(t.body) as { file: string }).file;
          partial.baselineMiBs = throughput(t);
          partial.baselineSeconds = t.seconds;
          partial.baselineTailSeconds = round(t.seconds - t.sentSeconds, 3);
        } else {
          const sampler = new RssSampler(ws.hangar.pid);
          sampler.start();
          const t = await uploadMultipart({
            url: `${ws.hangar.url}/api/apps/upload`,
            token: ADMIN_TOKEN,
            filePath: big.path,
            fileName: 'BenchApp.ipa',
            fields: { channel_key: ws.channelKey },
          });
          partial.hangarRss = sampler.stop();
          if (t.status !== 201) throw new Error(`Hangar upload: ${t.status} ${t.body.slice(0, 500)}`);
          releaseId = (JSON.parse(t.body) as { id: number }).id;
          partial.hangarMiBs = throughput(t);
          partial.hangarSeconds = t.seconds;
          partial.hangarTailSeconds = round(t.seconds - t.sentSeconds, 3);
        }
      }
      const done = partial as UploadRep;
      reps.push(done);
      log(
        `  upload #${rep + 1}: hangar ${done.hangarMiBs.toFixed(0)} MiB/s (${done.hangarSeconds.toFixed(2)} s, answer ${done.hangarTailSeconds.toFixed(3)} s after the last byte, ` +
          `CPU ${done.hangarRss.cpuSeconds.toFixed(2)} s, RSS +${done.hangarRss.growthMiB} MiB); ` +
          `baseline ${done.baselineMiBs.toFixed(0)} MiB/s (${done.baselineSeconds.toFixed(2)} s, CPU ${done.baselineRss.cpuSeconds.toFixed(2)} s, RSS +${done.baselineRss.growthMiB} MiB)`,
      );
    }
  } finally {
    await baseline.stop();
    removeTempDir(sinkDir);
  }

  const hangarMiBs = median(reps.map((r) => r.hangarMiBs));
  const baselineMiBs = median(reps.map((r) => r.baselineMiBs));
  const results: UploadResults = {
    fileMiB: round(big.size / MiB, 1),
    reps,
    hangarMiBs: round(hangarMiBs, 1),
    baselineMiBs: round(baselineMiBs, 1),
    ratio: round(hangarMiBs / baselineMiBs, 3),
    target: UPLOAD_MIN_RATIO,
    hangarRssGrowthMiB: Math.max(...reps.map((r) => r.hangarRss.growthMiB)),
    baselineRssGrowthMiB: Math.max(...reps.map((r) => r.baselineRss.growthMiB)),
    hangarRssGrowthLaterMiB: reps.length > 1 ? Math.max(...reps.slice(1).map((r) => r.hangarRss.growthMiB)) : null,
    rssTargetMiB: UPLOAD_MAX_RSS_GROWTH_MIB,
    hangarCpuSecondsPerGiB: round(median(reps.map((r) => r.hangarRss.cpuSeconds)) / (big.size / GiB), 2),
    baselineCpuSecondsPerGiB: round(median(reps.map((r) => r.baselineRss.cpuSeconds)) / (big.size / GiB), 2),
    releaseId,
  };
  const size = `${Math.round(big.size / MiB)} MiB`;
  const rows = [
    ratioRow(`upload ${size} throughput`, 'MiB/s', hangarMiBs, baselineMiBs, UPLOAD_MIN_RATIO),
    { ...limitRow(`upload ${size} server RSS growth`, 'MiB', results.hangarRssGrowthMiB, UPLOAD_MAX_RSS_GROWTH_MIB), baseline: results.baselineRssGrowthMiB },
    reportRow(`upload server CPU per GiB`, 's', results.hangarCpuSecondsPerGiB, results.baselineCpuSecondsPerGiB),
  ];
  return { results, rows };
}
