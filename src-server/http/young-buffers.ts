/**
 * Frees the buffers a large upload or download streams through while it streams, so that moving a
 * build costs neither a full garbage collection every few dozen MiB nor 64 MiB of memory.
 *
 * Why: Node hands every piece of a request body to JavaScript as a new Buffer (its HTTP parser
 * copies what it read from the socket, up to 64 KiB at a time), and only a garbage collection gives
 * that memory back. A young-generation collection (scavenge) would free them for well under a
 * millisecond, but the upload path allocates so few JavaScript objects per piece that Node 24's
 * young generation (tens of MiB) hardly ever fills; long before it does, V8's external-memory limit
 * (64 MiB of buffers since the last full collection) starts a full mark-compact of the whole heap:
 * about 27 per GiB uploaded, each marking every module, schema and route the server has loaded. In
 * `npm run bench` that made the server spend twice the CPU of a bare Node server on the same upload
 * (3.2–4.2 s per GiB against 2.0 s) and reach 65 MiB of growth.
 *
 * Downloads are the same story the other way round: every read from the file is a new 256 KiB
 * buffer, garbage once the socket has taken it.
 *
 * So the streams that carry a build report what passed through them here, and every `everyBytes`
 * (16 MiB) of it one scavenge runs: the buffers already written to disk or socket are gone before
 * the external-memory limit is ever reached. Measured with `npm run bench` on this 2-core machine
 * (four runs): a 1 GiB upload went from 3.6–4.2 to 1.9 server CPU seconds per GiB (57–65% → 103–118%
 * of the bare server's throughput) and from +65 to +17–20 MiB of memory; a 1 GiB download from
 * ~2.0 to 0.75 CPU seconds per GiB and from +40–100 to +2–5 MiB.
 *
 * The scavenge is V8's own `gc({ type: 'minor' })`, fetched once at load: `--expose-gc` is switched
 * on only while one fresh context is made to take its `gc` from, then off again, so nothing else
 * (no other context, no module) sees it. Where that is not possible the pacing is a no-op and V8
 * collects as it would have.
 */
import type { Readable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Runs one young-generation collection. */
export type MinorCollector = () => void;

/**
 * Bytes between two scavenges: a quarter of V8's 64 MiB external-memory step. The buffers a
 * scavenge finds dead are given back by a sweep on a helper thread, so the count V8 checks falls
 * some time later; at half the step (32 MiB) full collections came back in most benchmark runs,
 * at a quarter they did not. It costs about 64 scavenges of under a millisecond per GiB.
 */
export const SCAVENGE_EVERY_BYTES = 16 * 1024 * 1024;

/** V8's scavenge, or null where it cannot be had. */
function v8MinorCollector(): MinorCollector | null {
  const exposed = (globalThis as { gc?: unknown }).gc; // node --expose-gc
  let gc: unknown = exposed;
  if (typeof gc !== 'function') {
    try {
      setFlagsFromString('--expose-gc');
      gc = runInNewContext('gc');
    } catch {
      gc = null;
    } finally {
      setFlagsFromString('--no-expose-gc');
    }
  }
  if (typeof gc !== 'function') return null;
  const collect = gc as (options: { type: 'minor' | 'major' }) => void;
  return () => collect({ type: 'minor' });
}

/**
 * Counts the bytes of builds streaming through and runs the collector each time another
 * `everyBytes` have passed, over every upload and download of the process together (twenty parallel
 * transfers share one pace, they do not each add one).
 */
export class YoungBufferPacer {
  private sinceLast = 0;
  /** scavenges run so far */
  collections = 0;

  private readonly collector: MinorCollector | null;
  readonly everyBytes: number;

  constructor(collector: MinorCollector | null, everyBytes = SCAVENGE_EVERY_BYTES) {
    this.collector = collector;
    this.everyBytes = everyBytes;
  }

  /** false where no collector could be had: the pacing does nothing */
  get active(): boolean {
    return this.collector !== null;
  }

  /** Call with the size of each piece that has passed through (and will not be kept). */
  passed(bytes: number): void {
    if (this.collector === null) return;
    this.sinceLast += bytes;
    if (this.sinceLast < this.everyBytes) return;
    this.sinceLast %= this.everyBytes; // one collection per piece, however large
    this.collections += 1;
    this.collector();
  }

  /**
   * Counts what `stream` emits and returns it, paused: whoever consumes it (a pipe) starts it, so
   * no chunk can go by before the consumer is there.
   */
  counting<S extends Readable>(stream: S): S {
    stream.pause();
    stream.on('data', (chunk: Buffer | string) => this.passed(chunk.length));
    return stream;
  }
}

/** The process's pacer: the upload digest and download streams report to it. */
export const youngBuffers = new YoungBufferPacer(v8MinorCollector());
