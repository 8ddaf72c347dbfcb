/**
 * The multipart parser under fire (issue 7, hostile input): valid upload forms for
 * `POST /api/apps/upload` and `POST /api/debug_files/upload`, mutated — cut short, bits flipped,
 * chunks duplicated, boundaries wrong or huge, header lines huge or many, too many parts, hostile
 * file names — sent on real connections. Each answer is below 500 and in time, and no temporary
 * file is left in `<data>/tmp` afterwards.
 *
 * `HANGAR_FUZZ_RUNS` makes the run longer, `HANGAR_FUZZ_SEED` replays one.
 */
import fc from 'fast-check';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syntheticIpa } from '../helpers/builds.ts';
import { multipart, rawRequest, type Part } from '../helpers/multipart.ts';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.ts';
import { dsymZip } from '../helpers/symbols.ts';
import { createAppTree, type AppTree } from '../helpers/world.ts';
import { fuzzRuns, fuzzSeed, oddString } from './hostile-values.ts';

const RUNS = fuzzRuns(60);
const SEED = fuzzSeed();
const REQUEST_MS = 10_000;

let t: TestServer;
let tree: AppTree;

beforeAll(async () => {
  t = await startTestServer();
  tree = await createAppTree(t);
  console.log(`multipart fuzz: ${RUNS} runs per route, seed ${SEED} (HANGAR_FUZZ_SEED=${SEED} replays it)`);
});

afterAll(async () => {
  await t?.close();
});

interface Form {
  body: Buffer;
  contentType: string;
}

/** The form a CI script would send, with the file part `file` and the given file name. */
function formOf(route: string, fileName: string, extra: Part[] = [], boundary?: string): Form {
  const data = route === '/api/apps/upload' ? syntheticIpa({ bundleId: 'dev.hangar.fuzz' }) : dsymZip({ uuid: '0c0ffee0-0000-4000-8000-00000000f022' });
  const parts: Part[] = [{ name: 'channel_key', value: tree.channel.key }, ...extra, { name: 'file', filename: fileName, data }];
  return multipart(parts, boundary === undefined ? {} : { boundary, quoteBoundary: true });
}

/** Ways to spoil a form, each a function of the valid form. */
function mutation(route: string): fc.Arbitrary<{ name: string; form: Form }> {
  const fileName = fc.oneof(fc.constantFrom('App.ipa', '../../x.ipa', '/etc/passwd', 'C:\\Windows\\evil.ipa', '..\\..\\x.ipa', 'a\u0000b.ipa', '.ipa', ''), oddString);
  const valid = fileName.map((name) => ({ name: `file name ${JSON.stringify(name).slice(0, 40)}`, form: formOf(route, name) }));
  const spoiled = fc.tuple(valid, fc.nat(), fc.nat(), fc.integer({ min: 1, max: 64 })).chain(([{ form }, a, b, n]) => {
    const at = (x: number) => x % Math.max(1, form.body.length);
    return fc.constantFrom(
      { name: `cut at ${at(a)}`, form: { ...form, body: form.body.subarray(0, at(a)) } },
      { name: `${n} bits flipped`, form: { ...form, body: flipBits(form.body, a, n) } },
      { name: `bytes ${Math.min(at(a), at(b))}-${Math.max(at(a), at(b))} repeated`, form: { ...form, body: repeatChunk(form.body, at(a), at(b)) } },
      { name: 'no boundary in the Content-Type', form: { ...form, contentType: 'multipart/form-data' } },
      { name: 'another boundary in the Content-Type', form: { ...form, contentType: 'multipart/form-data; boundary=not-the-one' } },
      { name: 'an empty boundary', form: { ...form, contentType: 'multipart/form-data; boundary=' } },
      { name: 'the closing boundary missing', form: { ...form, body: form.body.subarray(0, form.body.lastIndexOf('--') - 1) } },
      { name: 'LF instead of CRLF', form: { ...form, body: Buffer.from(form.body.toString('latin1').replaceAll('\r\n', '\n'), 'latin1') } },
    );
  });
  const built = fc.oneof(
    fc.integer({ min: 100, max: 5_000 }).map((n) => ({ name: `a boundary of ${n} characters`, form: formOf(route, 'App.ipa', [], 'b'.repeat(n)) })),
    fc.integer({ min: 20_000, max: 300_000 }).map((n) => ({ name: `a file name of ${n} characters`, form: formOf(route, `${'n'.repeat(n)}.ipa`) })),
    fc.integer({ min: 50, max: 500 }).map((n) => ({
      name: `a part with ${n} header lines`,
      form: formOf(route, 'App.ipa', [{ name: 'x', value: 'y', headers: ['Content-Disposition: form-data; name="x"', ...Array.from({ length: n }, (_, i) => `X-Header-${i}: ${i}`)] }]),
    })),
    fc.integer({ min: 81, max: 2_000 }).map((n) => ({ name: `${n} fields`, form: formOf(route, 'App.ipa', Array.from({ length: n }, (_, i) => ({ name: `f${i}`, value: 'v' }))) })),
    fc.integer({ min: 1024 * 1024 + 1, max: 3 * 1024 * 1024 }).map((n) => ({ name: `a field of ${n} bytes`, form: formOf(route, 'App.ipa', [{ name: 'changelog', value: 'c'.repeat(n) }]) })),
    fc.integer({ min: 5, max: 40 }).map((n) => ({
      name: `${n} file parts`,
      form: formOf(route, 'App.ipa', Array.from({ length: n }, (_, i) => ({ name: `file${i}`, filename: `f${i}.bin`, data: Buffer.alloc(1000, i) }))),
    })),
    fc.tuple(oddString, oddString).map(([name, value]) => ({ name: 'an odd field', form: formOf(route, 'App.ipa', [{ name: name.replaceAll('"', ''), value }]) })),
  );
  return fc.oneof({ weight: 1, arbitrary: valid }, { weight: 4, arbitrary: spoiled }, { weight: 3, arbitrary: built });
}

