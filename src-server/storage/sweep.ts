/**
 * The start-up sweep of the data directory (storage hygiene):
 * - temporary files (uploads a crash interrupted) are removed;
 * - directories of channels, releases and debug files that have no row are removed: they can only be
 *   left by a crash between moving a file into place and committing its row, and since that row was
 *   never committed its id may be handed out again;
 * - rows whose file is missing are reported, not deleted: that is for an operator to look into.
 */
import { existsSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Db } from './database.ts';
import { backupLockHolder, type FileStore } from './files.ts';
import { channels, debugFiles, releases } from './schema.ts';

export interface SweepReport {
  temporariesRemoved: number;
  /** data-directory paths removed because no row owned them */
  orphansRemoved: string[];
  /** rows whose stored file is missing */
  missingFiles: { table: 'releases' | 'debug_files'; id: number; path: string }[];
}

async function subdirectories(path: string): Promise<string[]> {
  const entries = await readdir(path, { withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isDirectory()).map((e) => e.name);
}

export async function sweepDataDirectory(db: Db, files: FileStore): Promise<SweepReport> {
  const report: SweepReport = { temporariesRemoved: await files.sweepTemp(), orphansRemoved: [], missingFiles: [] };

  const channelIds = new Set(db.select({ id: channels.id }).from(channels).all().map((r) => String(r.id)));
  const releaseIds = new Set(db.select({ id: releases.id }).from(releases).all().map((r) => String(r.id)));
  const debugFileIds = new Set(db.select({ id: debugFiles.id }).from(debugFiles).all().map((r) => String(r.id)));
  const root = join('files', 'channels');
  // A backup running now may still be copying files whose rows are gone since its snapshot: orphans
  // stay (like queued deletions) until a start without one.
  const backupRunning = backupLockHolder(files.dataDir) !== null;

  const orphan = async (relativePath: string) => {
    if (backupRunning) return;
    await rm(files.resolve(relativePath), { recursive: true, force: true });
    report.orphansRemoved.push(relativePath);
  };
  for (const channelId of await subdirectories(files.resolve(root))) {
    const channelDir = join(root, channelId);
    if (!channelIds.has(channelId)) {
      await orphan(channelDir);
      continue;
    }
    for (const id of await subdirectories(files.resolve(join(channelDir, 'releases')))) {
      if (!releaseIds.has(id)) await orphan(join(channelDir, 'releases', id));
    }
    for (const id of await subdirectories(files.resolve(join(channelDir, 'debug_files')))) {
      if (!debugFileIds.has(id)) await orphan(join(channelDir, 'debug_files', id));
    }
  }

  for (const row of db.select({ id: releases.id, path: releases.filePath }).from(releases).all()) {
    if (!row.path || !existsSync(files.resolve(row.path))) report.missingFiles.push({ table: 'releases', id: row.id, path: row.path });
  }
  for (const row of db.select({ id: debugFiles.id, path: debugFiles.filePath }).from(debugFiles).all()) {
    if (!row.path || !existsSync(files.resolve(row.path))) report.missingFiles.push({ table: 'debug_files', id: row.id, path: row.path });
  }
  return report;
}
