import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // Native modules (better-sqlite3) and real servers: one process per test file.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 120_000,
    env: { TZ: 'Asia/Shanghai' },
  },
});
