/**
 * What "nothing half-written" means for a data directory, checked from the outside after a crash and
 * a restart: SQLite's own checks pass; every release and debug file row has its file, with the size
 * and SHA-256 the row records; every stored directory belongs to a row; no temporary file and no
 * queued deletion is left.
 */
import type Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { withDatabase } from '../cli/spawn.ts';

interface StoredRow {
  id: number;
  channel_id: number;
  file_path: string;
  size: number;
  sha256: string;
}

async function subdirectories(path: string): Promise<string[]> {
  const entries = await readdir(path, { withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isDirectory()).map((e) => e.name);
}

/** Every stored directory (files/channels/C, .../releases/R, .../debug_files/D), relative to the data directory. */
export async function storedDirectories(dataDir: string): Promise<string[]> {
  const root = join('files', 'channels');
  const out: string[] = [];
  for (const channel of await subdirectories(join(dataDir, root))) {
    out.push(join(root, channel));
    for (const kind of ['releases', 'debug_files']) {
      for (const id of await subdirectories(join(dataDir, root, channel, kind))) out.push(join(root, channel, kind, id));
    }
  }
  return out.sort();
}

function read(dataDir: string) {
  return withDatabase(dataDir, (sql: Database.Database) => ({
    integrity: sql.pragma('integrity_check', { simple: true }),
    foreignKeys: sql.pragma('foreign_key_check') as unknown[],
    channels: (sql.prepare('SELECT id FROM channels').all() as { id: number }[]).map((r) => r.id),
    releases: sql.prepare('SELECT id, channel_id, file_path, size, sha256 FROM releases').all() as StoredRow[],
    debugFiles: sql.prepare('SELECT id, channel_id, file_path, size, sha256 FROM debug_files').all() as StoredRow[],
    queuedDeletions: (sql.prepare('SELECT count(*) AS n FROM file_deletions').get() as { n: number }).n,
  }));
}

/** Asserts the data directory is whole; returns how many releases it holds. */
export async function expectConsistent(dataDir: string): Promise<{ releases: number }> {
  const db = read(dataDir);
  expect(db.integrity, 'PRAGMA integrity_check').toBe('ok');
  expect(db.foreignKeys, 'PRAGMA foreign_key_check').toEqual([]);
  expect(db.queuedDeletions, 'no deletion left queued').toBe(0);
  expect(await readdir(join(dataDir, 'tmp')).catch(() => []), 'no temporary file').toEqual([]);

  const owned = new Set(db.channels.map((id) => join('files', 'channels', String(id))));
  for (const [kind, rows] of [['releases', db.releases], ['debug_files', db.debugFiles]] as const) {
    for (const row of rows) {
      owned.add(join('files', 'channels', String(row.channel_id), kind, String(row.id)));
      const data = await readFile(join(dataDir, row.file_path)).catch(() => null);
      expect(data, `${kind} ${row.id} has its file ${row.file_path}`).not.toBeNull();
      expect(data!.length, `${kind} ${row.id}: size`).toBe(row.size);
      expect(createHash('sha256').update(data!).digest('hex'), `${kind} ${row.id}: SHA-256`).toBe(row.sha256);
    }
  }
  const orphans = (await storedDirectories(dataDir)).filter((dir) => !owned.has(dir));
  expect(orphans, 'every stored directory belongs to a row').toEqual([]);
  return { releases: db.releases.length };
}
