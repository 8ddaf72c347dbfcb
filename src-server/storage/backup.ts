/**
 * Backups of a data directory, taken while the server runs, and their restore.
 *
 * A backup is a folder laid out like a data directory: `hangar.sqlite3` (SQLite's online backup of
 * the live database: one consistent snapshot, taken without stopping writers), every file the
 * snapshot's rows name (release binaries and icons, debug files), `secret.key` and `tls/` (the
 * installation's CA, which devices trust), and `hangar-backup.json`, the manifest: what was taken,
 * from which Hangar and schema, and the SHA-256 of every file. It holds secrets: folders are 0700,
 * files 0600.
 *
 * Consistency: the snapshot decides what the backup holds. Stored files never change once placed, so
 * a later copy of a file a row names is a copy of the right bytes, provided the file is still there.
 * The server removes files only through its deletion queue (./files.ts), and leaves the queue alone
 * while `backup.lock` names a live process; the lock is taken before the snapshot and released after
 * the last copy, then this process drains the queue. Every copy is checked against its row's hash.
 *
 * Both directions write into a temporary sibling folder and rename it at the end: an interrupted
 * backup leaves no folder with a manifest, an interrupted or failed restore leaves the data
 * directory as it was.
 */
import Database from 'better-sqlite3';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { chmod, mkdir, open, readdir, readFile, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, normalize, resolve, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { DatabaseTooNewError, DEFAULT_MIGRATIONS_FOLDER } from './database.ts';
import { BACKUP_LOCK_FILE, backupLockHolder, FileStore } from './files.ts';
import * as schema from './schema.ts';

export const MANIFEST_FILE = 'hangar-backup.json';
export const BACKUP_FORMAT_VERSION = 1;
const DATABASE_FILE = 'hangar.sqlite3';
const SECRET_FILE = 'secret.key';
const TLS_DIR = 'tls';

export interface ManifestFile {
  /** relative to the backup folder (and to the data directory it restores) */
  path: string;
  size: number;
  sha256: string;
}

export interface BackupManifest {
  format: 'hangar-backup';
  formatVersion: number;
  hangarVersion: string;
  /** the newest migration applied to the database (drizzle's `created_at` of it) */
  schemaMigration: number;
  createdAt: string;
  counts: {
    /** rows per table of the snapshot */
    rows: Record<string, number>;
    releases: number;
    debugFiles: number;
    files: number;
  };
  totalBytes: number;
  files: ManifestFile[];
}

/** A backup or restore that cannot go ahead or found damage; nothing was left half done. */
export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}

/** Copies a file (creating its folders, 0700) as 0600, flushed to disk; answers its size and SHA-256. */
async function copyHashed(from: string, to: string, signal?: AbortSignal): Promise<{ size: number; sha256: string }> {
  await mkdir(dirname(to), { recursive: true, mode: 0o700 });
  const hash = createHash('sha256');
  let size = 0;
  await pipeline(
    createReadStream(from),
    async function* (chunks: AsyncIterable<Buffer>) {
      for await (const chunk of chunks) {
        hash.update(chunk);
        size += chunk.length;
        yield chunk;
      }
    },
    createWriteStream(to, { flags: 'wx', mode: 0o600, flush: true }),
    { signal },
  );
  return { size, sha256: hash.digest('hex') };
}

async function syncDirectory(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** A temporary folder beside `target` (same file system, so that the final rename is atomic). */
async function siblingFolder(target: string, label: string): Promise<string> {
  await mkdir(dirname(target), { recursive: true, mode: 0o700 });
  const path = `${target}.${label}-${randomBytes(4).toString('hex')}`;
  await mkdir(path, { mode: 0o700 });
  return path;
}

/** Files under `dir` (relative to `root`), depth first. */
async function filesUnder(root: string, dir: string): Promise<string[]> {
  const entries = await readdir(join(root, dir), { withFileTypes: true }).catch(() => []);
  const found: string[] = [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await filesUnder(root, path)));
    else if (entry.isFile()) found.push(path);
  }
  return found;
}

function schemaMigration(sqlite: Database.Database): number {
  const row = sqlite.prepare('SELECT max(created_at) AS last FROM "__drizzle_migrations"').get() as { last: number | null };
  return Number(row.last ?? 0);
}

function newestKnownMigration(): number {
  return Math.max(0, ...readMigrationFiles({ migrationsFolder: DEFAULT_MIGRATIONS_FOLDER }).map((m) => m.folderMillis));
}

function rowCounts(sqlite: Database.Database): Record<string, number> {
  const tables = sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[];
  return Object.fromEntries(tables.map((table) => [table, sqlite.prepare(`SELECT count(*) FROM "${table.replaceAll('"', '""')}"`).pluck().get() as number]));
}

/** A stored file the snapshot names, with the hash its row records (icons have none). */
interface Referenced {
  owner: string;
  path: string;
  sha256: string | null;
}

