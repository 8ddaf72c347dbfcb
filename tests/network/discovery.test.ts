/**
 * LAN discovery (mDNS): a real advertisement, browsed for over real multicast by an independent
 * querier, as a CI agent or console would find Hangar; and the fallback that keeps the server
 * running when multicast cannot work.
 *
 * Whether multicast works here is found out first (tests/helpers/mdns.ts). When it does not, the
 * tests that need it skip with the reason (also under CI: the probe is the proof); the rest runs.
 */
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { networkInterfaces } from 'node:os';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { advertise, instanceName, placement, txtRecord, type DiscoveryOptions } from '../../src-server/network/discovery.ts';
import { openQuerier, type MdnsRecord } from '../helpers/mdns.ts';

const SERVICE = '_hangar._tcp.local';

const querier = await openQuerier();
if (querier.unavailable) console.warn(`SKIPPING multicast tests: ${querier.unavailable}`);
afterAll(() => querier.close());

/** A pino logger that keeps what it logs. */
function recordingLogger() {
  const entries: Array<{ level: number; msg: string } & Record<string, any>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      entries.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), entries, messages: () => entries.map((e) => e.msg) };
}

/** Options with an instance name no other test run on the LAN has. */
function options(overrides: Partial<DiscoveryOptions> = {}): DiscoveryOptions {
  return {
    name: `Hangar test ${randomBytes(3).toString('hex')}`,
    port: 7701,
    baseUrl: 'http://192.0.2.10:7701',
    secureBaseUrl: 'https://192.0.2.10:7743',
    version: '1.2.3',
    ...overrides,
  };
}

/** The records of one instance among those heard: its PTR, SRV, TXT (as strings), A and AAAA. */
function instance(records: MdnsRecord[], name: string) {
  const fqdn = `${name}.${SERVICE}`;
  const srv = records.find((r) => r.type === 'SRV' && r.name === fqdn);
  const target = srv?.type === 'SRV' ? srv.data.target : undefined;
  const txt = records.filter((r) => r.type === 'TXT' && r.name === fqdn).at(-1);
  return {
    ptr: records.flatMap((r) => (r.type === 'PTR' && r.name === SERVICE && r.data === fqdn ? [r] : [])),
    srv: srv?.type === 'SRV' ? srv.data : undefined,
    txt: txt?.type === 'TXT' ? [txt.data].flat().map(String) : undefined,
    a: records.flatMap((r) => (r.type === 'A' && r.name === target ? [r.data] : [])),
    aaaa: records.flatMap((r) => (r.type === 'AAAA' && r.name === target ? [r.data] : [])),
  };
}

/** Browses until the instance's PTR, SRV and TXT (and A) records have all been heard. */
async function browseFor(name: string, done = (found: ReturnType<typeof instance>) => found.txt !== undefined) {
  const records = await querier.browse(SERVICE, (heard) => {
    const found = instance(heard, name);
    return found.ptr.length > 0 && found.srv !== undefined && found.a.length > 0 && done(found);
  });
  return instance(records, name);
}

/** ciao prints its troubles on the console: a start, update and stop that work must print nothing. */
let consoleCalls: ReturnType<typeof vi.spyOn>[] = [];
beforeEach(() => {
  consoleCalls = (['log', 'info', 'warn', 'error'] as const).map((method) => vi.spyOn(console, method));
});
afterEach(() => {
  const printed = consoleCalls.flatMap((spy) => spy.mock.calls);
  vi.restoreAllMocks();
  expect(printed, 'printed on the console').toEqual([]);
});

