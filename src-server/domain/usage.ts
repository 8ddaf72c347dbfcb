/**
 * What the data folder holds, from the database (cheap at any size: no walk over the files):
 * the bytes of every release binary and debug-symbol archive kept.
 */
import { sql } from 'drizzle-orm';
import { debugFiles, releases } from '../storage/schema.ts';
import type { DomainContext } from './context.ts';

export function createUsageService(ctx: DomainContext) {
  const sum = (table: typeof releases | typeof debugFiles) => ctx.db.select({ bytes: sql<number>`coalesce(sum(${table.size}), 0)` }).from(table).get()?.bytes ?? 0;
  return {
    storedBytes(): { releases: number; debugFiles: number } {
      return { releases: sum(releases), debugFiles: sum(debugFiles) };
    },
  };
}

export type UsageService = ReturnType<typeof createUsageService>;
