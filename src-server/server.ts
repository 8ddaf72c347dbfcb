/**
 * Hangar's server lifecycle, shared by the CLI (`hangar serve`), the desktop app's main process and
 * the tests: open a data directory (database, migrations, first start, unfinished deletions), serve
 * the API, and stop cleanly.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { buildApp, type HangarApp } from './app.ts';
import { findConsoleBuild } from './routes/console.ts';
import { readBuildInfo, type BuildInfo } from './config/build-info.ts';
import type { ServerConfig } from './config/config.ts';
import { EventBus } from './domain/events.ts';
import { createDomain, ensureFirstAdmin, type Domain, type FirstStart } from './domain/index.ts';
import { closeStalledConnections } from './http/idle-connections.ts';
import { createLogger } from './http/logging.ts';
import { startWebhookDelivery, type WebhookDeliveryOptions } from './jobs/webhook-delivery.ts';
import { advertise, instanceName, type Advertisement } from './network/discovery.ts';
import { publicUrls, type ListeningPorts } from './network/public-urls.ts';
import type { Urls } from './network/urls.ts';
import { watchNetwork, type NetworkState, type NetworkWatcher, type NetworkWatcherOptions } from './network/watcher.ts';
import { openDatabase, type OpenDatabase } from './storage/database.ts';
import { FileStore } from './storage/files.ts';
import { sweepDataDirectory, type SweepReport } from './storage/sweep.ts';
import { loadOrCreateAuthority, publicPart, type CertificateAuthority, type SigningAuthority } from './tls/authority.ts';
import { openServerCertificates, serverNames, type ServerCertificate, type ServerCertificates, type ServerNames } from './tls/server-certificate.ts';

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
  await writableDataDirectory(config.dataDir);
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

/** Makes the data folder if needed and proves it writable, with a message that names it when not. */
async function writableDataDirectory(dir: string): Promise<void> {
  const probe = join(dir, `.write-check-${process.pid}`);
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(probe, '');
    await unlink(probe);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new Error(`the data folder ${dir} is not writable (${code === 'EROFS' ? 'read-only file system' : code}); Hangar keeps its database and builds there`, { cause: error });
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
  /** the HTTPS port, or null when HTTPS is off */
  httpsPort: number | null;
  /** e.g. https://127.0.0.1:7701, or null when HTTPS is off */
  localHttpsUrl: string | null;
  /** the absolute URLs handed out now (they follow the LAN address) */
  urls(): Urls;
  /** the installation's CA (public part): what a client trusts to reach the HTTPS port */
  authority: CertificateAuthority;
  /** the LAN addresses as last seen, and a way to look again now */
  network: NetworkWatcher;
  /** the server certificate now in use (null when HTTPS is off) */
  serverCertificate(): ServerCertificate | null;
  /** Stops accepting, lets requests in flight finish (up to the shutdown timeout), closes the database. */
  close(): Promise<void>;
}

/** Options only startServer reads. */
export interface StartOptions extends OpenOptions {
  buildInfo?: BuildInfo;
  /** where the LAN addresses come from and how often they are looked at (tests change them) */
  network?: NetworkWatcherOptions;
  /** the built console to serve at /console; default: found next to the sources or the bundle */
  consoleDir?: string | null;
}

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** Host names that may reach this machine from the LAN: its name and <name>.local (mDNS). */
function machineNames(): string[] {
  const name = hostname().toLowerCase();
  if (!/^[a-z0-9][a-z0-9.-]*$/.test(name)) return [];
  const short = name.split('.')[0]!;
  return [name, `${short}.local`];
}

/** Everything the HTTPS certificate must cover (LAN issue: addresses, names, base URL, loopback). */
function certificateNames(config: ServerConfig, state: NetworkState): ServerNames {
  const hosts = [...state.addresses.map((a) => a.address), ...machineNames(), 'localhost', '127.0.0.1', '::1'];
  if (config.baseUrl) hosts.push(new URL(config.baseUrl).hostname);
  if (config.host !== '0.0.0.0' && config.host !== '::') hosts.push(config.host);
  return serverNames(hosts);
}

