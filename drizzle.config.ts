import { defineConfig } from 'drizzle-kit';

// `npm run db:generate` writes a new migration into src-server/storage/migrations after a change
// to the schema. Never edit a migration that has been released; add a new one.
export default defineConfig({
  dialect: 'sqlite',
  schema: './src-server/storage/schema.ts',
  out: './src-server/storage/migrations',
});
