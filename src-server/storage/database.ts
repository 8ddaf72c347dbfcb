/**
 * Opens the SQLite database of a data directory: WAL, foreign keys on, a busy timeout for the CLI
 * and the server writing side by side, then the schema migrations.
 *
 * Migrations are drizzle-kit's SQL files (./migrations) and are recorded in drizzle's own
 * `__drizzle_migrations` table, so drizzle-kit keeps working on our databases. They are applied here
 * rather than by drizzle's `migrate()` because we need two things it does not do: the check for
 * pending work inside one `BEGIN IMMEDIATE` transaction (two processes starting together must not both
 * migrate), and refusing a database that a newer Hangar has already migrated past this code.
 */
import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { fileURLToPath } from 'node:url';
import * as schema from './schema.ts';

export type Db = BetterSQLite3Database<typeof schema>;

export interface OpenDatabase {
  db: Db;
  sqlite: Database.Database;
  /** Rows this connection has changed since it opened: a version of the data that every write moves. */
  changes(): number;
  close(): void;
}

export class DatabaseTooNewError extends Error {
  constructor(dbMigration: number, codeMigration: number) {
    super(
      `This database was migrated by a newer Hangar (schema ${dbMigration}, this build knows up to ${codeMigration}). ` +
        'Run the newer version, or restore a backup made by this one.',
    );
    this.name = 'DatabaseTooNewError';
  }
}

export const DEFAULT_MIGRATIONS_FOLDER = fileURLToPath(new URL('./migrations', import.meta.url));
const MIGRATIONS_TABLE = '__drizzle_migrations';

export function openDatabase(file: string, options: { migrationsFolder?: string } = {}): OpenDatabase {
  const sqlite = new Database(file);
  try {
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    migrate(sqlite, options.migrationsFolder ?? DEFAULT_MIGRATIONS_FOLDER);
  } catch (error) {
    sqlite.close();
    throw error;
  }
  const db = drizzle(sqlite, { schema });
  // Every transaction of the domain writes. BEGIN IMMEDIATE takes the write lock at its start (waiting
  // up to the busy timeout for it): a deferred one that read first could fail half-way with
  // SQLITE_BUSY_SNAPSHOT when another process (a backup, a CLI command) wrote in between.
  const transaction = db.transaction.bind(db);
  db.transaction = ((run, config) => transaction(run, { behavior: 'immediate', ...config })) as typeof db.transaction;
  const totalChanges = sqlite.prepare('SELECT total_changes()').pluck();
  return {
    db,
    sqlite,
    changes: () => totalChanges.get() as number,
    close() {
      if (sqlite.open) {
        sqlite.pragma('optimize');
        sqlite.close();
      }
    },
  };
}

/** Applies pending migrations; returns how many were applied. Safe to call on every start. */
export function migrate(sqlite: Database.Database, migrationsFolder: string): number {
  const migrations = readMigrationFiles({ migrationsFolder });
  const newestKnown = Math.max(0, ...migrations.map((m) => m.folderMillis));
  sqlite.exec(
    `CREATE TABLE IF NOT EXISTS "${MIGRATIONS_TABLE}" (id INTEGER PRIMARY KEY, hash TEXT NOT NULL, created_at NUMERIC)`,
  );
  const apply = sqlite.transaction(() => {
    const row = sqlite.prepare(`SELECT max(created_at) AS last FROM "${MIGRATIONS_TABLE}"`).get() as {
      last: number | null;
    };
    const last = row.last === null ? 0 : Number(row.last);
    if (last > newestKnown) throw new DatabaseTooNewError(last, newestKnown);
    const record = sqlite.prepare(`INSERT INTO "${MIGRATIONS_TABLE}" (hash, created_at) VALUES (?, ?)`);
    let applied = 0;
    for (const migration of migrations) {
      if (migration.folderMillis <= last) continue;
      for (const statement of migration.sql) {
        if (statement.trim()) sqlite.exec(statement);
      }
      record.run(migration.hash, migration.folderMillis);
      applied += 1;
    }
    return applied;
  });
  // IMMEDIATE takes the write lock before reading what is applied: a second process waits, then
  // finds nothing left to do.
  return apply.immediate();
}
