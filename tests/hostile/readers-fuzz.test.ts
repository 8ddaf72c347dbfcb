/**
 * Every binary reader, and the debug-symbol archive reader, fed mutated real files (issue 7, hostile
 * input): the fixtures of ../shared/fixtures with bits flipped, cut short, a chunk repeated or zeroed.
 * Each input must come out as metadata or a ParseError — never another exception — within
 * READ_MS; memory is sampled around the run and reported.
 *
 * Readers run in this process, raced against a timer (a reader that never settles fails the test).
 * Formats without a fixture (.dmg, .msi, .rpm) get the other fixtures' mutations under their name.
 * `HANGAR_FUZZ_RUNS` makes the run longer, `HANGAR_FUZZ_SEED` replays one.
 */
import fc from 'fast-check';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readDebugArchive } from '../../src-server/parsers/debug-archive.ts';
import { READERS } from '../../src-server/parsers/index.ts';
import { ParseError } from '../../src-server/parsers/types.ts';
import { compoundFile } from '../helpers/builders.ts';
import { fixture, fixturesMissing } from '../helpers/fixtures.ts';
import { fuzzRuns, fuzzSeed } from './hostile-values.ts';

const RUNS = fuzzRuns(25);
const SEED = fuzzSeed();
/** the longest one read may take */
const READ_MS = 5_000;
const LIMITS = { maxUncompressedBytes: 512 * 1024 * 1024, maxEntries: 10_000 };

const FIXTURES: Record<string, string[]> = {
  '.ipa': ['ios/appinfodemo-1.2.3-b5-iphone-noicon.ipa', 'ios/bundle-1.0-b1-ipad-cgbi-icons.ipa', 'ios/demo-1.0-b1-with-appex-plugin.ipa'],
  '.apk': ['android/contactmanager-1.0-vc1-minsdk5-v1signed.apk', 'android/helloapp-1.0-vc1-debug-unaligned.apk', 'android/appinfodemo-2.1.0-vc10-r8-v2signed.apk'],
  '.aab': ['android/appinfodemo-2.1.0-vc10.aab'],
  '.app.zip': ['macos/guiapp-1.0-b1-unsigned.app.zip'],
  '.hap': ['harmonyos/myapplication-1.0.0-vc1000000.hap'],
  '.app': ['harmonyos/myapplication-1.0.0-vc1000000.app'],
  '.exe': ['windows/upx-3.08-win32-console.exe'],
  '.appimage': ['linux/echo-x86_64-type2.AppImage'],
  '.deb': ['linux/libjs-microplugin.js_0.0.3+dfsg-1.1_all.deb'],
  symbols: [
    'symbols/apple/dsym-ios-single-arm64.zip',
    'symbols/apple/dsym-macos-Example.framework-fat-x86_64-arm64.zip',
    'symbols/android/android-mapping-with-manifest-and-rtxt.zip',
  ],
};

