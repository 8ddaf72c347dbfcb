/**
 * The pacer that frees upload and download buffers young (src-server/http/young-buffers.ts): its
 * pace, its no-op fallback, and the tap it puts on a download stream, which must not lose a byte.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCAVENGE_EVERY_BYTES, YoungBufferPacer, youngBuffers } from '../../src-server/http/young-buffers.ts';

describe('YoungBufferPacer', () => {
  it('collects once per `everyBytes`, however the bytes are cut up', () => {
    let calls = 0;
    const pacer = new YoungBufferPacer(() => (calls += 1), 100);
    for (let i = 0; i < 10; i += 1) pacer.passed(30); // 300 bytes
    expect(calls).toBe(3);
    expect(pacer.collections).toBe(3);
    pacer.passed(99);
    expect(calls).toBe(3); // 300 + 99 < 400
    pacer.passed(1000); // one large piece: one collection, not ten (the remainder counts on)
    expect(calls).toBe(4);
    pacer.passed(1); // 99 + 1
    expect(calls).toBe(5);
  });

  it('does nothing without a collector', () => {
    const pacer = new YoungBufferPacer(null, 1);
    expect(pacer.active).toBe(false);
    pacer.passed(1e9);
    expect(pacer.collections).toBe(0);
  });

  it('the process pacer has V8\'s scavenge, every 16 MiB, and leaves `gc` hidden from everything else', () => {
    expect(youngBuffers.active).toBe(true);
    expect(youngBuffers.everyBytes).toBe(SCAVENGE_EVERY_BYTES);
    expect(SCAVENGE_EVERY_BYTES).toBe(16 * 1024 * 1024);
    const before = youngBuffers.collections;
    youngBuffers.passed(SCAVENGE_EVERY_BYTES); // runs a real scavenge; must not throw
    expect(youngBuffers.collections).toBe(before + 1);
    expect(runInNewContext('typeof gc')).toBe('undefined');
  });
});

describe('YoungBufferPacer.counting', () => {
  let dir: string;
  let file: string;
  let data: Buffer;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hangar-young-'));
    file = join(dir, 'data.bin');
    data = randomBytes(3 * 1024 * 1024 + 17);
    await writeFile(file, data);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('hands the stream over paused: a consumer that comes late still gets every byte, and every byte is counted', async () => {
    let counted = 0;
    const pacer = new YoungBufferPacer(() => {}, 1024 * 1024);
    const originalPassed = pacer.passed.bind(pacer);
    pacer.passed = (bytes: number) => {
      counted += bytes;
      originalPassed(bytes);
    };
    const stream = pacer.counting(createReadStream(file, { highWaterMark: 64 * 1024 }));
    await sleep(100); // reads could have completed by now, were the stream flowing
    expect(counted).toBe(0);
    const hash = createHash('sha256');
    let received = 0;
    await pipeline(
      stream,
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          hash.update(chunk);
          received += chunk.length;
          setImmediate(done); // a slow consumer: backpressure pauses and resumes the stream
        },
      }),
    );
    expect(received).toBe(data.length);
    expect(hash.digest('hex')).toBe(createHash('sha256').update(data).digest('hex'));
    expect(counted).toBe(data.length);
    expect(pacer.collections).toBe(3);
  });
});
