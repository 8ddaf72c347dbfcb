/**
 * A real Hangar server for a test file: started in-process on a loopback port, with its own
 * temporary data directory (a real SQLite file) and a known admin token.
 */
import Database from 'better-sqlite3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveConfig, type ServerConfig } from '../../src-server/config/config.ts';
import { DATABASE_FILE, startServer, type RunningServer, type StartOptions } from '../../src-server/server.ts';
import { ApiClient } from './client.ts';

export const ADMIN_TOKEN = 'hgr_test-admin-token-0123456789abcdef';

export interface TestServer {
  server: RunningServer;
  config: ServerConfig;
  url: string;
  dataDir: string;
  /** a client authenticated as the initial admin */
  admin: ApiClient;
  /** a client without credentials */
  anon: ApiClient;
  client(token?: string | null): ApiClient;
  /** a second, read-only connection to the same SQLite file */
  sql: Database.Database;
  close(): Promise<void>;
}

export async function startTestServer(overrides: Partial<ServerConfig> = {}, options: StartOptions = {}): Promise<TestServer> {
  // A given data directory is the caller's (a restart on the same data); a fresh one is ours to remove.
  const ownsDataDir = overrides.dataDir === undefined;
  const dataDir = overrides.dataDir ?? (await mkdtemp(join(tmpdir(), 'hangar-test-')));
  const config: ServerConfig = {
    ...resolveConfig({ host: '127.0.0.1', port: 0, data: dataDir, mdns: false }, {}),
    logToStdout: false,
    initialAdminToken: ADMIN_TOKEN,
    ...overrides,
  };
  const server = await startServer(config, options);
  const url = server.localUrl;
  const sql = new Database(join(dataDir, DATABASE_FILE), { readonly: true });
  const client = (token: string | null = null) => new ApiClient(url, token);
  return {
    server,
    config,
    url,
    dataDir,
    admin: client(ADMIN_TOKEN),
    anon: client(null),
    client,
    sql,
    async close() {
      sql.close();
      await server.close();
      if (ownsDataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
