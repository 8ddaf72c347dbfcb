/**
 * The trust page's downloads (the CA as PEM, DER and configuration profile), the UDID profile, and
 * the device's reply to it replayed as an iPhone sends it: a CMS SignedData (BER, indefinite
 * lengths, as iOS writes it) signed by a device certificate, around the XML property list iOS
 * formats. Then the releases whose provisioning profile includes a device, from real .ipa fixtures,
 * and the page tokens that name a device's result page.
 *
 * The server's public base URL is a fixed name (BASE) so that the URLs it hands out can be checked
 * exactly.
 */
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parsePlist } from 'plist';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPLY_RATE } from '../../src-server/routes/profiles.ts';
import { fixture, fixturesMissing } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { run, toolMissing } from '../helpers/tools.ts';
import { upload } from '../helpers/upload.ts';
import { createAppTree } from '../helpers/world.ts';

const BASE = 'http://hangar.test:7700';
const opensslMissing = toolMissing('openssl', 'openssl');
const temp = mkdtempSync(join(tmpdir(), 'hangar-udid-'));

/** The attributes an iPhone 13 (iOS 17.4) sends to a profile asking for IMEI, PRODUCT, SERIAL, UDID and VERSION. */
const UDID = '00008110-000A1C2E3E98801E';
const IPHONE_REPLY = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>IMEI</key>
	<string>35 391811 204519 6</string>
	<key>PRODUCT</key>
	<string>iPhone14,5</string>
	<key>SERIAL</key>
	<string>F17HK2PJ0D6T</string>
	<key>UDID</key>
	<string>${UDID}</string>
	<key>VERSION</key>
	<string>21E236</string>
