/**
 * Resident memory of a server process, read from /proc/<pid>/status (VmRSS, VmHWM) every 100 ms,
 * and the CPU time it used meanwhile (/proc/<pid>/stat: less disturbed by other load on the machine
 * than throughput is).
 * At start the kernel's high-water mark is reset (writing 5 to /proc/<pid>/clear_refs, Linux >= 4.0)
 * so that VmHWM at the end is the true peak of the measured interval, spikes between samples included;
 * where the reset is refused, the peak is the highest sample. Every sample is kept in `timeline`
 * (for plots of memory over a long run).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { round } from './stats.ts';

const KiB = 1024;
const MiB = 1024 * 1024;

export interface ProcMemory {
  rssBytes: number;
  hwmBytes: number;
}

export function readMemory(pid: number): ProcMemory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string): number => {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
    if (!match) throw new Error(`no ${name} in /proc/${pid}/status`);
    return Number(match[1]) * KiB;
  };
  return { rssBytes: field('VmRSS'), hwmBytes: field('VmHWM') };
}

/** CPU time (user + system) a process has used so far, in seconds. */
export function readCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // the fields after the command name (which may contain spaces) in parentheses
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/**
 * Time a process's main thread (for Node: its event loop) has spent runnable but waiting for a CPU,
 * in seconds (/proc/<pid>/schedstat): how much other work on the machine held it back.
 */
export function readRunDelaySeconds(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1]) / 1e9;
}

/** USER_HZ: 100 on every Linux this runs on (sysconf(_SC_CLK_TCK) is not reachable from Node). */
const CLOCK_TICKS = 100;

export interface RssReport {
  /** RSS just before the measured interval */
  beforeMiB: number;
  /** the highest RSS during it (VmHWM after a reset, else the highest sample) */
  peakMiB: number;
  /** the highest of the 100 ms samples */
  sampledPeakMiB: number;
  /** RSS at the end */
  afterMiB: number;
  /** peak - before */
  growthMiB: number;
  hwmReset: boolean;
  samples: number;
  /** CPU seconds (user + system) the process used during the interval */
  cpuSeconds: number;
}

export interface RssPoint {
  /** seconds since start() */
  seconds: number;
  rssMiB: number;
}

export class RssSampler {
  readonly pid: number;
  readonly timeline: RssPoint[] = [];
  private startedAt = 0;
  private timer: NodeJS.Timeout | null = null;
  private before = 0;
  private sampledPeak = 0;
  private samples = 0;
  private hwmReset = false;
  private cpuBefore = 0;

  constructor(pid: number) {
    this.pid = pid;
  }

  start(intervalMs = 100): void {
    try {
      writeFileSync(`/proc/${this.pid}/clear_refs`, '5');
      this.hwmReset = true;
    } catch {
      this.hwmReset = false;
    }
    this.cpuBefore = readCpuSeconds(this.pid);
    this.before = readMemory(this.pid).rssBytes;
    this.sampledPeak = this.before;
    this.samples = 1;
    this.startedAt = performance.now();
    this.timeline.length = 0;
    this.timeline.push({ seconds: 0, rssMiB: round(this.before / MiB, 1) });
    this.timer = setInterval(() => this.sample(), intervalMs);
  }

  private sample(): number {
    const { rssBytes } = readMemory(this.pid);
    this.samples += 1;
    if (rssBytes > this.sampledPeak) this.sampledPeak = rssBytes;
    this.timeline.push({ seconds: round((performance.now() - this.startedAt) / 1000, 2), rssMiB: round(rssBytes / MiB, 1) });
    return rssBytes;
  }

  stop(): RssReport {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const after = this.sample();
    const { hwmBytes } = readMemory(this.pid);
    const cpuSeconds = round(readCpuSeconds(this.pid) - this.cpuBefore, 2);
    const peak = this.hwmReset ? Math.max(hwmBytes, this.sampledPeak) : this.sampledPeak;
    const mib = (bytes: number) => round(bytes / MiB, 1);
    return {
      beforeMiB: mib(this.before),
      peakMiB: mib(peak),
      sampledPeakMiB: mib(this.sampledPeak),
      afterMiB: mib(after),
      growthMiB: mib(peak - this.before),
      hwmReset: this.hwmReset,
      samples: this.samples,
      cpuSeconds,
    };
  }
}