describe('what is advertised', () => {
  it('a TXT record with the version first, the URLs, the server version and the API path', () => {
    expect(txtRecord({ baseUrl: 'http://10.0.0.5:7700', secureBaseUrl: 'https://10.0.0.5:7743', version: '0.4.0' })).toEqual({
      txtvers: '1',
      url: 'http://10.0.0.5:7700',
      https: 'https://10.0.0.5:7743',
      version: '0.4.0',
      path: '/api',
    });
    expect(Object.keys(txtRecord({ baseUrl: 'http://10.0.0.5:7700', secureBaseUrl: null, version: '0.4.0' }))).toEqual(['txtvers', 'url', 'version', 'path']);
  });

  it('an instance name from the machine name, without its domain', () => {
    expect(instanceName('build-mac.lab.example.com')).toBe('Hangar on build-mac');
    expect(instanceName('ci01')).toBe('Hangar on ci01');
  });

  it('the IPv4 addresses of every interface, or of those named (by name or address)', () => {
    const interfaces = {
      lo: [{ address: '127.0.0.1', netmask: '255.0.0.0', family: 'IPv4', mac: '00:00:00:00:00:00', internal: true, cidr: '127.0.0.1/8' }],
      eth0: [
        { address: '10.0.0.5', netmask: '255.255.255.0', family: 'IPv4', mac: '02:00:00:00:00:01', internal: false, cidr: '10.0.0.5/24' },
        { address: 'fd00::5', netmask: 'ffff:ffff:ffff:ffff::', family: 'IPv6', mac: '02:00:00:00:00:01', internal: false, cidr: 'fd00::5/64', scopeid: 0 },
      ],
      wlan0: [{ address: '192.168.1.7', netmask: '255.255.255.0', family: 'IPv4', mac: '02:00:00:00:00:02', internal: false, cidr: '192.168.1.7/24' }],
    } as ReturnType<typeof networkInterfaces>;
    expect(placement(undefined, interfaces)).toEqual({ addresses: ['127.0.0.1', '10.0.0.5', '192.168.1.7'], unknown: [] });
    expect(placement(['eth0'], interfaces)).toEqual({ addresses: ['10.0.0.5'], unknown: [] });
    expect(placement(['192.168.1.7', 'en9'], interfaces)).toEqual({ addresses: ['192.168.1.7'], unknown: ['en9'] });
    expect(placement(['fd00::5'], interfaces)).toEqual({ addresses: [], unknown: [] });
  });
});

describe('when discovery cannot work, the server goes on without it', () => {
  it('interfaces that do not exist: a warning, and an advertisement that does nothing', async () => {
    const { logger, entries } = recordingLogger();
    const started = Date.now();
    const mdns = await advertise(options({ interfaces: ['hangar-none0', '203.0.113.254'] }), logger);
    expect(Date.now() - started).toBeLessThan(1_000);
    await expect(mdns.update({ baseUrl: 'http://192.0.2.11:7701', secureBaseUrl: null })).resolves.toBeUndefined();
    await expect(mdns.stop()).resolves.toBeUndefined();
    await expect(mdns.stop()).resolves.toBeUndefined();
    expect(entries.filter((e) => e.level === 40).map((e) => [e.msg, e.interfaces])).toEqual([
      ['no such network interface or address here', ['hangar-none0', '203.0.113.254']],
      ['not advertising on the LAN (mDNS): no IPv4 address to advertise from', ['hangar-none0', '203.0.113.254']],
    ]);
  });

  it('the mDNS group cannot be joined (as in some containers): a warning with the reason, and nothing started', async () => {
    const refused = vi.spyOn(dgram.Socket.prototype, 'addMembership').mockImplementation(() => {
      throw Object.assign(new Error('addMembership EPERM'), { code: 'EPERM' });
    });
    const { logger, entries } = recordingLogger();
    const name = options().name;
    const mdns = await advertise(options({ name }), logger);
    const warning = entries.find((e) => e.level === 40);
    expect(warning?.msg).toBe('not advertising on the LAN (mDNS): multicast does not work here');
    expect(warning?.failures.length).toBeGreaterThan(0);
    for (const failure of warning?.failures) expect(failure).toMatch(/: addMembership EPERM$/);
    expect(entries.map((e) => e.msg)).not.toContain('advertising on the LAN (mDNS)');
    await mdns.stop();
    refused.mockRestore();
    if (!querier.unavailable) expect(instance(await querier.browse(SERVICE, () => false, 1_500), name).ptr).toEqual([]);
  });
});