</dict>
</plist>
`;

/** A reply in iOS's format with these keys. */
function replyPlist(entries: Record<string, string>): string {
  const body = Object.entries(entries)
    .map(([key, value]) => `\t<key>${key}</key>\n\t<string>${value}</string>\n`)
    .join('');
  return IPHONE_REPLY.replace(/<dict>\n[\s\S]*<\/dict>/, `<dict>\n${body}</dict>`);
}

let t: TestServer;
const rowCount = () => (t.sql.prepare('SELECT count(*) AS n FROM devices').get() as { n: number }).n;
const deviceRow = (udid: string) => t.sql.prepare('SELECT * FROM devices WHERE udid = ?').get(udid) as Record<string, any> | undefined;
const get = (path: string) => fetch(`${t.url}${path}`, { redirect: 'manual' });
const bytes = async (res: Response) => Buffer.from(await res.arrayBuffer());

function postReply(body: string | Buffer, contentType = 'application/pkcs7-signature') {
  return fetch(`${t.url}/udid`, { method: 'POST', headers: { 'content-type': contentType }, body: typeof body === 'string' ? body : new Uint8Array(body), redirect: 'manual' });
}

/** The page token a 301 from POST /udid names, checked to sit under BASE. */
function tokenOf(res: Response): string {
  expect(res.status).toBe(301);
  const location = res.headers.get('location')!;
  expect(location.startsWith(`${BASE}/udid/device/`), location).toBe(true);
  return location.slice(`${BASE}/udid/device/`.length);
}

/** A device-like signer: a certificate issued by a stand-in for Apple's iPhone Device CA. */
function makeSigner(name: string, keyAlgorithm: string[]): { cert: string; key: string } {
  const key = join(temp, `${name}.key`);
  const csr = join(temp, `${name}.csr`);
  const cert = join(temp, `${name}.pem`);
  run('openssl', ['req', '-newkey', ...keyAlgorithm, '-nodes', '-keyout', key, '-out', csr, '-subj', `/CN=${name}`]);
  run('openssl', ['x509', '-req', '-in', csr, '-CA', join(temp, 'device-ca.pem'), '-CAkey', join(temp, 'device-ca.key'), '-out', cert, '-days', '30']);
  return { cert, key };
}

let rsaSigner: { cert: string; key: string };
let ecSigner: { cert: string; key: string };

/**
 * Signs a reply as iOS does: by default BER with indefinite lengths and the content in chunks
 * (openssl's `-stream`, which also always embeds the content); `stream: false` gives DER.
 */
function signReply(plist: string, options: { signer?: { cert: string; key: string }; stream?: boolean; detached?: boolean } = {}): Buffer {
  const signer = options.signer ?? rsaSigner;
  const input = join(temp, 'reply.plist');
  const output = join(temp, 'reply.p7s');
  writeFileSync(input, plist);
  const mode = options.detached ? [] : ['-nodetach'];
  const encoding = options.stream === false ? [] : ['-stream'];
  run('openssl', ['cms', '-sign', ...mode, ...encoding, '-binary', '-md', 'sha1', '-outform', 'DER', '-in', input, '-signer', signer.cert, '-inkey', signer.key, '-certfile', join(temp, 'device-ca.pem'), '-out', output]);
  return readFileSync(output);
}

beforeAll(async () => {
  t = await startTestServer({ baseUrl: BASE });
  if (opensslMissing) return;
  run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(temp, 'device-ca.key'), '-out', join(temp, 'device-ca.pem'), '-days', '30', '-subj', '/O=Test/CN=Test iPhone Device CA', '-addext', 'basicConstraints=critical,CA:TRUE']);
  // iPhones sign with an RSA-1024 device key; an EC one shows the reader does not care.
  rsaSigner = makeSigner('4f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c', ['rsa:1024']);
  ecSigner = makeSigner('device-ec', ['ec', '-pkeyopt', 'ec_paramgen_curve:P-256']);
});
afterAll(async () => {
  await t?.close();
  rmSync(temp, { recursive: true, force: true });
});

describe('CA downloads (/ca.pem, /ca.crt, /ca.mobileconfig)', () => {
  it('serve one certificate: the PEM, the DER of that PEM, and a profile holding the same DER', async () => {
    const pem = await get('/ca.pem');
    expect(pem.status).toBe(200);
    expect(pem.headers.get('content-type')).toBe('application/x-pem-file');
    expect(pem.headers.get('content-disposition')).toBe('attachment; filename="hangar-ca.pem"');
    const pemText = await pem.text();
    expect(pemText).toMatch(/^-----BEGIN CERTIFICATE-----\r?\n/);

    const crt = await get('/ca.crt');
    expect(crt.status).toBe(200);
    expect(crt.headers.get('content-type')).toBe('application/x-x509-ca-cert');
    expect(crt.headers.get('content-disposition')).toBe('attachment; filename="hangar-ca.crt"');
    const der = await bytes(crt);
    expect(der.equals(new X509Certificate(pemText).raw)).toBe(true);
    expect(der.equals(t.server.authority.certificateDer)).toBe(true);

    const profile = await get('/ca.mobileconfig');
    expect(profile.status).toBe(200);
    expect(profile.headers.get('content-type')).toBe('application/x-apple-aspen-config');
    expect(profile.headers.get('content-disposition')).toBe('attachment; filename="hangar-ca.mobileconfig"');
    const parsed = parsePlist(await profile.text()) as Record<string, any>;
    expect(parsed.PayloadType).toBe('Configuration');
    expect(parsed.PayloadContent).toHaveLength(1);
    expect(parsed.PayloadContent[0].PayloadType).toBe('com.apple.security.root');
    const inside = Buffer.from(parsed.PayloadContent[0].PayloadContent as Uint8Array);
    expect(inside.equals(der)).toBe(true);
    const certificate = new X509Certificate(inside);
    expect(certificate.ca).toBe(true);
    expect(certificate.fingerprint256).toBe(t.server.authority.fingerprint256);
    expect(parsed.PayloadContent[0].PayloadDisplayName).toBe(t.server.authority.commonName);
  });

  it('are the same on every request, so that a reinstall replaces the profile', async () => {
    const first = await (await get('/ca.mobileconfig')).text();
    expect(await (await get('/ca.mobileconfig')).text()).toBe(first);
  });
});

describe('GET /udid.mobileconfig', () => {
  it('is a Profile Service profile whose callback is <base>/udid', async () => {
    const res = await get('/udid.mobileconfig');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-apple-aspen-config');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="hangar-udid.mobileconfig"');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const parsed = parsePlist(await res.text()) as Record<string, any>;
    expect(parsed.PayloadType).toBe('Profile Service');
    expect(parsed.PayloadContent).toEqual({ URL: `${BASE}/udid`, DeviceAttributes: ['UDID', 'PRODUCT', 'DEVICE_NAME'] });
  });
});

describe.skipIf(opensslMissing !== null)('POST /udid: the device reply', () => {
  it('records the device from an iPhone\'s signed reply and 301s to its result page', async () => {
    const before = rowCount();
    const body = signReply(IPHONE_REPLY);
    expect(body.subarray(0, 2).toString('hex')).toBe('3080'); // BER, indefinite length, as iOS sends it
    const res = await postReply(body);
    const token = tokenOf(res);
    expect(rowCount()).toBe(before + 1);
    expect(deviceRow(UDID)).toMatchObject({ udid: UDID, name: 'iPhone14,5', model: 'iPhone14,5', platform: 'ios' });

    const listed = await t.admin.get('/api/devices', { query: { per_page: 100 } });
    expect(listed.status).toBe(200);
    expect(listed.body).toContainEqual(expect.objectContaining({ udid: UDID, name: 'iPhone14,5', model: 'iPhone14,5', platform: 'ios' }));
    expect(t.server.domain.devices.fromPageToken(token)).toMatchObject({ udid: UDID });
  });

  it('a replay is the same device (one row) and the same result page', async () => {
    const first = tokenOf(await postReply(signReply(IPHONE_REPLY)));
    const before = rowCount();
    const again = tokenOf(await postReply(signReply(IPHONE_REPLY)));
    expect(again).toBe(first);
    expect(rowCount()).toBe(before);
    expect((t.sql.prepare('SELECT count(*) AS n FROM devices WHERE udid = ?').get(UDID) as { n: number }).n).toBe(1);
  });

  it('takes the name from DEVICE_NAME; a known device keeps its given name when the reply has none', async () => {
    const udid = '00008030-001A0C123456802E';
    const named = replyPlist({ DEVICE_NAME: "Lena's iPhone", PRODUCT: 'iPhone12,1', UDID: udid, VERSION: '20G75' });
    tokenOf(await postReply(signReply(named)));
    expect(deviceRow(udid)).toMatchObject({ name: "Lena's iPhone", model: 'iPhone12,1', platform: 'ios' });

    const registered = '0123456789ABCDEF0123456789ABCDEF01234567';
    expect((await t.admin.put(`/api/devices/${registered}`, { name: 'QA iPad' })).status).toBe(200);
    tokenOf(await postReply(signReply(replyPlist({ PRODUCT: 'iPad7,5', UDID: registered.toLowerCase() }))));
    expect(deviceRow(registered)).toMatchObject({ name: 'QA iPad', model: 'iPad7,5', platform: 'ios' });
  });

  it('reads DER as well as BER, a signer with an EC key, and a bare XML plist', async () => {
    const cases: [string, Buffer | string, string][] = [
      ['00008101-000A11112222001E', signReply(replyPlist({ PRODUCT: 'iPhone13,2', UDID: '00008101-000A11112222001E' }), { stream: false }), 'application/pkcs7-signature'],
      ['00008101-000A11112222002E', signReply(replyPlist({ PRODUCT: 'iPhone13,2', UDID: '00008101-000A11112222002E' }), { signer: ecSigner }), 'application/pkcs7-signature'],
      ['00008101-000A11112222003E', replyPlist({ PRODUCT: 'iPhone13,2', UDID: '00008101-000A11112222003E' }), 'application/xml'],
    ];
    for (const [udid, body, type] of cases) {
      const res = await postReply(body, type);
      expect(res.status, `${udid}: ${await res.clone().text()}`).toBe(301);
      expect(deviceRow(udid), udid).toMatchObject({ model: 'iPhone13,2', platform: 'ios' });
    }
  });

  it('refuses what is not a device reply, storing nothing: 400, 422 without a UDID, 413 when too large', async () => {
    const before = rowCount();
    const signed = signReply(IPHONE_REPLY.replace(UDID, '00008110-000A1C2E3E98802F'));
    const refusals: [string, Response, number, RegExp][] = [
      ['garbage', await postReply(Buffer.from('\x01\x02 not a signature at all')), 400, /not a signed \(PKCS#7\) message/],
      ['empty', await postReply(Buffer.alloc(0)), 400, /empty/],
      ['truncated DER', await postReply(signed.subarray(0, Math.floor(signed.length / 2))), 400, /not a signed \(PKCS#7\) message/],
      ['detached signature', await postReply(signReply(IPHONE_REPLY, { detached: true, stream: false })), 400, /not a signed \(PKCS#7\) message/],
      ['a signed text that is no plist', await postReply(signReply('UDID=00008110-000A1C2E3E98802F')), 400, /not a readable property list/],
      ['broken XML', await postReply('<plist><dict><key>UDID</key><string>x</dict>', 'text/xml'), 400, /not a readable property list/],
      ['JSON', await postReply(JSON.stringify({ UDID }), 'application/json'), 400, /not a signed \(PKCS#7\) message/],
      ['no UDID', await postReply(signReply(replyPlist({ PRODUCT: 'iPhone14,5' }))), 422, /Unprocessable entity/],
      ['a UDID that is none', await postReply(signReply(replyPlist({ UDID: '../../etc/passwd' }))), 422, /Unprocessable entity/],
      ['a name too long', await postReply(signReply(replyPlist({ DEVICE_NAME: 'x'.repeat(256), UDID: '00008110-000A1C2E3E98803F' }))), 422, /Unprocessable entity/],
      ['too large', await postReply(Buffer.concat([signed, Buffer.alloc(64 * 1024)])), 413, /too large/],
    ];
    for (const [what, res, status, message] of refusals) {
      const text = await res.text();
      expect(res.status, `${what}: ${text}`).toBe(status);
      expect(res.headers.get('content-type'), what).toMatch(/^application\/json/);
      expect(JSON.parse(text).error, what).toMatch(message);
    }
    expect(rowCount()).toBe(before);
  });

  it('leaves the other routes\' body parsing alone', async () => {
    const res = await t.admin.put('/api/devices/AAAA1111BBBB2222', { name: 'JSON still parses' });
    expect(res.status).toBe(200);
    expect(res.body.name).toBe('JSON still parses');
  });
});

describe('page tokens', () => {
  const devices = () => t.server.domain.devices;

  it('name the device, and nothing else: tampered, re-cased, truncated or foreign tokens are refused', () => {
    const udid = '00008020-001122334455667A';
    devices().upsert(udid, { name: 'Token phone' });
    const token = devices().pageToken(udid.toLowerCase());
    expect(token).toMatch(/^00008020-001122334455667A\.[A-Za-z0-9_-]{43}$/);
    expect(devices().fromPageToken(token)).toMatchObject({ udid, name: 'Token phone' });

    const [id, signature] = token.split('.') as [string, string];
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    const other = '00008020-001122334455667B';
    devices().upsert(other, { name: 'Neighbour' });
    for (const forged of [
      `${id}.${flip(signature, 0)}`,
      `${id}.${flip(signature, signature.length - 1)}`,
      `${other}.${signature}`,
      `${id.toLowerCase()}.${signature}`,
      `${id}.${signature.slice(0, -1)}`,
      `${id}.${signature}=`,
      id,
      signature,
      '',
      `${id}.${signature}.${signature}`,
    ]) {
      expect(devices().fromPageToken(forged), forged).toBeNull();
    }
  });

  it('stop naming a device once it is forgotten', async () => {
    const udid = '00008020-00112233445566AA';
    devices().upsert(udid, { name: 'Short-lived' });
    const token = devices().pageToken(udid);
    expect((await t.admin.delete(`/api/devices/${udid}`)).status).toBe(200);
    expect(devices().fromPageToken(token)).toBeNull();
  });
});

describe.skipIf(fixturesMissing !== null)('releases.provisionedFor', () => {
  /** appinfodemo's development profile lists 100 devices; demo's in-house profile provisions all. */
  const ADHOC = fixture('ios', 'appinfodemo-1.2.3-b5-iphone-noicon.ipa');
  const ENTERPRISE = fixture('ios', 'demo-1.0-b1-with-appex-plugin.ipa');
  let adhoc: any;
  let enterprise: any;
  let listedUdid: string;

  beforeAll(async () => {
    const tree = await createAppTree(t, t.admin, 'ios');
    adhoc = await upload(t.admin, ADHOC, { channel_key: tree.channel.key });
    enterprise = await upload(t.admin, ENTERPRISE, { channel_key: tree.channel.key });
    const metadata = JSON.parse((t.sql.prepare('SELECT metadata FROM releases WHERE id = ?').get(adhoc.id) as { metadata: string }).metadata);
    listedUdid = metadata.provisioning.devices[37];
  });

  const found = (udid: string, limit = 10) => t.server.domain.releases.provisionedFor(udid, limit).map((p) => ({ id: p.release.id, allDevices: p.allDevices }));

  it('finds the ad hoc release for a UDID its profile lists, in any case, with the enterprise one, newest first', () => {
    expect(listedUdid).toMatch(/^[0-9a-f-]{25,40}$/i);
    const expected = [
      { id: enterprise.id, allDevices: true },
      { id: adhoc.id, allDevices: false },
    ];
    expect(found(listedUdid)).toEqual(expected);
    expect(found(listedUdid.toUpperCase())).toEqual(expected);
    expect(found(listedUdid.toLowerCase())).toEqual(expected);
    expect(found(listedUdid, 1)).toEqual([expected[0]]);
  });

  it('gives a stranger only the release every device may install', () => {
    expect(found('00008110-000A1C2E3E98801E')).toEqual([{ id: enterprise.id, allDevices: true }]);
  });

  it('finds a device enrolled through the UDID page', async () => {
    if (opensslMissing) return;
    tokenOf(await postReply(signReply(replyPlist({ PRODUCT: 'iPhone9,1', UDID: listedUdid }))));
    const device = t.server.domain.devices.findByUdid(listedUdid)!;
    expect(device.udid).toBe(listedUdid.toUpperCase());
    expect(found(device.udid).map((p) => p.id)).toContain(adhoc.id);
  });
});

// Last: it uses up this client's allowance of replies.
describe('POST /udid: rate limit', () => {
  it('answers 429 (JSON) once a client has posted REPLY_RATE.max replies in the window', async () => {
    let status = 0;
    for (let i = 0; i <= REPLY_RATE.max && status !== 429; i += 1) status = (await postReply('not a reply', 'text/plain')).status;
    expect(status).toBe(429);
    const refused = await postReply(replyPlist({ UDID: '00008110-000A1C2E3E9880FF' }), 'application/xml');
    expect(refused.status).toBe(429);
    expect((await refused.json()).error).toEqual(expect.any(String));
    expect(deviceRow('00008110-000A1C2E3E9880FF')).toBeUndefined();
  });
});
