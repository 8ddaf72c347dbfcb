/**
 * Benchmark settings. The full run is the default; BENCH_QUICK=1 shrinks everything so that the
 * whole suite can be smoke-tested in CI in a minute or so. BENCH_ONLY=upload,download,latest runs a
 * subset (upload and download share one Hangar server; download uploads its own file when run alone).
 *
 * For investigations: BENCH_UPLOAD_BYTES=<bytes> changes the size of the uploaded package;
 * BENCH_HANGAR_ROOT=<dir> runs the Hangar of another checkout (e.g. a scratch copy with a change);
 * BENCH_HANGAR_NODE_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/prof" passes Node flags to the Hangar process only;
 * BENCH_HANGAR_LOG_LEVEL=warn changes its log level (default: info, as shipped).
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
    };

export const ONLY: Set<string> | null = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',').map((s) => s.trim())) : null;

export function selected(name: string): boolean {
  return ONLY === null || ONLY.has(name);
}

export const ADMIN_TOKEN = 'hgr_bench-admin-token-0123456789abcdef';

export const GiB = 1024 * MiB;

export { MiB };
