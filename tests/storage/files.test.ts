import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileStore } from '../../src-server/storage/files.ts';
import { openDatabase } from '../../src-server/storage/database.ts';
import { fileDeletions } from '../../src-server/storage/schema.ts';
import { resolveConfig } from '../../src-server/config/config.ts';
import { DATABASE_FILE, startServer } from '../../src-server/server.ts';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'hangar-files-'));
  dirs.push(dir);
  return dir;
}

describe('FileStore.resolve', () => {
  it('keeps every stored path inside the data directory', async () => {
    const store = new FileStore(await tempDir());
    expect(store.resolve('files/channels/1/releases/2/app.ipa')).toBe(join(store.dataDir, 'files/channels/1/releases/2/app.ipa'));
    for (const bad of ['../outside', 'files/../../outside', '/etc/passwd', '', '.', 'files/\0x', 'files/channels/..//../..']) {
      expect(() => store.resolve(bad), JSON.stringify(bad)).toThrow(/refusing stored path/);
    }
  });

  it('lays files out per channel', async () => {
    const store = new FileStore(await tempDir());
    expect(store.releaseDir(3, 9)).toBe(join('files', 'channels', '3', 'releases', '9'));
    expect(store.debugFileDir(3, 4)).toBe(join('files', 'channels', '3', 'debug_files', '4'));
  });
});

describe('deletions interrupted by a crash', () => {
  it('are finished at the next start', async () => {
    const dataDir = await tempDir();
    // A crash after the delete committed but before the files went: the queue is left with a path.
    const { db, close } = openDatabase(join(dataDir, DATABASE_FILE));
    const leftover = join(dataDir, 'files', 'channels', '77');
    await mkdir(join(leftover, 'releases', '1'), { recursive: true });
    await writeFile(join(leftover, 'releases', '1', 'app.apk'), 'x');
    db.insert(fileDeletions).values({ path: join('files', 'channels', '77'), createdAt: 0 }).run();
    close();

    const server = await startServer({ ...resolveConfig({ host: '127.0.0.1', port: 0, data: dataDir }, {}), logToStdout: false, initialAdminToken: 'hgr_0123456789abcdef0123' });
    try {
      expect(existsSync(leftover)).toBe(false);
      expect(existsSync(join(dataDir, 'files', 'channels'))).toBe(true);
      expect(server.domain.ctx.db.select().from(fileDeletions).all()).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
