/**
 * Decompressing small, bounded pieces of a package (a control.tar, a squashfs block) in memory:
 * zlib and gzip and zstd through Node's zlib, xz through xz-decompress (xz-embedded in WebAssembly).
 * Every output is capped, so a small input that claims to inflate hugely (a bomb) fails instead of
 * exhausting memory.
 */
import { ReadableStream } from 'node:stream/web';
import zlib from 'node:zlib';
import xz from 'xz-decompress';
import { MAX_READ_BYTES } from './binfile.ts';
import { ParseError } from './types.ts';

export type Codec = 'zlib' | 'gzip' | 'xz' | 'zstd';

/**
 * Decompresses `data` (one complete stream) with `codec`, refusing output beyond `limit` bytes.
 * `what` names the data in error messages ("control.tar.xz").
 */
export async function decompress(codec: Codec, data: Buffer, what: string, limit = MAX_READ_BYTES): Promise<Buffer> {
  try {
    switch (codec) {
      case 'zlib':
        return zlib.inflateSync(data, { maxOutputLength: limit });
      case 'gzip':
        return zlib.gunzipSync(data, { maxOutputLength: limit });
      case 'zstd':
        if (typeof zlib.zstdDecompressSync !== 'function') throw new ParseError(`${what} is zstd-compressed, which this Node.js cannot decompress`);
        return zlib.zstdDecompressSync(data, { maxOutputLength: limit });
      case 'xz':
        return await unxz(data, what, limit);
    }
  } catch (error) {
    if (error instanceof ParseError) throw error;
    const message = (error as Error).message;
    if (error instanceof RangeError || /larger than|maxOutputLength|buffer/i.test(message)) {
      throw new ParseError(`${what} decompresses to more than ${limit} bytes`, { cause: error });
    }
    throw new ParseError(`${what} is damaged: it cannot be decompressed (${message})`, { cause: error });
  }
}

async function unxz(data: Buffer, what: string, limit: number): Promise<Buffer> {
  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
      controller.close();
    },
  });
  // xz-decompress types its argument as the DOM ReadableStream; Node's web stream is the same at run time.
  const output = new xz.XzReadableStream(input as unknown as globalThis.ReadableStream<Uint8Array>);
  const reader = output.getReader();
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      throw new ParseError(`${what} decompresses to more than ${limit} bytes`);
    }
    chunks.push(Buffer.from(value)); // a copy: the decoder may reuse its output buffer
  }
  return Buffer.concat(chunks, total);
}
