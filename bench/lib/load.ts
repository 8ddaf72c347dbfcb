/**
 * A closed-loop HTTP/1.1 load generator: N keep-alive connections, each sending its next GET as soon
 * as the previous answer is complete. It speaks HTTP over raw sockets (requests are preformatted,
 * answers are framed by Content-Length only) so that the client, which shares the machine's cores
 * with the server, costs as little CPU as possible and disturbs the server and the baseline alike.
 *
 * A warm-up runs first and is not counted; then responses completed within the measured window count,
 * and their latencies (request written to last byte read) give p50/p99.
 */
import { connect, type Socket } from 'node:net';
import { percentile } from './stats.ts';

export interface LoadOptions {
  host: string;
  port: number;
  /** the path (with query) of each request; called per request */
  path: () => string;
  connections: number;
  warmupMs: number;
  durationMs: number;
}

/** One run's raw numbers; summarize() turns one or more runs into a LoadResult. */
export interface RawLoad {
  /** latencies (ms) of the counted answers */
  latencies: Float64Array;
  bodyBytes: number;
  /** answers completed in the whole run, warm-up included */
  allRequests: number;
  non2xx: number;
  errors: number;
  seconds: number;
}

export interface LoadResult {
  requests: number;
  /** answers completed in the whole run(s), warm-ups included */
  allRequests: number;
  rps: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  meanMs: number;
  /** answers other than 2xx, anywhere in the run */
  non2xx: number;
  errors: number;
  /** mean body bytes of the counted answers */
  meanBodyBytes: number;
  seconds: number;
}

const HEADER_END = Buffer.from('\r\n\r\n');

export function closedLoop(options: LoadOptions): Promise<RawLoad> {
  const { host, port, connections } = options;
  const hostHeader = `${host}:${port}`;
  const t0 = performance.now();
  const measureFrom = t0 + options.warmupMs;
  const measureTo = measureFrom + options.durationMs;

  let latencies = new Float64Array(1 << 16);
  let count = 0;
  let allRequests = 0;
  let bodyBytes = 0;
  let non2xx = 0;
  let errors = 0;
  let firstError: Error | null = null;

  function record(ms: number, bytes: number): void {
    if (count === latencies.length) {
      const bigger = new Float64Array(latencies.length * 2);
      bigger.set(latencies);
      latencies = bigger;
    }
    latencies[count++] = ms;
    bodyBytes += bytes;
  }

  function runConnection(): Promise<void> {
    return new Promise<void>((resolve) => {
      const socket: Socket = connect({ host, port, noDelay: true });
      let pending: Buffer | null = null;
      let headerLength = -1;
      let bodyLength = 0;
      let status = 0;
      let sentAt = 0;
      let done = false;

      function finish(error?: Error): void {
        if (done) return;
        done = true;
        if (error) {
          errors += 1;
          firstError ??= error;
        }
        socket.destroy();
        resolve();
      }

      function send(): void {
        if (performance.now() >= measureTo) {
          finish();
          return;
        }
        sentAt = performance.now();
        socket.write(`GET ${options.path()} HTTP/1.1\r\nHost: ${hostHeader}\r\nAccept: application/json\r\nConnection: keep-alive\r\n\r\n`);
      }

      socket.on('connect', send);
      socket.on('error', (error) => finish(error));
      socket.on('close', () => finish(done ? undefined : new Error('connection closed by the server')));
      socket.on('data', (chunk: Buffer) => {
        pending = pending === null ? chunk : Buffer.concat([pending, chunk]);
        while (pending !== null) {
          if (headerLength < 0) {
            const end = pending.indexOf(HEADER_END);
            if (end < 0) return;
            const head = pending.toString('latin1', 0, end);
            status = Number(head.slice(9, 12));
            const length = /\r\ncontent-length:[ \t]*(\d+)/i.exec(head);
            if (!length) {
              finish(new Error(`an answer without Content-Length: ${head.split('\r\n')[0]}`));
              return;
            }
            headerLength = end + 4;
            bodyLength = Number(length[1]);
          }
          const total = headerLength + bodyLength;
          if (pending.length < total) return;
          const now = performance.now();
          allRequests += 1;
          if (status < 200 || status >= 300) non2xx += 1;
          else if (sentAt >= measureFrom && now <= measureTo) record(now - sentAt, bodyLength);
          pending = pending.length > total ? pending.subarray(total) : null;
          headerLength = -1;
          send();
        }
      });
    });
  }

  return Promise.all(Array.from({ length: connections }, runConnection)).then(() => {
    if (count === 0) throw new Error(`no successful responses (${errors} errors, ${non2xx} non-2xx)${firstError ? `: ${(firstError as Error).message}` : ''}`);
    return { latencies: latencies.slice(0, count), bodyBytes, allRequests, non2xx, errors, seconds: options.durationMs / 1000 };
  });
}

/** Requests/second and latency percentiles over one or more measured runs (their windows added up). */
export function summarize(runs: RawLoad[]): LoadResult {
  let count = 0;
  for (const run of runs) count += run.latencies.length;
  const sorted = new Float64Array(count);
  let at = 0;
  let sum = 0;
  let seconds = 0;
  let bodyBytes = 0;
  let allRequests = 0;
  let non2xx = 0;
  let errors = 0;
  for (const run of runs) {
    sorted.set(run.latencies, at);
    at += run.latencies.length;
    for (const ms of run.latencies) sum += ms;
    seconds += run.seconds;
    bodyBytes += run.bodyBytes;
    allRequests += run.allRequests;
    non2xx += run.non2xx;
    errors += run.errors;
  }
  sorted.sort();
  return {
    requests: count,
    allRequests,
    rps: count / seconds,
    p50Ms: percentile(sorted, 50),
    p90Ms: percentile(sorted, 90),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted[sorted.length - 1] ?? Number.NaN,
    meanMs: sum / count,
    non2xx,
    errors,
    meanBodyBytes: bodyBytes / count,
    seconds,
  };
}
