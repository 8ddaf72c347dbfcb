/**
 * The running server advertises itself (LAN issue: DNS-SD `_hangar._tcp` with the base URL in TXT),
 * follows address changes in that record, says goodbye when it stops, and stays silent with mDNS off.
 * Browsed over real multicast; skipped with the reason when multicast does not work here.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { Interfaces } from '../../src-server/network/addresses.ts';
import { openQuerier, type MdnsRecord } from '../helpers/mdns.ts';
import { startTestServer } from '../helpers/server.ts';

const SERVICE = '_hangar._tcp.local';
const querier = await openQuerier();
if (querier.unavailable) console.warn(`SKIPPING mDNS server tests: ${querier.unavailable}`);
afterAll(() => querier.close());

/** The TXT strings of every instance heard whose `url=` is `url`. */
function txtWithUrl(records: MdnsRecord[], url: string): string[] | undefined {
  for (const record of records) {
    if (record.type !== 'TXT' || !record.name.endsWith(`.${SERVICE}`)) continue;
    const txt = [record.data].flat().map(String);
    if (txt.includes(`url=${url}`)) return txt;
  }
  return undefined;
}

const browse = (done: (records: MdnsRecord[]) => boolean, ms = 8_000) => querier.browse(SERVICE, done, ms);

describe.skipIf(querier.unavailable !== null)('the server on the LAN (mDNS)', () => {
  it('is found by a browse for _hangar._tcp with its base and HTTPS URLs, follows an address change, and is gone after it stops', async () => {
    const lan = { address: `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.7` };
    const interfaces = () =>
      ({
        lo: [{ address: '127.0.0.1', family: 'IPv4', internal: true, netmask: '255.0.0.0', mac: '00:00:00:00:00:00', cidr: null }],
        eth0: [{ address: lan.address, family: 'IPv4', internal: false, netmask: '255.255.255.0', mac: '02:00:00:00:00:01', cidr: null }],
      }) as unknown as Interfaces;
    // listens on every interface, like `hangar serve`; the addresses devices are told are the fake ones
    const t = await startTestServer({ host: '0.0.0.0', mdns: true }, { network: { interfaces, pollMs: 60_000 } });
    let stopped = false;
    try {
      const base = `http://${lan.address}:${t.server.port}`;
      const heard = await browse((records) => txtWithUrl(records, base) !== undefined);
      const txt = txtWithUrl(heard, base);
      expect(txt, 'the advertisement of this server').toBeDefined();
      expect(txt).toEqual(expect.arrayContaining(['txtvers=1', `https=https://${lan.address}:${t.server.httpsPort}`, 'path=/api']));
      expect(txt!.some((entry) => entry.startsWith('version='))).toBe(true);

      lan.address = `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.8`;
      expect(t.server.network.check()).toBe(true);
      const moved = `http://${lan.address}:${t.server.port}`;
      expect(txtWithUrl(await browse((records) => txtWithUrl(records, moved) !== undefined), moved)).toBeDefined();

      await t.close();
      stopped = true;
      const after = await browse(() => false, 2_500);
      expect(txtWithUrl(after, moved)).toBeUndefined();
    } finally {
      if (!stopped) await t.close();
    }
  });

  it('is not advertised with mDNS off', async () => {
    const t = await startTestServer({ host: '0.0.0.0', baseUrl: `http://quiet-${randomBytes(4).toString('hex')}.test:7700`, mdns: false });
    try {
      const heard = await browse(() => false, 2_500);
      expect(txtWithUrl(heard, t.config.baseUrl!)).toBeUndefined();
    } finally {
      await t.close();
    }
  });
});
