/**
 * HTTPS that devices can trust (LAN issue): the installation's own CA, the server certificate it
 * signs for every name a device may use, the HTTPS port next to HTTP, and reissue when the machine's
 * addresses change. Every check is a real TLS handshake by a Node client that trusts only the CA it
 * is given.
 */
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, unlink } from 'node:fs/promises';
import { hostname, networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lanAddresses, type Interfaces } from '../../src-server/network/addresses.ts';
import { loadOrCreateAuthority } from '../../src-server/tls/authority.ts';
import { namesOf } from '../../src-server/tls/server-certificate.ts';
import { multipartBody, syntheticIpa } from '../helpers/builds.ts';
import { secureFetch } from '../helpers/https.ts';
import { createAppTree } from '../helpers/world.ts';
import { SseStream } from '../helpers/sse.ts';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.ts';

const servers: TestServer[] = [];
const dirs: string[] = [];
async function start(...args: Parameters<typeof startTestServer>): Promise<TestServer> {
  const t = await startTestServer(...args);
  servers.push(t);
  return t;
}
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'hangar-tls-'));
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  for (const t of servers) await t.close();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

const health = (t: TestServer, host: string, init: { servername?: string } = {}) =>
  secureFetch(`https://${host.includes(':') ? `[${host}]` : host}:${t.server.httpsPort}/api/health`, t.server.authority.certificatePem, init);

/** A machine whose interfaces the test decides (eth0 with `address`, a docker bridge, loopback). */
function fakeInterfaces(state: { address: string }): () => Interfaces {
  const entry = (address: string, family: 'IPv4' | 'IPv6', internal = false) => ({
    address,
    family,
    internal,
    netmask: family === 'IPv4' ? '255.255.255.0' : 'ffff:ffff:ffff:ffff::',
    mac: '02:00:00:00:00:01',
    cidr: null,
    ...(family === 'IPv6' ? { scopeid: 0 } : {}),
  });
  return () =>
    ({
      lo: [entry('127.0.0.1', 'IPv4', true)],
      eth0: [entry(state.address, 'IPv4')],
      docker0: [entry('172.17.0.1', 'IPv4')],
    }) as unknown as Interfaces;
}

describe('the certificate authority of an installation', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await start();
  });

  it('is made at first start: key 0600 in a 0700 folder, a CA certificate (CA:TRUE, keyCertSign) of 2048-bit RSA with SHA-256', async () => {
    const dir = join(t.dataDir, 'tls');
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(dir, 'ca.key'))).mode & 0o777).toBe(0o600);
    const ca = new X509Certificate(await readFile(join(dir, 'ca.pem')));
    expect(ca.ca).toBe(true);
    expect(ca.checkIssued(ca)).toBe(true); // self-signed root
    expect(ca.keyUsage ?? []).toEqual([]); // Node lists extended key usage here: a root has none
    expect(ca.publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(ca.subject).toMatch(/CN=Hangar CA /);
    expect(ca.fingerprint256).toBe(t.server.authority.fingerprint256);
    expect(new Date(ca.validTo).getTime()).toBeGreaterThan(Date.now() + 9 * 365 * 24 * 3600 * 1000);
  });

  it('is kept across restarts (devices trust it), and so is a server certificate that still covers every name', async () => {
    const dataDir = await tempDir();
    const first = await start({ dataDir });
    const ca = first.server.authority.fingerprint256;
    const cert = first.server.serverCertificate()!.certificatePem;
    await first.close();
    const second = await start({ dataDir });
    expect(second.server.authority.fingerprint256).toBe(ca);
    expect(second.server.serverCertificate()!.certificatePem).toBe(cert);
  });

  it('refuses to start on a CA certificate without its key, rather than silently making a new CA', async () => {
    const dataDir = await tempDir();
    await (await start({ dataDir })).close();
    await unlink(join(dataDir, 'tls', 'ca.key'));
    await expect(startTestServer({ dataDir })).rejects.toThrow(/CA certificate without its key/);
  });
});

