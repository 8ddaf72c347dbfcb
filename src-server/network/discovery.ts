/**
 * Advertising the server on the LAN with DNS-SD over multicast DNS (RFC 6762, RFC 6763), so that CI
 * agents and consoles find it without being told its address. A browse for `_hangar._tcp.local`
 * finds one instance (e.g. "Hangar on build-mac") whose SRV record names the HTTP port and whose TXT
 * record carries what a client needs:
 *
 *   txtvers=1  url=<public base URL (R11)>  https=<secure base URL, when HTTPS is served>
 *   version=<server version>  path=/api
 *
 * Use (the server starts it unless mDNS is turned off):
 *
 *   const mdns = await advertise({ name: instanceName(), port, baseUrl, secureBaseUrl, version }, logger);
 *   await mdns.update({ baseUrl, secureBaseUrl });  // the base URL changed (DHCP): new TXT, announced, no re-probe
 *   await mdns.stop();                              // goodbye packets (TTL 0), sockets released
 *
 * Discovery is a convenience, never a reason for the server not to start or stop. When it cannot
 * work (the interfaces asked for do not exist, the mDNS port or group cannot be joined or sent to, as
 * in some containers), advertise() logs a warning and returns an Advertisement that does nothing;
 * update() and stop() never throw, and stop() never waits more than a few seconds.
 *
 * The responder is @homebridge/ciao, imported only when advertising (its import installs
 * source-map-support process-wide). It resolves name conflicts itself ("<name> (2)"); the rename is
 * logged. It reports its own troubles with console.log and offers no hook to redirect them, and it
 * reports success even when none of its sockets could bind. So the multicast check below runs first
 * and keeps it off those paths: a start, update and stop that work print nothing on the console.
 */
import { createSocket } from 'node:dgram';
import { hostname, networkInterfaces } from 'node:os';
import type { Logger } from 'pino';

/** `_hangar._tcp.local` */
const SERVICE_TYPE = 'hangar';
const MDNS_PORT = 5353;
const MDNS_GROUP = '224.0.0.251';
/** Probing and announcing take about a second; each name conflict about one more. */
const START_TIMEOUT_MS = 10_000;
/** For each of: withdrawing the service (goodbye packets), shutting the responder down. */
const STOP_TIMEOUT_MS = 2_000;

export interface DiscoveryOptions {
  /** the instance name; on a conflict the advertisement goes on as "<name> (2)" */
  name: string;
  /** the HTTP port (SRV record) */
  port: number;
  baseUrl: string;
  /** the HTTPS base URL, when HTTPS is served */
  secureBaseUrl: string | null;
  /** the server's version */
  version: string;
  /** interface names or addresses to advertise on (the --host / --interface the server uses); undefined = all */
  interfaces?: string[];
  /** the server listens on IPv6 too: advertise AAAA records as well as A records */
  ipv6?: boolean;
}

export type AdvertisedUrls = Pick<DiscoveryOptions, 'baseUrl' | 'secureBaseUrl'>;

export interface Advertisement {
  /** true while the service is announced on the LAN (false for the stand-in when discovery cannot work) */
  readonly active: boolean;
  /** Changes the TXT record when the URLs changed; announced at once, without probing again. */
  update(next: AdvertisedUrls): Promise<void>;
  /** Withdraws the service and releases the sockets. Idempotent. */
  stop(): Promise<void>;
}

/** What advertise() returns when discovery cannot work. */
const NOT_ADVERTISING: Advertisement = { active: false, update: async () => {}, stop: async () => {} };

/** "Hangar on <this machine's name, without its domain>". */
export function instanceName(host: string = hostname()): string {
  return `Hangar on ${host.split('.')[0] || 'this machine'}`;
}

export function txtRecord(options: AdvertisedUrls & Pick<DiscoveryOptions, 'version'>): Record<string, string> {
  return {
    txtvers: '1',
    url: options.baseUrl,
    ...(options.secureBaseUrl === null ? {} : { https: options.secureBaseUrl }),
    version: options.version,
    path: '/api',
  };
}

type Interfaces = ReturnType<typeof networkInterfaces>;

interface Placement {
  /** the IPv4 addresses the advertisement goes out from (ciao's sockets are IPv4) */
  addresses: string[];
  /** entries of `wanted` that are neither an interface nor an address of this machine */
  unknown: string[];
}

/** Where to advertise: every interface, or those of `wanted` (names or addresses). */
export function placement(wanted: string[] | undefined, interfaces: Interfaces = networkInterfaces()): Placement {
  const entries = Object.entries(interfaces).flatMap(([name, infos]) => (infos ?? []).map((info) => ({ name, ...info })));
  const chosen = wanted === undefined ? entries : entries.filter((e) => wanted.includes(e.name) || wanted.includes(e.address));
  return {
    addresses: chosen.filter((e) => e.family === 'IPv4').map((e) => e.address),
    unknown: (wanted ?? []).filter((w) => !entries.some((e) => e.name === w || e.address === w)),
  };
}

/** The question "PTR _hangar._tcp.local?", as any browser for Hangar sends it. */
const BROWSE_QUERY = Buffer.concat([
  Buffer.from([0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]), // id 0, flags 0, one question
  ...[`_${SERVICE_TYPE}`, '_tcp', 'local'].map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label)])),
  Buffer.from([0, 0, 12, 0, 1]), // end of name, type PTR, class IN
]);

