/**
 * Hangar's server lifecycle, shared by the CLI (`hangar serve`), the desktop app's main process and
 * the tests: open a data directory (database, migrations, first start, unfinished deletions), serve
 * the API, and stop cleanly.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { buildApp, type HangarApp } from './app.ts';
import { readBuildInfo, type BuildInfo } from './config/build-info.ts';
import type { ServerConfig } from './config/config.ts';
import { EventBus } from './domain/events.ts';
import { createDomain, ensureFirstAdmin, type Domain, type FirstStart } from './domain/index.ts';
import { createLogger } from './http/logging.ts';
import { startWebhookDelivery, type WebhookDeliveryOptions } from './jobs/webhook-delivery.ts';
import { publicUrls } from './network/public-urls.ts';
import { openDatabase, type OpenDatabase } from './storage/database.ts';
import { FileStore } from './storage/files.ts';
import { sweepDataDirectory, type SweepReport } from './storage/sweep.ts';

export const DATABASE_FILE = 'hangar.sqlite3';

export interface Hangar {
  domain: Domain;
  database: OpenDatabase;
  /** set when this start created the first admin (R17) */
  firstStart: FirstStart | null;
  /** what the start-up sweep of the data directory found */
  sweep: SweepReport;
  close(): void;
}

/** Opens (and on first use, sets up) a data directory. Used by `serve` and by the CLI's admin commands. */
export interface OpenOptions {
  now?: () => number;
  /** makes the file store of the data directory (tests pass one that injects faults) */
  fileStore?: (dataDir: string) => FileStore;
  /** webhook delivery settings (tests shorten the retry delays); used by startServer only */
  webhooks?: WebhookDeliveryOptions;
}

export async function openHangar(config: Pick<ServerConfig, 'dataDir' | 'initialAdminToken'>, options: OpenOptions = {}): Promise<Hangar> {
  const now = options.now ?? Date.now;
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const database = openDatabase(join(config.dataDir, DATABASE_FILE));
  try {
    const files = options.fileStore ? options.fileStore(config.dataDir) : new FileStore(config.dataDir);
    const secret = await installationSecret(config.dataDir);
    const domain = createDomain({ db: database.db, files, events: new EventBus(), secret, now });
    const firstStart = await ensureFirstAdmin(domain, config.dataDir, config.initialAdminToken);
    // Deletions a crash interrupted: their rows are gone, finish removing their files. Then the
    // sweep: temporaries and orphans a crash left behind.
    await files.drainDeletions(database.db);
    const sweep = await sweepDataDirectory(database.db, files);
    return { domain, database, firstStart, sweep, close: () => database.close() };
  } catch (error) {
    database.close();
    throw error;
  }
}

export const SECRET_FILE = 'secret.key';

/** The installation's secret: 32 random bytes made at first start, readable by the owner only. */
async function installationSecret(dataDir: string): Promise<Buffer> {
  const file = join(dataDir, SECRET_FILE);
  try {
    const secret = await readFile(file);
    if (secret.length >= 32) return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const secret = randomBytes(32);
  await writeFile(file, secret, { mode: 0o600 });
  return secret;
}

export interface RunningServer {
  app: HangarApp;
  domain: Domain;
  logger: Logger;
  firstStart: FirstStart | null;
  /** where the server listens, e.g. http://0.0.0.0:7700 */
  url: string;
  /** a URL that reaches the server from this machine, e.g. http://127.0.0.1:7700 */
  localUrl: string;
  port: number;
  /** Stops accepting, lets requests in flight finish (up to the shutdown timeout), closes the database. */
  close(): Promise<void>;
}

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

export async function startServer(config: ServerConfig, options: OpenOptions & { buildInfo?: BuildInfo } = {}): Promise<RunningServer> {
  const hangar = await openHangar(config, options);
  const logger = createLogger(config);
  let app: HangarApp;
  const buildInfo = options.buildInfo ?? readBuildInfo();
  try {
    app = await buildApp({ config, domain: hangar.domain, logger, buildInfo, dataVersion: hangar.database.changes });
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    hangar.close();
    logger.flush();
    throw error;
  }
  const { sweep } = hangar;
  if (sweep.temporariesRemoved > 0 || sweep.orphansRemoved.length > 0) {
    logger.warn({ temporaries: sweep.temporariesRemoved, orphans: sweep.orphansRemoved }, 'start-up sweep removed what a crash left behind');
  }
  if (sweep.missingFiles.length > 0) logger.error({ missing: sweep.missingFiles }, 'rows whose files are missing from the data directory');
  const port = (app.server.address() as AddressInfo).port;
  const local = config.host === '0.0.0.0' ? '127.0.0.1' : config.host === '::' ? '::1' : config.host;

  // Webhook deliveries (R13): sends what is queued, picks up what the last run left pending.
  // The same public URLs as the routes (publicUrls from the same config and port).
  const webhookJob = startWebhookDelivery(
    { domain: hangar.domain, logger, urls: publicUrls(config, () => port), version: buildInfo.version },
    options.webhooks,
  );

  let closing: Promise<void> | null = null;
  async function close(): Promise<void> {
    closing ??= (async () => {
      // Connections still busy when the timeout strikes are cut, so that a stop never hangs.
      const timer = setTimeout(() => app.server.closeAllConnections(), config.shutdownTimeoutMs);
      try {
        await app.close();
      } finally {
        clearTimeout(timer);
        // Webhooks stop after the last request (its events are queued) and before the database closes.
        await webhookJob.stop().catch((error: unknown) => logger.error({ err: error }, 'stopping webhook deliveries failed'));
        hangar.close();
        logger.info('stopped');
        logger.flush();
      }
    })();
    return closing;
  }

  return {
    app,
    domain: hangar.domain,
    logger,
    firstStart: hangar.firstStart,
    url: `http://${hostForUrl(config.host)}:${port}`,
    localUrl: `http://${hostForUrl(local)}:${port}`,
    port,
    close,
  };
}