describe('the HTTPS port', () => {
  let t: TestServer;
  beforeAll(async () => {
    // all interfaces, both families: the test reaches the server on each of the machine's LAN addresses
    t = await start({ host: '::', baseUrl: 'http://hangar.lab.test:7700' });
  });

  it('answers the same API as HTTP', async () => {
    const res = await health(t, '127.0.0.1');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ healthy: true });
    const apps = await secureFetch(`${t.server.localHttpsUrl!.replace('[::1]', '127.0.0.1')}/api/apps`, t.server.authority.certificatePem, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(apps.status).toBe(200);
  });

  it('answers /ca/check with 204 to any page (a device page probes it to learn whether the CA is trusted yet)', async () => {
    const res = await secureFetch(`https://127.0.0.1:${t.server.httpsPort}/ca/check`, t.server.authority.certificatePem);
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });

  it("is trusted by a client that trusts only the installation's CA, on every LAN address of this machine", async () => {
    const addresses = lanAddresses(networkInterfaces()).map((a) => a.address);
    if (addresses.length === 0) console.warn('this machine has no LAN address: only loopback is tried');
    for (const address of [...addresses, '127.0.0.1', '::1']) {
      const res = await health(t, address);
      expect(res.status, address).toBe(200);
      expect(res.peerCertificate.issuer.CN).toBe(new X509Certificate(t.server.authority.certificatePem).subject.match(/CN=(.*)/)![1]);
    }
  });

  it("is trusted under the machine's names: host name, <host>.local, localhost and the base URL's host", async () => {
    const short = hostname().toLowerCase().split('.')[0];
    for (const name of [hostname().toLowerCase(), `${short}.local`, 'localhost', 'hangar.lab.test']) {
      const res = await health(t, '127.0.0.1', { servername: name });
      expect(res.status, name).toBe(200);
    }
    // and a name it was not made for fails the host name check
    await expect(health(t, '127.0.0.1', { servername: 'elsewhere.example' })).rejects.toThrow(/not in the cert's altnames|does not match/i);
  });

  it("is refused by a client that trusts a stranger's CA, and a stranger's server is refused by ours", async () => {
    const stranger = await loadOrCreateAuthority(await tempDir());
    await expect(secureFetch(`https://127.0.0.1:${t.server.httpsPort}/api/health`, stranger.certificatePem)).rejects.toMatchObject({
      code: expect.stringMatching(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY/),
    });
    const other = await start();
    await expect(secureFetch(`https://127.0.0.1:${other.server.httpsPort}/api/health`, t.server.authority.certificatePem)).rejects.toMatchObject({
      code: expect.stringMatching(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY/),
    });
  });

  it('carries a server certificate iOS accepts: SANs listed, serverAuth, not a CA, RSA 2048 / SHA-256, at most 825 days, signed by the CA', async () => {
    const pem = t.server.serverCertificate()!.certificatePem;
    const cert = new X509Certificate(pem);
    const names = namesOf(pem);
    const lan = lanAddresses(networkInterfaces()).map((a) => a.address.toLowerCase());
    const short = hostname().toLowerCase().split('.')[0];
    expect(names.dns).toEqual(expect.arrayContaining([hostname().toLowerCase(), `${short}.local`, 'localhost', 'hangar.lab.test']));
    expect(names.ips).toEqual(expect.arrayContaining([...lan, '127.0.0.1', '::1']));
    // nothing else: no container bridge, no link-local
    expect(names.ips.some((ip) => ip.startsWith('172.17.') || ip.startsWith('fe80:') || ip.startsWith('169.254.'))).toBe(false);
    expect(cert.ca).toBe(false);
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']); // extended key usage: serverAuth
    expect(cert.publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(cert.checkIssued(new X509Certificate(t.server.authority.certificatePem))).toBe(true);
    expect(cert.verify(new X509Certificate(t.server.authority.certificatePem).publicKey)).toBe(true);
    const days = (Date.parse(cert.validTo) - Date.parse(cert.validFrom)) / 86_400_000;
    expect(days).toBeLessThanOrEqual(398);
  });

  it('iOS install URLs and their manifests use it; other links stay on the base URL', async () => {
    const { channel } = await createAppTree(t, t.admin, 'ios');
    const { body, contentType } = multipartBody({ channel_key: channel.key }, { name: 'Secure.ipa', data: syntheticIpa({ bundleId: 'com.example.secure' }) });
    const uploaded = await t.admin.request('POST', '/api/apps/upload', { raw: { body, contentType } });
    expect(uploaded.status, uploaded.text).toBe(201);
    const release = uploaded.body;
    const secure = `https://hangar.lab.test:${t.server.httpsPort}`;
    expect(release.install_url).toBe(`itms-services://?action=download-manifest&url=${secure}/channels/${channel.slug}/releases/${release.id}/install`);
    expect(release.release_url).toBe(`http://hangar.lab.test:7700/${channel.slug}/${release.id}`);
    const manifest = await secureFetch(`https://127.0.0.1:${t.server.httpsPort}/channels/${channel.slug}/releases/${release.id}/install`, t.server.authority.certificatePem);
    expect(manifest.status).toBe(200);
    expect(await manifest.text()).toContain(`<string>${secure}/download/releases/${release.id}/`);
  });
});

describe('when the LAN address changes', () => {
  const lan = { address: '192.168.77.10' };
  let t: TestServer;
  beforeAll(async () => {
    t = await start({}, { network: { interfaces: fakeInterfaces(lan), pollMs: 60_000 } });
  });

  it('links, the certificate and consoles follow: reissued for the new address, an event, new URLs', async () => {
    const before = t.server.serverCertificate()!;
    expect(namesOf(before.certificatePem).ips).toContain('192.168.77.10');
    expect(t.server.urls().base).toBe(`http://192.168.77.10:${t.server.port}`);
    await expect(health(t, '127.0.0.1', { servername: '10.20.30.40' })).rejects.toThrow(/IP: 10\.20\.30\.40 is not in the cert's list/);

    const events = await SseStream.open(`${t.url}/api/events`, ADMIN_TOKEN);
    try {
      lan.address = '10.20.30.40';
      expect(t.server.network.check()).toBe(true);
      const event = await events.next('server.address_changed');
      expect(event.data).toMatchObject({
        primary: '10.20.30.40',
        addresses: ['10.20.30.40'],
        base_url: `http://10.20.30.40:${t.server.port}`,
        secure_base_url: `https://10.20.30.40:${t.server.httpsPort}`,
      });
    } finally {
      events.close();
    }
    expect(t.server.urls().base).toBe(`http://10.20.30.40:${t.server.port}`);

    // the reissue happens in the background: wait for the new certificate to be served
    const deadline = Date.now() + 10_000;
    let res: Response | null = null;
    while (Date.now() < deadline) {
      res = await health(t, '127.0.0.1', { servername: '10.20.30.40' }).catch(() => null);
      if (res) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(res?.status).toBe(200);
    const after = t.server.serverCertificate()!;
    expect(after.certificatePem).not.toBe(before.certificatePem);
    expect(namesOf(after.certificatePem).ips).toContain('10.20.30.40');
    expect(namesOf(after.certificatePem).ips).not.toContain('192.168.77.10');
    // the reissued certificate was stored: a restart uses it
    expect(await readFile(join(t.dataDir, 'tls', 'server.pem'), 'utf8')).toBe(after.certificatePem);
  });

  it('a check that finds nothing new changes nothing', () => {
    const pem = t.server.serverCertificate()!.certificatePem;
    expect(t.server.network.check()).toBe(false);
    expect(t.server.serverCertificate()!.certificatePem).toBe(pem);
  });
});

describe('settings', () => {
  it('--https-port off: no HTTPS port; install URLs then use the base URL', async () => {
    const t = await start({ httpsPort: null, baseUrl: 'http://plain.lab.test:7700' });
    expect(t.server.httpsPort).toBeNull();
    expect(t.server.urls().secureBase).toBe('http://plain.lab.test:7700');
  });

  it('an HTTPS base URL (a proxy with a real certificate) is the secure base as it is', async () => {
    const t = await start({ baseUrl: 'https://hangar.example.com/lab' });
    expect(t.server.urls().secureBase).toBe('https://hangar.example.com/lab');
    expect(t.server.urls().manifest('beta', 7)).toBe('https://hangar.example.com/lab/channels/beta/releases/7/install');
  });

  it('a chosen interface decides the primary address', async () => {
    const interfaces = () =>
      ({
        eth0: [{ address: '192.168.1.5', family: 'IPv4', internal: false, netmask: '255.255.255.0', mac: '02:00:00:00:00:01', cidr: null }],
        wlan0: [{ address: '10.1.2.3', family: 'IPv4', internal: false, netmask: '255.255.255.0', mac: '02:00:00:00:00:02', cidr: null }],
      }) as unknown as Interfaces;
    const t = await start({ networkInterface: 'wlan0' }, { network: { interfaces } });
    expect(t.server.urls().base).toBe(`http://10.1.2.3:${t.server.port}`);
    // the certificate covers both: a device may come from either network
    expect(namesOf(t.server.serverCertificate()!.certificatePem).ips).toEqual(expect.arrayContaining(['192.168.1.5', '10.1.2.3']));
  });
});