const temp = mkdtempSync(join(tmpdir(), 'hangar-readers-fuzz-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const load = (paths: string[]) => paths.map((p) => readFileSync(fixture(...p.split('/'))));

/** The original files a reader's inputs are mutated from. */
function seedsFor(extensions: string[]): Buffer[] {
  const own = extensions.flatMap((extension) => FIXTURES[extension] ?? []);
  if (own.length > 0) return load(own);
  // no fixture of this format: a compound file (the container of .msi) and the other formats' files
  return [compoundFile([{ name: 'SummaryInformation', data: Buffer.alloc(512, 1) }]), ...load([FIXTURES['.deb']![0]!, FIXTURES['.exe']![0]!, FIXTURES['.ipa']![0]!])];
}

/** A real file, spoiled one way; `what` names it for the failure message. */
function mutated(seeds: Buffer[]): fc.Arbitrary<{ what: string; data: Buffer }> {
  return fc.tuple(fc.nat(seeds.length - 1), fc.nat(), fc.nat(), fc.integer({ min: 1, max: 256 }), fc.nat(3)).map(([index, a, b, n, kind]) => {
    const data = seeds[index]!;
    const at = (x: number) => x % data.length;
    const [from, to] = [Math.min(at(a), at(b)), Math.max(at(a), at(b))];
    switch (kind) {
      case 0: {
        const copy = Buffer.from(data);
        for (let i = 0; i < n; i++) {
          const bit = (a + i * 104_729) % (copy.length * 8);
          copy[bit >> 3]! ^= 1 << (bit & 7);
        }
        return { what: `file ${index}, ${n} bits flipped from ${a}`, data: copy };
      }
      case 1:
        return { what: `file ${index} cut at ${at(a)}`, data: data.subarray(0, at(a)) };
      case 2:
        return { what: `file ${index}, bytes ${from}-${to} repeated`, data: Buffer.concat([data.subarray(0, to), data.subarray(from, Math.min(to, from + 4 * 1024 * 1024)), data.subarray(to)]) };
      default: {
        const copy = Buffer.from(data);
        copy.fill(kind === 3 && n % 2 ? 0xff : 0, from, Math.min(to, from + n * 64));
        return { what: `file ${index}, ${Math.min(to - from, n * 64)} bytes from ${from} overwritten`, data: copy };
      }
    }
  });
}

/** How the reads of one reader went: the slowest, and the memory seen after each. */
interface Tally {
  reads: number;
  parsed: number;
  slowestMs: number;
  peakRssMiB: number;
  peakHeapMiB: number;
}
const tallies = new Map<string, Tally>();
const rssBefore = process.memoryUsage().rss;

/** Runs `read` on each input; only a ParseError may come out, within READ_MS. */
async function fuzz(name: string, extension: string, seeds: Buffer[], read: (path: string, fileName: string) => Promise<unknown>): Promise<void> {
  const tally: Tally = { reads: 0, parsed: 0, slowestMs: 0, peakRssMiB: 0, peakHeapMiB: 0 };
  tallies.set(name, tally);
  let n = 0;
  await fc.assert(
    fc.asyncProperty(mutated(seeds), async ({ what, data }) => {
      const fileName = `input${extension}`;
      const path = join(temp, `${n++}${extension}`);
      writeFileSync(path, data);
      const started = performance.now();
      let timer: NodeJS.Timeout | undefined;
      const outcome = await Promise.race([
        read(path, fileName).then(
          () => 'parsed' as const,
          (error: unknown) => error,
        ),
        new Promise<string>((resolve) => (timer = setTimeout(() => resolve('timed out'), READ_MS))),
      ]).finally(() => clearTimeout(timer));
      rmSync(path, { force: true });
      const ms = performance.now() - started;
      const memory = process.memoryUsage();
      tally.reads += 1;
      if (outcome === 'parsed') tally.parsed += 1;
      tally.slowestMs = Math.max(tally.slowestMs, Math.round(ms));
      tally.peakRssMiB = Math.max(tally.peakRssMiB, Math.round(memory.rss / 2 ** 20));
      tally.peakHeapMiB = Math.max(tally.peakHeapMiB, Math.round(memory.heapUsed / 2 ** 20));
      expect(outcome, `${name} on ${what}`).not.toBe('timed out');
      if (outcome !== 'parsed' && !(outcome instanceof ParseError)) {
        throw new Error(`${name} on ${what} threw ${(outcome as Error)?.name}: ${(outcome as Error)?.message}`, { cause: outcome });
      }
    }),
    { numRuns: RUNS, seed: SEED, endOnFailure: true },
  );
}

describe.skipIf(fixturesMissing)('binary readers on mutated real files', () => {
  it.each(READERS.map((reader) => [reader.format, reader] as const))('%s: metadata or a ParseError, in time', async (format, reader) => {
    await fuzz(format, reader.extensions[0]!, seedsFor(reader.extensions), (path, fileName) => reader.read(path, fileName));
  }, 600_000);

  it('debug-symbol archives: an archive or a ParseError, in time', async () => {
    await fuzz('debug symbols', '.zip', load(FIXTURES.symbols!), (path) => readDebugArchive(path, LIMITS));
  }, 600_000);

  it('kept memory bounded', () => {
    const rows = [...tallies].map(([name, t]) => `${name.padEnd(14)} ${String(t.reads).padStart(5)} reads ${String(t.parsed).padStart(4)} parsed  slowest ${String(t.slowestMs).padStart(5)} ms  peak RSS ${t.peakRssMiB} MiB  peak heap ${t.peakHeapMiB} MiB`);
    const growth = Math.max(...[...tallies.values()].map((t) => t.peakRssMiB)) - Math.round(rssBefore / 2 ** 20);
    console.log(`readers fuzz (seed ${SEED}, ${RUNS} runs each; RSS before ${Math.round(rssBefore / 2 ** 20)} MiB, peak growth ${growth} MiB):\n${rows.join('\n')}`);
    expect(tallies.size).toBe(READERS.length + 1);
    expect(growth).toBeLessThan(512);
  });
});
