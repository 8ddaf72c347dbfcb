/** Looking at the database and the data directory from the outside, to prove what changed and what did not. */
import type Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';

/** Row counts of every table of ours. */
export function counts(sql: Database.Database): Record<string, number> {
  const result: Record<string, number> = {};
  for (const table of tables(sql)) result[table] = (sql.prepare(`SELECT count(*) AS n FROM "${table}"`).get() as { n: number }).n;
  return result;
}

export function tables(sql: Database.Database): string[] {
  return (sql.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
}

/**
 * A fingerprint of every row of every table. `last_used_at` of tokens is left out: it records that a
 * token was used, which a refused request may legitimately do.
 */
export function fingerprint(sql: Database.Database): string {
  const hash = createHash('sha256');
  for (const table of tables(sql)) {
    const rows = sql.prepare(`SELECT * FROM "${table}" ORDER BY rowid`).all() as Record<string, unknown>[];
    for (const row of rows) {
      delete row.last_used_at;
      hash.update(`${table} ${JSON.stringify(row)}\n`);
    }
  }
  return hash.digest('hex');
}

/** Every file under a directory, as paths relative to it. */
export async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => relative(dir, join(e.parentPath, e.name))).sort();
}