function flipBits(data: Buffer, seed: number, count: number): Buffer {
  const copy = Buffer.from(data);
  for (let i = 0; i < count; i++) {
    const bit = (seed + i * 7919) % (copy.length * 8);
    copy[bit >> 3]! ^= 1 << (bit & 7);
  }
  return copy;
}

function repeatChunk(data: Buffer, a: number, b: number): Buffer {
  const [from, to] = a < b ? [a, b] : [b, a];
  return Buffer.concat([data.subarray(0, to), data.subarray(from, to), data.subarray(to)]);
}

async function tempFiles(): Promise<string[]> {
  return readdir(join(t.dataDir, 'tmp')).catch(() => []);
}

describe.each(['/api/apps/upload', '/api/debug_files/upload'])('mutated forms to POST %s', (route) => {
  it('are answered below 500, in time, and leave no temporary file', async () => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(mutation(route), async ({ name, form }) => {
        const res = await Promise.race([
          rawRequest(t.url, { path: route, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': form.contentType }, body: form.body }),
          new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${name}: no answer in ${REQUEST_MS} ms`)), REQUEST_MS).unref()),
        ]);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        expect(res.status, `${name}: ${res.status} ${res.text.slice(0, 300)}`).toBeLessThan(500);
        expect(await tempFiles(), name).toEqual([]);
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    console.log(`${route} answers by status: ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}`);
    expect((await t.anon.get('/api/health')).status).toBe(200);
  }, 600_000);
});

describe('a file part without a file name (found by this fuzz)', () => {
  // busboy takes a part with Content-Type application/octet-stream for a file even without filename=
  it.each(['/api/apps/upload', '/api/debug_files/upload'])('to %s: refused or stored, never a 500, nothing left in tmp', async (route) => {
    const data = route === '/api/apps/upload' ? syntheticIpa({ bundleId: 'dev.hangar.noname' }) : dsymZip({ uuid: '0c0ffee0-0000-4000-8000-00000000f023' });
    const form = multipart([
      { name: 'channel_key', value: tree.channel.key },
      { name: 'file', filename: '', data, headers: ['Content-Disposition: form-data; name="file"', 'Content-Type: application/octet-stream'] },
    ]);
    const res = await rawRequest(t.url, { path: route, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': form.contentType }, body: form.body });
    expect(res.status, res.text).toBeLessThan(500);
    expect(await tempFiles()).toEqual([]);
  });
});
