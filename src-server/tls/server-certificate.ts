/**
 * The HTTPS server's certificate, signed by the installation's CA (authority.ts) for every name a
 * device may use to reach this machine: its LAN addresses, its host name and <host>.local, the
 * configured base URL's host, localhost and the loopback addresses.
 *
 * Kept in <data>/tls as server.pem and server.key (0600) so that a restart reuses it; reissued when
 * a name it must cover is missing (a new DHCP address), when it nears expiry, or when it was not
 * signed by the current CA. Valid for 397 days: within what every client accepts for a TLS server
 * certificate (Apple requires at most 825 days even from a CA the user added).
 */
import { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import forge from 'node-forge';
import { newKeyPair, randomSerial, TLS_DIR, type SigningAuthority } from './authority.ts';

/** What a certificate must be valid for. */
export interface ServerNames {
  dns: string[];
  ips: string[];
}

export interface ServerCertificate {
  keyPem: string;
  certificatePem: string;
  names: ServerNames;
  notAfter: Date;
}

const VALID_DAYS = 397;
/** a certificate this close to its expiry is replaced */
const RENEW_BEFORE_MS = 30 * 24 * 3600 * 1000;
const KEY_FILE = 'server.key';
const CERT_FILE = 'server.pem';

/** An IPv6 address in its shortest form (fd00::2, not fd00:0:0:0:0:0:0:2); IPv4 as it is. */
function canonicalIp(ip: string): string {
  return isIP(ip) === 6 ? new URL(`http://[${ip}]/`).hostname.slice(1, -1) : ip;
}

/** The names of a certificate for these hosts (IP addresses and DNS names, duplicates removed). */
export function serverNames(hosts: Iterable<string>): ServerNames {
  const dns = new Set<string>();
  const ips = new Set<string>();
  for (const raw of hosts) {
    const host = raw.trim().replace(/^\[|\]$/g, '').toLowerCase();
    if (!host) continue;
    if (isIP(host)) ips.add(canonicalIp(host));
    else dns.add(host.replace(/\.$/, ''));
  }
  return { dns: [...dns].sort(), ips: [...ips].sort() };
}

/** The names a certificate carries in its subjectAltName, as serverNames() writes them. */
export function namesOf(certificatePem: string): ServerNames {
  const altNames = new X509Certificate(certificatePem).subjectAltName ?? '';
  const dns: string[] = [];
  const ips: string[] = [];
  for (const entry of altNames.split(', ')) {
    if (entry.startsWith('DNS:')) dns.push(entry.slice(4));
    else if (entry.startsWith('IP Address:')) ips.push(entry.slice(11).toLowerCase());
  }
  return serverNames([...dns, ...ips]);
}

/** Does `have` cover every name in `need`? (both made by serverNames: canonical, lower case) */
function covers(have: ServerNames, need: ServerNames): boolean {
  return need.dns.every((name) => have.dns.includes(name)) && need.ips.every((ip) => have.ips.includes(ip));
}

export async function issueServerCertificate(authority: SigningAuthority, names: ServerNames, now: Date): Promise<ServerCertificate> {
  if (names.dns.length + names.ips.length === 0) throw new Error('a server certificate needs at least one name');
  const { privateKey, publicKey } = await newKeyPair();
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = publicKey;
  certificate.serialNumber = randomSerial();
  certificate.validity.notBefore = new Date(now.getTime() - 60 * 60 * 1000); // a device's clock may lag
  certificate.validity.notAfter = new Date(now.getTime() + VALID_DAYS * 24 * 3600 * 1000);
  certificate.setSubject([
    { name: 'commonName', value: names.dns[0] ?? names.ips[0]! },
    { name: 'organizationName', value: 'Hangar' },
  ]);
  certificate.setIssuer(authority.certificate.subject.attributes);
  certificate.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: [...names.dns.map((value) => ({ type: 2, value })), ...names.ips.map((ip) => ({ type: 7, ip }))],
    },
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: authority.certificate.generateSubjectKeyIdentifier().getBytes() },
  ]);
  certificate.sign(authority.privateKey, forge.md.sha256.create());
  return {
    keyPem: forge.pki.privateKeyInfoToPem(forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(privateKey))),
    certificatePem: forge.pki.certificateToPem(certificate),
    names,
    notAfter: certificate.validity.notAfter,
  };
}

/** Is this stored certificate still good for these names, from this CA, for a while yet? */
function usable(stored: ServerCertificate, authority: SigningAuthority, names: ServerNames, now: number): boolean {
  if (stored.notAfter.getTime() - RENEW_BEFORE_MS < now) return false;
  if (!covers(stored.names, names)) return false;
  return new X509Certificate(stored.certificatePem).verify(new X509Certificate(authority.certificateDer).publicKey);
}

async function readStored(dir: string): Promise<ServerCertificate | null> {
  try {
    const [keyPem, certificatePem] = await Promise.all([readFile(join(dir, KEY_FILE), 'utf8'), readFile(join(dir, CERT_FILE), 'utf8')]);
    const x509 = new X509Certificate(certificatePem);
    return { keyPem, certificatePem, names: namesOf(certificatePem), notAfter: new Date(x509.validTo) };
  } catch {
    return null; // missing or unreadable: issue a new one (nothing trusts this file by itself)
  }
}

async function store(dir: string, certificate: ServerCertificate): Promise<void> {
  await writeFile(join(dir, `${KEY_FILE}.tmp`), certificate.keyPem, { mode: 0o600 });
  await writeFile(join(dir, `${CERT_FILE}.tmp`), certificate.certificatePem, { mode: 0o644 });
  await rename(join(dir, `${KEY_FILE}.tmp`), join(dir, KEY_FILE));
  await rename(join(dir, `${CERT_FILE}.tmp`), join(dir, CERT_FILE));
}

export interface ServerCertificates {
  current(): ServerCertificate;
  /** Makes sure the certificate covers `names` and is fresh; true when it had to be reissued. */
  ensure(names: ServerNames): Promise<boolean>;
}

/** The server certificate of a data directory: the stored one when still usable, else a new one. */
export async function openServerCertificates(dataDir: string, authority: SigningAuthority, names: ServerNames, now: () => number = Date.now): Promise<ServerCertificates> {
  const dir = join(dataDir, TLS_DIR);
  let current = await readStored(dir);
  let pending: Promise<boolean> | null = null;

  async function ensure(wanted: ServerNames): Promise<boolean> {
    if (current && usable(current, authority, wanted, now())) return false;
    // Only the names of now: an address the machine has given up may belong to another one soon.
    const next = await issueServerCertificate(authority, wanted, new Date(now()));
    await store(dir, next);
    current = next;
    return true;
  }

  await ensure(names);
  return {
    current: () => current!,
    // one reissue at a time: address changes may come in bursts
    ensure: (wanted) => {
      const run = (pending ?? Promise.resolve(false)).then(() => ensure(wanted));
      pending = run.catch(() => false);
      return run;
    },
  };
}