/**
 * Binds the mDNS port, joins the group and sends one browse query from each address, as the
 * responder will: the addresses where that works, and why it did not elsewhere.
 */
async function checkMulticast(addresses: string[]): Promise<{ working: string[]; failures: string[] }> {
  const socket = createSocket({ type: 'udp4', reuseAddr: true });
  const working: string[] = [];
  const failures: string[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(MDNS_PORT, () => {
        socket.off('error', reject);
        resolve();
      });
    });
    for (const address of addresses) {
      try {
        socket.addMembership(MDNS_GROUP, address);
        socket.setMulticastInterface(address);
        await new Promise<void>((resolve, reject) => socket.send(BROWSE_QUERY, MDNS_PORT, MDNS_GROUP, (error) => (error ? reject(error) : resolve())));
        working.push(address);
      } catch (error) {
        failures.push(`${address}: ${(error as Error).message}`);
      }
    }
  } catch (error) {
    failures.push(`port ${MDNS_PORT}: ${(error as Error).message}`);
  } finally {
    socket.close();
  }
  return { working, failures };
}

/** Settles with `promise`, or rejects after `ms`. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export async function advertise(options: DiscoveryOptions, logger: Logger): Promise<Advertisement> {
  const log = logger.child({ component: 'mdns' });
  const { addresses, unknown } = placement(options.interfaces);
  if (unknown.length > 0) log.warn({ interfaces: unknown }, 'no such network interface or address here');
  if (addresses.length === 0) {
    log.warn({ interfaces: options.interfaces }, 'not advertising on the LAN (mDNS): no IPv4 address to advertise from');
    return NOT_ADVERTISING;
  }
  const { working, failures } = await checkMulticast(addresses);
  if (working.length === 0) {
    log.warn({ failures }, 'not advertising on the LAN (mDNS): multicast does not work here');
    return NOT_ADVERTISING;
  }
  if (failures.length > 0) log.info({ failures, working }, 'multicast does not work from some addresses; advertising from the others');
  const restricted = options.interfaces?.filter((w) => !unknown.includes(w));
  try {
    // The responder's sockets stay off the addresses that failed (it would print its bind errors).
    return await startResponder(options, { sockets: restricted || failures.length > 0 ? working : undefined, records: restricted }, log);
  } catch (error) {
    log.warn({ err: error }, 'not advertising on the LAN (mDNS): the responder did not start');
    return NOT_ADVERTISING;
  }
}

interface Restrictions {
  /** where the responder listens and sends (it always adds loopback); undefined = every interface, as they come and go */
  sockets: string[] | undefined;
  /** the addresses its A/AAAA records give; undefined = those of each interface it answers on */
  records: string[] | undefined;
}

async function startResponder(options: DiscoveryOptions, restrictions: Restrictions, log: Logger): Promise<Advertisement> {
  const { getResponder } = await import('@homebridge/ciao');
  const responder = getResponder(restrictions.sockets ? { interface: restrictions.sockets } : undefined);
  let name = options.name;
  const service = responder.createService({
    name,
    type: SERVICE_TYPE,
    port: options.port,
    hostname: name.replace(/[^A-Za-z0-9-]+/g, '-'),
    txt: txtRecord(options),
    restrictedAddresses: restrictions.records,
    disabledIpv6: !options.ipv6,
  });
  service.on('name-change', (next) => {
    log.warn({ name: next, previous: name }, `another service on the LAN is called "${name}"; advertising as "${next}"`);
    name = next;
  });

  /** Runs one step of stopping; one that fails or hangs is logged, and stopping goes on. */
  const settle = async (what: string, step: () => Promise<void>) => {
    try {
      await within(step(), STOP_TIMEOUT_MS, what);
    } catch (error) {
      log.warn({ err: error }, `${what} failed`);
    }
  };
  const withdraw = async () => {
    await settle('withdrawing the mDNS service', () => service.destroy());
    await settle('shutting the mDNS responder down', () => responder.shutdown());
  };

  try {
    await within(service.advertise(), START_TIMEOUT_MS, 'probing and announcing');
  } catch (error) {
    await withdraw();
    throw error;
  }
  log.info({ name, type: `_${SERVICE_TYPE}._tcp.local`, port: options.port, url: options.baseUrl }, 'advertising on the LAN (mDNS)');

  let current: AdvertisedUrls = { baseUrl: options.baseUrl, secureBaseUrl: options.secureBaseUrl };
  let stopping: Promise<void> | null = null;
  return {
    get active() {
      return stopping === null;
    },
    async update(next) {
      if (stopping || (next.baseUrl === current.baseUrl && next.secureBaseUrl === current.secureBaseUrl)) return;
      try {
        service.updateTxt(txtRecord({ ...next, version: options.version }));
        current = { baseUrl: next.baseUrl, secureBaseUrl: next.secureBaseUrl };
        log.info({ url: next.baseUrl, https: next.secureBaseUrl }, 'advertised URLs changed');
      } catch (error) {
        log.warn({ err: error }, 'could not change the advertised URLs');
      }
    },
    stop: () => (stopping ??= withdraw().then(() => log.info({ name }, 'stopped advertising on the LAN'))),
  };
}
