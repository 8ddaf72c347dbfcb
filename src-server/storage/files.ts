/**
 * Binaries on disk, under `<data>/files`. Rows store paths relative to the data directory; this
 * module is the only one that turns them into absolute paths, and it refuses any that would leave the
 * data directory.
 *
 * Deletion is crash-safe in two steps: the paths of what a delete takes away are queued in
 * `file_deletions` inside the same transaction that deletes the rows, and removed from disk once it
 * has committed. A crash in between leaves the queue, which `drainDeletions` finishes at the next
 * start. So a file never disappears while its row stays, and no file outlives its row for long.
 *
 * While `hangar backup` runs it holds `<data>/backup.lock`: the queue is then left alone, so that every
 * file its database snapshot names stays on disk until copied (see ./backup.ts, which drains the queue
 * when it is done). A lock whose process is gone does not count.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, readFileSync, renameSync, rmSync, type WriteStream } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { asc, eq } from 'drizzle-orm';
import type { Db } from './database.ts';
import { fileDeletions } from './schema.ts';

/** A transaction or the database itself: both run drizzle queries. */
type Queryable = Pick<Db, 'insert' | 'select' | 'delete'>;

/** Held (as `{"pid": N}`) by a running backup of the data directory. */
export const BACKUP_LOCK_FILE = 'backup.lock';

/** The process id of the backup running on this data directory, or null when none is. */
export function backupLockHolder(dataDir: string): number | null {
  let pid: unknown;
  try {
    pid = (JSON.parse(readFileSync(join(dataDir, BACKUP_LOCK_FILE), 'utf8')) as { pid?: unknown }).pid;
  } catch {
    return null; // no lock, or one torn by a crash while it was written
  }
  if (!Number.isInteger(pid) || (pid as number) <= 0) return null;
  try {
    process.kill(pid as number, 0);
    return pid as number;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? (pid as number) : null;
  }
}

export class FileStore {
  readonly dataDir: string;

  constructor(dataDir: string) {
    this.dataDir = resolve(dataDir);
  }

  /** Absolute path of a stored relative path; throws if it would point outside the data directory. */
  resolve(relativePath: string): string {
    if (relativePath === '' || isAbsolute(relativePath) || relativePath.includes('\0')) {
      throw new Error(`refusing stored path ${JSON.stringify(relativePath)}`);
    }
    const absolute = resolve(this.dataDir, relativePath);
    const rel = relative(this.dataDir, absolute);
    if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
      throw new Error(`refusing stored path ${JSON.stringify(relativePath)}: outside the data directory`);
    }
    return absolute;
  }

  /** Everything stored for one channel lives in this directory (relative path). */
  channelDir(channelId: number): string {
    return join('files', 'channels', String(channelId));
  }

  releaseDir(channelId: number, releaseId: number): string {
    return join(this.channelDir(channelId), 'releases', String(releaseId));
  }

  debugFileDir(channelId: number, debugFileId: number): string {
    return join(this.channelDir(channelId), 'debug_files', String(debugFileId));
  }

  /** Where uploads stream to before they are parsed: same file system as `files/`, so moves are atomic. */
  get tempDir(): string {
    return join(this.dataDir, 'tmp');
  }

  /** A fresh temporary file path (the directory exists). */
  async newTempPath(suffix = ''): Promise<string> {
    await mkdir(this.tempDir, { recursive: true });
    return join(this.tempDir, `${Date.now()}-${randomBytes(8).toString('hex')}${suffix}`);
  }

  /**
   * Opens a new temporary file for writing (fails if it exists). Tests replace it to inject faults.
   * A 1 MiB buffer lets the socket's small chunks (64 KiB or less) gather while a write is in flight
   * and go to disk together (writev): under parallel downloads, each write waits its turn for the
   * same few libuv threads, and one write per socket chunk starved uploads (bench/mixed-load.ts:
   * 12.8 MiB/s of uploads with 64 KiB, 43.3 MiB/s with 1 MiB, same run conditions).
   */
  createTempWriteStream(tempPath: string): WriteStream {
    return createWriteStream(tempPath, { flags: 'wx', highWaterMark: 1024 * 1024 });
  }

  /**
   * Moves a temporary file to a stored path (relative), replacing anything a crash left there.
   * Synchronous on purpose: it runs inside the transaction that records the file, so that either
   * both happen or, on a crash between them, only an orphan file remains (swept at start-up).
   */
  moveIntoPlace(tempPath: string, storedPath: string): void {
    const target = this.resolve(storedPath);
    rmSync(dirname(target), { recursive: true, force: true });
    mkdirSync(dirname(target), { recursive: true });
    renameSync(tempPath, target);
  }

  /** Removes every temporary file (at start-up: uploads a crash interrupted). Returns how many. */
  async sweepTemp(): Promise<number> {
    const names = await readdir(this.tempDir).catch(() => [] as string[]);
    await Promise.all(names.map((name) => rm(join(this.tempDir, name), { recursive: true, force: true })));
    return names.length;
  }

  /** Queue paths for removal; call inside the transaction that deletes their rows. */
  queueDeletion(tx: Queryable, paths: string[], now = Date.now()): void {
    if (paths.length === 0) return;
    for (const path of paths) this.resolve(path); // validate before anything is committed
    tx.insert(fileDeletions)
      .values(paths.map((path) => ({ path, createdAt: now })))
      .run();
  }

  /**
   * Remove queued paths from disk; returns how many were done. Safe to run at any time. Does nothing
   * while a backup runs: the lock is looked at after the caller's transaction has committed and in the
   * same synchronous step as the queue is read, so what is removed was deleted before the backup's
   * snapshot began.
   */
  async drainDeletions(db: Queryable): Promise<number> {
    if (backupLockHolder(this.dataDir) !== null) return 0;
    const queued = db.select().from(fileDeletions).orderBy(asc(fileDeletions.id)).all();
    let done = 0;
    for (const item of queued) {
      await rm(this.resolve(item.path), { recursive: true, force: true });
      db.delete(fileDeletions).where(eq(fileDeletions.id, item.id)).run();
      done += 1;
    }
    return done;
  }
}
