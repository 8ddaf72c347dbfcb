/**
 * What the upload and download benchmarks share: a temporary directory, the large package, and one
 * Hangar server (a child process) with an app and a channel to upload into.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readSync, readdirSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_TOKEN, CONFIG, GiB, MiB, ROOT } from './config.ts';
import { makeBigIpa, type BigIpa } from './big-ipa.ts';
import { requestJson, uploadMultipart } from './http.ts';
import { removeTempDir, startHangar, tempDir, type Server } from './proc.ts';

/** A real iOS package from the shared fixtures (moved with HANGAR_FIXTURES, as for the tests). */
export const FIXTURE = join(process.env.HANGAR_FIXTURES ?? join(ROOT, '..', 'shared', 'fixtures'), 'ios', 'appinfodemo-1.2.3-b5-iphone-noicon.ipa');

export interface Workspace {
  root: string;
  dataDir: string;
  hangar: Server;
  channelKey: string;
  channelId: number;
  /** the large package, made once */
  bigIpa(): BigIpa;
  /** makes another package of `bytes` under the workspace */
  makeIpa(name: string, bytes: number): BigIpa;
  /** stops the server and removes the directory */
  close(): Promise<void>;
}

/** Flushes dirty pages, so that one measurement does not pay for the previous one's writeback. */
export function syncDisks(): void {
  execFileSync('sync');
}

/** Refuses to start when the temporary directory's file system cannot hold the packages and their copies. */
function checkDiskSpace(uploadBytes: number): void {
  // the package, Hangar's copy and the baseline's copy of it; the parallel package (stored); a margin
  const needed = 3 * uploadBytes + 2 * CONFIG.parallelBytes + GiB;
  const fs = statfsSync(tmpdir());
  const free = fs.bavail * fs.bsize;
  if (free < needed) {
    throw new Error(`${tmpdir()} has ${Math.round(free / MiB)} MiB free, the benchmarks need ${Math.round(needed / MiB)} MiB (set TMPDIR elsewhere, or BENCH_QUICK=1)`);
  }
}

export async function openWorkspace(uploadBytes: number): Promise<Workspace> {
  checkDiskSpace(uploadBytes);
  if (!existsSync(FIXTURE)) throw new Error(`the fixture ${FIXTURE} is missing (set HANGAR_FIXTURES)`);
  const root = tempDir('work');
  const dataDir = join(root, 'hangar-data');
  const hangar = await startHangar(dataDir);
  let channelId: number;
  let channelKey: string;
  try {
    // The first upload (the small fixture itself, untimed) creates the app and its channel and warms the server up.
    const first = await uploadMultipart({ url: `${hangar.url}/api/apps/upload`, token: ADMIN_TOKEN, filePath: FIXTURE, fileName: 'AppInfoDemo.ipa' });
    if (first.status !== 201) throw new Error(`warm-up upload: ${first.status} ${first.body}`);
    channelId = (JSON.parse(first.body) as { channel: { id: number } }).channel.id;
    const key = await requestJson<{ key: string }>('GET', `${hangar.url}/api/channels/${channelId}/key`, { token: ADMIN_TOKEN });
    if (key.status !== 200) throw new Error(`channel key: ${key.status} ${key.text}`);
    channelKey = key.json.key;
  } catch (error) {
    await hangar.stop();
    throw error;
  }

  const makeIpa = (name: string, bytes: number) => makeBigIpa(FIXTURE, join(root, name), bytes);
  let big: BigIpa | null = null;
  return {
    root,
    dataDir,
    hangar,
    channelKey,
    channelId,
    bigIpa: () => (big ??= makeIpa('big.ipa', uploadBytes)),
    makeIpa,
    async close() {
      await hangar.stop();
      removeTempDir(root);
    },
  };
}

/** Where Hangar stored a release's file (absolute). */
export function storedFile(ws: Workspace, releaseId: number): string {
  const channels = join(ws.dataDir, 'files', 'channels');
  for (const channel of readdirSync(channels)) {
    const dir = join(channels, channel, 'releases', String(releaseId));
    try {
      const file = readdirSync(dir).find((name) => name.startsWith('release'));
      if (file) return join(dir, file);
    } catch {
      // not this channel
    }
  }
  throw new Error(`no stored file for release ${releaseId}`);
}

/** Uploads a package to the workspace's channel (untimed setup); returns the release id. */
export async function uploadRelease(ws: Workspace, filePath: string, fileName: string): Promise<number> {
  const result = await uploadMultipart({
    url: `${ws.hangar.url}/api/apps/upload`,
    token: ADMIN_TOKEN,
    fields: { channel_key: ws.channelKey },
    filePath,
    fileName,
  });
  if (result.status !== 201) throw new Error(`upload of ${fileName}: ${result.status} ${result.body.slice(0, 500)}`);
  return (JSON.parse(result.body) as { id: number }).id;
}

/** Reads a file once (1 MiB at a time) so that it sits in the page cache. */
export function warmCache(path: string): void {
  const fd = openSync(path, 'r');
  const buffer = Buffer.allocUnsafe(1024 * 1024);
  try {
    while (readSync(fd, buffer, 0, buffer.length, null) > 0);
  } finally {
    closeSync(fd);
  }
}