/** Where to advertise: the chosen interface, or the one address listened on; undefined: everywhere. */
function advertisedOn(config: ServerConfig): string[] | undefined {
  if (config.networkInterface) return [config.networkInterface];
  if (config.host !== '0.0.0.0' && config.host !== '::') return [config.host];
  return undefined;
}

/** How often the certificate's expiry is looked at (it is renewed 30 days before). */
const CERTIFICATE_CHECK_MS = 12 * 3600 * 1000;

export async function startServer(config: ServerConfig, options: StartOptions = {}): Promise<RunningServer> {
  const hangar = await openHangar(config, options);
  const logger = createLogger(config);
  const now = options.now ?? Date.now;
  const buildInfo = options.buildInfo ?? readBuildInfo();
  const network = watchNetwork({ ...options.network, preferred: config.networkInterface });
  if (config.networkInterface && !network.current().addresses.some((a) => a.interface === config.networkInterface || a.address === config.networkInterface)) {
    logger.warn({ interface: config.networkInterface, addresses: network.current().addresses }, 'the chosen network interface has no LAN address; using the first one found');
  }
  const ports: ListeningPorts = { http: 0, https: null };
  /** the mDNS advertisement, once up (it starts in the background, below) */
  let advertisement: Advertisement | null = null;
  const urls = publicUrls(config, () => network.current().primary, () => ports);

  let app: HangarApp;
  let built: HangarApp | null = null; // for the clean-up when a later step fails
  let https: HttpsServer | null = null;
  let certificates: ServerCertificates | null = null;
  let authority: SigningAuthority;
  try {
    authority = await loadOrCreateAuthority(config.dataDir, now);
    app = built = await buildApp({
      config,
      domain: hangar.domain,
      logger,
      buildInfo,
      dataVersion: hangar.database.changes,
      urls,
      authority: publicPart(authority),
      host: () => ({ ...network.current(), httpsPort: ports.https, mdns: advertisement?.active ?? false }),
      consoleDir: options.consoleDir === undefined ? findConsoleBuild() : options.consoleDir,
    });
    closeStalledConnections(app.server, logger);
    await app.listen({ host: config.host, port: config.port });
    ports.http = (app.server.address() as AddressInfo).port;
    if (config.httpsPort !== null) {
      certificates = await openServerCertificates(config.dataDir, authority, certificateNames(config, network.current()), now);
      https = await listenHttps(app, certificates.current(), config.host, config.httpsPort);
      closeStalledConnections(https, logger);
      ports.https = (https.address() as AddressInfo).port;
    }
  } catch (error) {
    network.stop();
    https?.close();
    await built?.close().catch(() => {});
    hangar.close();
    logger.flush();
    throw error;
  }
  const { sweep } = hangar;
  if (sweep.temporariesRemoved > 0 || sweep.orphansRemoved.length > 0) {
    logger.warn({ temporaries: sweep.temporariesRemoved, orphans: sweep.orphansRemoved }, 'start-up sweep removed what a crash left behind');
  }
  if (sweep.missingFiles.length > 0) logger.error({ missing: sweep.missingFiles }, 'rows whose files are missing from the data directory');
  const local = config.host === '0.0.0.0' ? '127.0.0.1' : config.host === '::' ? '::1' : config.host;

  /** Reissues the certificate when it no longer covers the names or nears expiry, and swaps it in. */
  async function refreshCertificate(): Promise<void> {
    if (!certificates || !https) return;
    try {
      if (await certificates.ensure(certificateNames(config, network.current()))) {
        const fresh = certificates.current();
        https.setSecureContext({ key: fresh.keyPem, cert: fresh.certificatePem });
        logger.info({ names: fresh.names, notAfter: fresh.notAfter }, 'HTTPS certificate reissued');
      }
    } catch (error) {
      logger.error({ err: error }, 'could not reissue the HTTPS certificate; the old one stays in use');
    }
  }
  let refreshing: Promise<void> = Promise.resolve();
  const refresh = () => (refreshing = refreshing.then(refreshCertificate));
  const certificateTimer = setInterval(refresh, CERTIFICATE_CHECK_MS);
  certificateTimer.unref();

  // DHCP gave us another address, or the machine moved to another network: links and QR codes follow
  // on their own (publicUrls asks the watcher); consoles hear of it, the certificate is reissued.
  network.onChange((next, previous) => {
    const u = urls();
    logger.info({ from: previous.primary, to: next.primary, addresses: next.addresses.map((a) => a.address), baseUrl: u.base }, 'LAN addresses changed');
    hangar.domain.ctx.events.emit({
      type: 'server.address_changed',
      primary: next.primary,
      addresses: next.addresses.map((a) => a.address),
      baseUrl: u.base,
      secureBaseUrl: u.secureBase,
    });
    void refresh();
    void advertising.then((advertisement) => advertisement?.update(advertisedUrls()));
  });

  // DNS-SD/mDNS (_hangar._tcp) so that CI agents and consoles find the server. Started in the
  // background (probing takes a second or more) and never a reason to fail: see network/discovery.ts.
  const advertising: Promise<Advertisement | null> = config.mdns
    ? advertise(
        {
          name: instanceName(),
          port: ports.http,
          ...advertisedUrls(),
          version: buildInfo.version,
          ...(advertisedOn(config) && { interfaces: advertisedOn(config) }),
          ipv6: config.host === '::',
        },
        logger,
      ).then(
        (started) => (advertisement = started),
        (error: unknown) => {
          logger.warn({ err: error }, 'not advertising on the LAN (mDNS)');
          return null;
        },
      )
    : Promise.resolve(null);
  function advertisedUrls() {
    const u = urls();
    return { baseUrl: u.base, secureBaseUrl: ports.https === null ? null : u.secureBase };
  }

  // Webhook deliveries (R13): sends what is queued, picks up what the last run left pending.
  const webhookJob = startWebhookDelivery({ domain: hangar.domain, logger, urls, version: buildInfo.version }, options.webhooks);

  let closing: Promise<void> | null = null;
  async function close(): Promise<void> {
    closing ??= (async () => {
      network.stop();
      clearInterval(certificateTimer);
      // Connections still busy when the timeout strikes are cut, so that a stop never hangs.
      const timer = setTimeout(() => {
        app.server.closeAllConnections();
        https?.closeAllConnections();
      }, config.shutdownTimeoutMs);
      try {
        const httpsClosed = https ? new Promise<void>((resolve) => https!.close(() => resolve())) : Promise.resolve();
        https?.closeIdleConnections();
        await app.close();
        await httpsClosed;
        await refreshing;
        await (await advertising)?.stop(); // goodbye packets: browsers forget us at once
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
    url: `http://${hostForUrl(config.host)}:${ports.http}`,
    localUrl: `http://${hostForUrl(local)}:${ports.http}`,
    port: ports.http,
    httpsPort: ports.https,
    localHttpsUrl: ports.https === null ? null : `https://${hostForUrl(local)}:${ports.https}`,
    urls,
    authority: publicPart(authority),
    network,
    serverCertificate: () => certificates?.current() ?? null,
    close,
  };
}

/**
 * The HTTPS port: the same Fastify app (routes, hooks, access control) behind a TLS server; its
 * certificate is swapped in place when reissued (setSecureContext), without a restart.
 */
async function listenHttps(app: HangarApp, certificate: ServerCertificate, host: string, port: number): Promise<HttpsServer> {
  const server = createHttpsServer(
    {
      key: certificate.keyPem,
      cert: certificate.certificatePem,
      minVersion: 'TLSv1.2',
      // the same time limits as the HTTP server
      keepAliveTimeout: app.server.keepAliveTimeout,
      headersTimeout: app.server.headersTimeout,
      requestTimeout: app.server.requestTimeout,
      // (set by Node from the server's options, missing from its typings)
      connectionsCheckingInterval: (app.server as { connectionsCheckingInterval?: number }).connectionsCheckingInterval,
    },
    (request, response) => app.routing(request, response),
  );
  server.setTimeout(app.server.timeout);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}
