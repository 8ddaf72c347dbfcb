/**
 * `hangar backup` and `hangar restore`: a consistent copy of a data directory, taken while the server
 * runs, and bringing one back. The work is in ../storage/backup.ts; this module reads the options,
 * lets SIGINT/SIGTERM stop the work cleanly (nothing half written stays) and reports what was done.
 */
import type { ServerConfig } from '../config/config.ts';
import { readBuildInfo } from '../config/build-info.ts';
import { restoreBackup, writeBackup, type BackupManifest } from '../storage/backup.ts';
import { UsageError } from './errors.ts';

interface Values {
  to?: string | undefined;
  from?: string | undefined;
  force?: boolean | undefined;
}

/** Runs `work` with a signal that SIGINT and SIGTERM abort. */
async function interruptible<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const abort = () => controller.abort(new Error('interrupted; nothing was left half written'));
  process.once('SIGINT', abort).once('SIGTERM', abort);
  try {
    return await work(controller.signal);
  } finally {
    process.off('SIGINT', abort).off('SIGTERM', abort);
  }
}

function summary(manifest: BackupManifest): string {
  const { releases, debugFiles, files } = manifest.counts;
  return `${releases} releases, ${debugFiles} debug files, ${files} files, ${(manifest.totalBytes / 1048576).toFixed(1)} MiB`;
}

export async function backup(config: ServerConfig, values: Values): Promise<number> {
  if (!values.to) throw new UsageError('--to PATH is required: the new folder to write the backup to');
  const to = values.to;
  const manifest = await interruptible((signal) => writeBackup(config.dataDir, to, { hangarVersion: readBuildInfo().version, signal }));
  process.stdout.write(`Backup of ${config.dataDir} written to ${to}: ${summary(manifest)}.\n`);
  return 0;
}

export async function restore(config: ServerConfig, values: Values): Promise<number> {
  if (!values.from) throw new UsageError('--from PATH is required: the backup folder to restore');
  const from = values.from;
  const result = await interruptible((signal) => restoreBackup(from, config.dataDir, { force: values.force === true, signal }));
  if (result.movedAside) process.stdout.write(`The data directory that was there is now ${result.movedAside}.\n`);
  process.stdout.write(`Restored ${from} (taken ${result.manifest.createdAt}) into ${result.dataDir}: ${summary(result.manifest)}.\n`);
  return 0;
}
