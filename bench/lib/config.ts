/**
 * Benchmark settings. The full run is the default; BENCH_QUICK=1 shrinks everything so that the
 * whole suite can be smoke-tested in CI in a minute or so. BENCH_ONLY=upload,download,latest,mixed,growth
 * runs a subset (upload and download share one Hangar server; download uploads its own file when run
 * alone).
 *
 * For investigations: BENCH_UPLOAD_BYTES=<bytes> changes the size of the uploaded package;
 * BENCH_HANGAR_ROOT=<dir> runs the Hangar of another checkout (e.g. a scratch copy with a change);
 * BENCH_HANGAR_NODE_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/prof" passes Node flags to the Hangar process only;
 * BENCH_HANGAR_LOG_LEVEL=warn changes its log level (default: info, as shipped).
 *
 * The mixed load (BENCH_ONLY=mixed) takes BENCH_MIXED_SECONDS, BENCH_MIXED_AGENTS, BENCH_MIXED_UPLOAD_MIB,
 * BENCH_MIXED_POLLERS, BENCH_MIXED_POLL_MS, BENCH_MIXED_DOWNLOADERS and BENCH_MIXED_DOWNLOAD_MIB; the
 * growth benchmark (BENCH_ONLY=growth) BENCH_GROWTH_SIZES=1000,10000,... (releases).
 */
import { fileURLToPath } from 'node:url';

const MiB = 1024 * 1024;

export const QUICK = process.env.BENCH_QUICK === '1' || process.env.BENCH_QUICK === 'true';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface BenchConfig {
  quick: boolean;
  /** the package uploaded (and then downloaded) against the bare baselines */
  uploadBytes: number;
  uploadReps: number;
  downloadReps: number;
  /** the parallel download: this many clients fetch one file of this size at once */
  parallelClients: number;
  parallelBytes: number;
  parallelReps: number;
  /** GET /api/apps/latest */
  channels: number;
  releasesPerChannel: number;
  connections: number;
  /** warm-up of each round, not counted */
  warmupMs: number;
  /** measured time per server, split over `rounds` that alternate Hangar and the baseline */
  durationMs: number;
  rounds: number;
  mixed: MixedConfig;
  growth: GrowthConfig;
}

/** bench/mixed-load.ts: CI agents uploading, devices polling `latest`, testers downloading, all at once */
export interface MixedConfig {
  seconds: number;
  /** CI agents, each uploading a package of uploadBytes again and again */
  agents: number;
  uploadBytes: number;
  /** devices polling `latest`, each waiting pollMs after an answer before asking again */
  pollers: number;
  pollMs: number;
  /** testers downloading a release of downloadBytes again and again */
  downloaders: number;
  downloadBytes: number;
}

/** bench/growth.ts: endpoint times on databases of these many releases */
export interface GrowthConfig {
  sizes: number[];
  /** timed requests per read endpoint and size (the median is reported) */
  reads: number;
  /** timed uploads per size */
  uploads: number;
}

/** A number from the environment (0 allowed, e.g. no downloaders), else the default. */
function envNumber(name: string, fallback: number): number {
  const value = process.env[name];
  return value !== undefined && value !== '' && Number.isFinite(Number(value)) ? Number(value) : fallback;
}

function mixedConfig(quick: boolean): MixedConfig {
  return {
    seconds: envNumber('BENCH_MIXED_SECONDS', quick ? 15 : 120),
    agents: envNumber('BENCH_MIXED_AGENTS', 8),
    uploadBytes: envNumber('BENCH_MIXED_UPLOAD_MIB', quick ? 8 : 100) * MiB,
    pollers: envNumber('BENCH_MIXED_POLLERS', quick ? 40 : 200),
    pollMs: envNumber('BENCH_MIXED_POLL_MS', 1000),
    downloaders: envNumber('BENCH_MIXED_DOWNLOADERS', quick ? 4 : 20),
    downloadBytes: envNumber('BENCH_MIXED_DOWNLOAD_MIB', quick ? 8 : 100) * MiB,
  };
}

function growthConfig(quick: boolean): GrowthConfig {
  const sizes = process.env.BENCH_GROWTH_SIZES?.split(',').map(Number).filter((n) => n > 0);
  return {
    sizes: sizes?.length ? sizes : quick ? [1_000, 10_000] : [1_000, 10_000, 100_000, 1_000_000],
    reads: quick ? 50 : 200,
    uploads: quick ? 3 : 7,
  };
}

export const CONFIG: BenchConfig = QUICK
  ? {
      quick: true,
      uploadBytes: Number(process.env.BENCH_UPLOAD_BYTES) || 128 * MiB,
      uploadReps: 1,
      downloadReps: 1,
      parallelClients: 20,
      parallelBytes: 32 * MiB,
      parallelReps: 1,
      channels: 100,
      releasesPerChannel: 100,
      connections: 50,
      warmupMs: 1000,
      durationMs: 3000,
      rounds: 1,
      mixed: mixedConfig(true),
      growth: growthConfig(true),
    }
  : {
      quick: false,
      uploadBytes: Number(process.env.BENCH_UPLOAD_BYTES) || 1024 * MiB,
      uploadReps: 4,
      downloadReps: 3,
      parallelClients: 20,
      parallelBytes: 200 * MiB,
      parallelReps: 2,
      channels: 1000,
      releasesPerChannel: 100,
      connections: 50,
      warmupMs: 2000,
      durationMs: 10000,
      rounds: 2,
      mixed: mixedConfig(false),
      growth: growthConfig(false),
    };

export const ONLY: Set<string> | null = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',').map((s) => s.trim())) : null;

export function selected(name: string): boolean {
  return ONLY === null || ONLY.has(name);
}

export const ADMIN_TOKEN = 'hgr_bench-admin-token-0123456789abcdef';

export const GiB = 1024 * MiB;

export { MiB };