function referencedFiles(sqlite: Database.Database): Referenced[] {
  const rows = sqlite
    .prepare(
      `SELECT 'release ' || id AS owner, file_path AS path, sha256 FROM releases
       UNION ALL SELECT 'icon of release ' || id, icon_path, NULL FROM releases WHERE icon_path IS NOT NULL
       UNION ALL SELECT 'debug file ' || id, file_path, sha256 FROM debug_files`,
    )
    .all() as Referenced[];
  return rows;
}

/** Takes the backup lock of a data directory (replacing one whose process is gone); answers its release. */
async function lockDeletions(dataDir: string): Promise<() => Promise<void>> {
  const path = join(dataDir, BACKUP_LOCK_FILE);
  const holder = backupLockHolder(dataDir);
  if (holder !== null) throw new BackupError(`another backup of ${dataDir} is running (process ${holder})`);
  await rm(path, { force: true }); // left by a backup that was killed
  await writeFile(path, JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString() }), { flag: 'wx', mode: 0o600 });
  return () => rm(path, { force: true });
}

export interface BackupOptions {
  hangarVersion: string;
  /** stops the backup; what was written so far is removed */
  signal?: AbortSignal;
  now?: () => number;
}

/** Writes a backup of `dataDir` to the new folder `to`; answers its manifest. The server may be running. */
export async function writeBackup(dataDir: string, to: string, options: BackupOptions): Promise<BackupManifest> {
  const target = resolve(to);
  const source = new FileStore(dataDir);
  if (!existsSync(join(source.dataDir, DATABASE_FILE))) throw new BackupError(`${source.dataDir} holds no Hangar database (${DATABASE_FILE})`);
  if (existsSync(target)) throw new BackupError(`${target} exists already: a backup goes to a new folder`);

  const unlock = await lockDeletions(source.dataDir);
  let staging: string | null = null;
  try {
    staging = await siblingFolder(target, 'partial');
    const manifest = await copyDataDirectory(source, staging, options);
    await writeFile(join(staging, MANIFEST_FILE), JSON.stringify(manifest, null, 2) + '\n', { mode: 0o600, flush: true });
    await rename(staging, target);
    staging = null;
    await syncDirectory(dirname(target));
    return manifest;
  } finally {
    await unlock();
    if (staging) await rm(staging, { recursive: true, force: true });
    // not a reason to fail: the server drains the queue at its next delete or start
    await drainDeferredDeletions(source).catch(() => {});
  }
}

/** The snapshot, then what it names, then the secrets; answers the manifest (not yet written). */
async function copyDataDirectory(source: FileStore, staging: string, options: BackupOptions): Promise<BackupManifest> {
  const { signal } = options;
  const createdAt = new Date((options.now ?? Date.now)()).toISOString();
  const live = new Database(join(source.dataDir, DATABASE_FILE), { fileMustExist: true });
  try {
    live.pragma('busy_timeout = 5000');
    // all remaining pages in one step: one read transaction, so one consistent snapshot
    await live.backup(join(staging, DATABASE_FILE), { progress: () => 0x7fffffff });
  } finally {
    live.close();
  }
  await chmod(join(staging, DATABASE_FILE), 0o600);
  signal?.throwIfAborted();

  const snapshot = new Database(join(staging, DATABASE_FILE), { fileMustExist: true });
  let facts: { migration: number; rows: Record<string, number>; referenced: Referenced[] };
  try {
    facts = { migration: schemaMigration(snapshot), rows: rowCounts(snapshot), referenced: referencedFiles(snapshot) };
  } finally {
    snapshot.close();
  }

  const files: ManifestFile[] = [{ path: DATABASE_FILE, ...(await hashFile(join(staging, DATABASE_FILE))) }];
  for (const ref of facts.referenced) {
    const from = source.resolve(ref.path);
    if (!existsSync(from)) throw new BackupError(`${ref.owner}: its file ${ref.path} is missing from the data directory`);
    const copied = await copyHashed(from, join(staging, ref.path), signal);
    if (ref.sha256 !== null && copied.sha256 !== ref.sha256) {
      throw new BackupError(`${ref.owner}: ${ref.path} does not match the SHA-256 its row records (damaged on disk)`);
    }
    files.push({ path: ref.path, ...copied });
  }
  const secrets = [...(existsSync(join(source.dataDir, SECRET_FILE)) ? [SECRET_FILE] : []), ...(await filesUnder(source.dataDir, TLS_DIR))];
  for (const path of secrets) files.push({ path, ...(await copyHashed(join(source.dataDir, path), join(staging, path), signal)) });

  return {
    format: 'hangar-backup',
    formatVersion: BACKUP_FORMAT_VERSION,
    hangarVersion: options.hangarVersion,
    schemaMigration: facts.migration,
    createdAt,
    counts: { rows: facts.rows, releases: facts.rows.releases ?? 0, debugFiles: facts.rows.debug_files ?? 0, files: files.length },
    totalBytes: files.reduce((sum, f) => sum + f.size, 0),
    files,
  };
}

async function hashFile(path: string): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { size, sha256: hash.digest('hex') };
}