describe.skipIf(querier.unavailable !== null)('over real multicast', () => {
  it('a browse for _hangar._tcp finds the instance: PTR, SRV with the HTTP port, TXT with the URLs, an A record', async () => {
    const { logger, messages } = recordingLogger();
    const o = options();
    const mdns = await advertise(o, logger);
    try {
      const found = await browseFor(o.name);
      expect(found.ptr.length).toBeGreaterThan(0);
      expect(found.srv?.port).toBe(7701);
      expect(found.srv?.target).toBe(`${o.name.replaceAll(' ', '-')}.local`);
      expect(found.txt).toEqual(['txtvers=1', 'url=http://192.0.2.10:7701', 'https=https://192.0.2.10:7743', 'version=1.2.3', 'path=/api']);
      expect(found.aaaa, 'no AAAA records unless the server listens on IPv6').toEqual([]);
      expect(messages()).toContain('advertising on the LAN (mDNS)');
    } finally {
      await mdns.stop();
    }
  });

  it('update() changes the TXT record the next browse sees, without the instance going away', async () => {
    const { logger, messages } = recordingLogger();
    const o = options({ secureBaseUrl: null });
    const mdns = await advertise(o, logger);
    try {
      expect((await browseFor(o.name)).txt).toContain('url=http://192.0.2.10:7701');
      await mdns.update({ baseUrl: 'http://192.0.2.10:7701', secureBaseUrl: null }); // unchanged: nothing to do
      await mdns.update({ baseUrl: 'http://198.51.100.7:7701', secureBaseUrl: 'https://198.51.100.7:7743' });
      const found = await browseFor(o.name, (f) => f.txt?.includes('url=http://198.51.100.7:7701') === true);
      expect(found.txt).toEqual(['txtvers=1', 'url=http://198.51.100.7:7701', 'https=https://198.51.100.7:7743', 'version=1.2.3', 'path=/api']);
      expect(messages().filter((m) => m === 'advertised URLs changed')).toHaveLength(1);
      expect(messages().filter((m) => m.includes('advertising as')), 'no probing again, so no rename').toEqual([]);
    } finally {
      await mdns.stop();
    }
  });

  it('stop() says goodbye (TTL 0) and the instance is no longer answered; stopping twice is fine', async () => {
    const { logger, messages } = recordingLogger();
    const o = options();
    const mdns = await advertise(o, logger);
    expect((await browseFor(o.name)).ptr.length).toBeGreaterThan(0);
    const heard = querier.listen();
    await mdns.stop();
    await new Promise((resolve) => setTimeout(resolve, 500));
    heard.stop();
    const goodbye = instance(heard.records, o.name);
    expect(goodbye.ptr.length).toBeGreaterThan(0);
    expect(goodbye.ptr.every((r) => r.ttl === 0)).toBe(true);
    expect(instance(await querier.browse(SERVICE, () => false, 2_000), o.name).ptr.filter((r) => r.ttl !== 0)).toEqual([]);
    await expect(mdns.stop()).resolves.toBeUndefined();
    await expect(mdns.update({ baseUrl: 'http://198.51.100.8:7701', secureBaseUrl: null })).resolves.toBeUndefined();
    expect(messages().filter((m) => m === 'stopped advertising on the LAN')).toHaveLength(1);
    expect(messages()).not.toContain('advertised URLs changed');
  });

  it('a name another service has: renamed to "<name> (2)", logged, both found; stopping one leaves the other', async () => {
    const first = recordingLogger();
    const second = recordingLogger();
    const o = options();
    const a = await advertise(o, first.logger);
    const b = await advertise({ ...o, port: 7702, baseUrl: 'http://192.0.2.20:7702' }, second.logger);
    try {
      const renamed = second.entries.find((e) => e.msg.includes('advertising as'));
      expect(renamed).toMatchObject({ level: 40, name: `${o.name} (2)`, previous: o.name });
      expect(first.entries.find((e) => e.msg.includes('advertising as'))).toBeUndefined();
      const original = await browseFor(o.name);
      const other = await browseFor(`${o.name} (2)`);
      expect([original.srv?.port, other.srv?.port]).toEqual([7701, 7702]);
      expect(other.txt).toContain('url=http://192.0.2.20:7702');

      await b.stop(); // the two share ciao's responder: stopping one leaves the other
      const after = await querier.browse(SERVICE, () => false, 2_000);
      expect(instance(after, o.name).ptr.length).toBeGreaterThan(0);
      expect(instance(after, `${o.name} (2)`).ptr.filter((r) => r.ttl !== 0)).toEqual([]);
    } finally {
      await b.stop();
      await a.stop();
    }
  });

  it('restricted to one address: the A records give only that address', async () => {
    const ipv4 = Object.values(networkInterfaces()).flat().filter((i) => i?.family === 'IPv4');
    const address = (ipv4.find((i) => !i?.internal) ?? ipv4[0])!.address;
    const { logger } = recordingLogger();
    const o = options({ interfaces: [address] });
    const mdns = await advertise(o, logger);
    try {
      const found = await browseFor(o.name);
      expect(new Set(found.a)).toEqual(new Set([address]));
    } finally {
      await mdns.stop();
    }
  });
});