/** Removes the files whose deletion waited for the backup (the server would only at its next delete). */
async function drainDeferredDeletions(store: FileStore): Promise<void> {
  const sqlite = new Database(join(store.dataDir, DATABASE_FILE), { fileMustExist: true });
  try {
    sqlite.pragma('busy_timeout = 5000');
    await store.drainDeletions(drizzle(sqlite, { schema }));
  } finally {
    sqlite.close();
  }
}

/** The manifest of a backup folder, checked for shape and for paths that stay inside the folder. */
export async function readManifest(from: string): Promise<BackupManifest> {
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(await readFile(join(from, MANIFEST_FILE), 'utf8')) as BackupManifest;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new BackupError(`${from} is not a complete Hangar backup (no ${MANIFEST_FILE})`);
    throw new BackupError(`${join(from, MANIFEST_FILE)} is not readable JSON: ${(error as Error).message}`);
  }
  if (manifest?.format !== 'hangar-backup' || !Array.isArray(manifest.files)) throw new BackupError(`${join(from, MANIFEST_FILE)} is not a Hangar backup manifest`);
  if (manifest.formatVersion !== BACKUP_FORMAT_VERSION) {
    throw new BackupError(`the backup has format ${manifest.formatVersion}; this Hangar reads format ${BACKUP_FORMAT_VERSION}`);
  }
  for (const file of manifest.files) {
    const path = normalize(String(file.path));
    if (isAbsolute(path) || path === '..' || path.startsWith(`..${sep}`) || path === MANIFEST_FILE || !/^[0-9a-f]{64}$/.test(file.sha256)) {
      throw new BackupError(`the manifest lists ${JSON.stringify(file.path)}, which a backup cannot hold`);
    }
  }
  if (!manifest.files.some((f) => f.path === DATABASE_FILE)) throw new BackupError(`the manifest lists no ${DATABASE_FILE}`);
  return manifest;
}

export interface RestoreOptions {
  /** a data directory that is not empty is moved aside (to `<dir>.before-restore-<time>`) instead of refused */
  force?: boolean;
  signal?: AbortSignal;
  now?: () => number;
}

export interface RestoreResult {
  manifest: BackupManifest;
  dataDir: string;
  /** where the data directory that was there went (with `force`) */
  movedAside: string | null;
}

/** Restores the backup in `from` as the data directory `to`, which must be empty or absent unless `force`. */
export async function restoreBackup(from: string, to: string, options: RestoreOptions = {}): Promise<RestoreResult> {
  const source = resolve(from);
  const target = resolve(to);
  const manifest = await readManifest(source);
  const occupied = existsSync(target) && (await readdir(target)).length > 0;
  if (occupied && !options.force) throw new BackupError(`${target} is not empty: restore into an empty or new folder, or pass --force to move it aside`);

  const staging = await siblingFolder(target, 'restoring');
  try {
    for (const file of manifest.files) {
      const copied = await copyHashed(join(source, file.path), join(staging, file.path), options.signal).catch((error: NodeJS.ErrnoException) => {
        throw error.code === 'ENOENT' ? new BackupError(`the backup is damaged: ${file.path} is missing`) : error;
      });
      if (copied.sha256 !== file.sha256 || copied.size !== file.size) throw new BackupError(`the backup is damaged: ${file.path} does not match its SHA-256 in the manifest`);
    }
    checkDatabase(join(staging, DATABASE_FILE), manifest);
    const movedAside = await swapInto(staging, target, occupied, options.now ?? Date.now);
    return { manifest, dataDir: target, movedAside };
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}

/** The restored database: intact, not from a newer Hangar, and holding the rows the manifest counted. */
function checkDatabase(file: string, manifest: BackupManifest): void {
  const sqlite = new Database(file, { fileMustExist: true });
  try {
    const integrity = sqlite.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') throw new BackupError(`the backup's database is damaged: ${String(integrity)}`);
    const migration = schemaMigration(sqlite);
    const known = newestKnownMigration();
    if (migration > known) throw new DatabaseTooNewError(migration, known);
    const rows = rowCounts(sqlite);
    if (migration !== manifest.schemaMigration || JSON.stringify(rows) !== JSON.stringify(manifest.counts.rows)) {
      throw new BackupError("the backup's database does not hold what its manifest describes");
    }
  } finally {
    sqlite.close();
  }
}

/** Renames the restored folder into place, moving an occupied data directory aside first. */
async function swapInto(staging: string, target: string, occupied: boolean, now: () => number): Promise<string | null> {
  if (!occupied) {
    if (existsSync(target)) await rmdir(target); // empty: rename cannot replace it everywhere
    await rename(staging, target);
    return null;
  }
  const aside = join(dirname(target), `${basename(target)}.before-restore-${new Date(now()).toISOString().replace(/[:.]/g, '-')}`);
  await rename(target, aside);
  try {
    await rename(staging, target);
  } catch (error) {
    await rename(aside, target);
    throw error;
  }
  return aside;
}
