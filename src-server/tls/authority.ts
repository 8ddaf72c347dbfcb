/**
 * The installation's own certificate authority. iOS installs over the air only from HTTPS the device
 * trusts, and a lab machine on a LAN has no public name to get a certificate for; so each Hangar
 * installation makes a CA at first start, testers trust it once (the /ca page and its profile), and
 * the server certificate it signs (server-certificate.ts) follows the machine's addresses.
 *
 * Files, in <data>/tls (mode 0700): ca.key (PKCS#8 PEM, mode 0600: it can sign for any name, so it
 * never leaves this folder) and ca.pem. A CA that exists is never silently replaced: devices trust
 * it, so a damaged one is an error for the operator to look at, not a reason to start over.
 *
 * Keys come from Node's crypto (fast, native); node-forge writes the X.509 structures.
 */
import { createHash, generateKeyPair, X509Certificate } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import forge from 'node-forge';

/** What others may know of the CA: everything public about it. */
export interface CertificateAuthority {
  certificatePem: string;
  certificateDer: Buffer;
  commonName: string;
  /** SHA-256 of the DER certificate, as "AB:CD:…" (what browsers and iOS show) */
  fingerprint256: string;
  notAfter: Date;
}

/** The CA with its signing key: only the certificate issuer sees this. */
export interface SigningAuthority extends CertificateAuthority {
  certificate: forge.pki.Certificate;
  privateKey: forge.pki.rsa.PrivateKey;
}

export const TLS_DIR = 'tls';
const KEY_FILE = 'ca.key';
const CERT_FILE = 'ca.pem';
const CA_YEARS = 10;

export class AuthorityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuthorityError';
  }
}

const generateRsa = promisify(generateKeyPair);

/** A fresh RSA-2048 key pair as forge objects (2048 bits: what iOS and Android accept everywhere). */
export async function newKeyPair(): Promise<{ privateKey: forge.pki.rsa.PrivateKey; publicKey: forge.pki.rsa.PublicKey }> {
  const { privateKey } = await generateRsa('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const key = forge.pki.privateKeyFromPem(privateKey) as forge.pki.rsa.PrivateKey;
  return { privateKey: key, publicKey: forge.pki.setRsaPublicKey(key.n, key.e) };
}

/** A random positive serial number of 16 bytes, as hex (RFC 5280 allows up to 20). */
export function randomSerial(): string {
  const bytes = forge.random.getBytesSync(16);
  return (String.fromCharCode(bytes.charCodeAt(0) & 0x7f) + bytes.slice(1)).split('').map((c) => c.charCodeAt(0).toString(16).padStart(2, '0')).join('');
}

function describe(certificate: forge.pki.Certificate, privateKey: forge.pki.rsa.PrivateKey): SigningAuthority {
  const certificatePem = forge.pki.certificateToPem(certificate);
  const certificateDer = Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(certificate)).getBytes(), 'binary');
  const fingerprint256 = createHash('sha256').update(certificateDer).digest('hex').toUpperCase().match(/../g)!.join(':');
  return {
    certificatePem,
    certificateDer,
    commonName: String(certificate.subject.getField('CN')?.value ?? ''),
    fingerprint256,
    notAfter: certificate.validity.notAfter,
    certificate,
    privateKey,
  };
}

async function createAuthority(now: Date): Promise<SigningAuthority> {
  const { privateKey, publicKey } = await newKeyPair();
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = publicKey;
  certificate.serialNumber = randomSerial();
  certificate.validity.notBefore = new Date(now.getTime() - 60 * 60 * 1000); // a device's clock may lag
  certificate.validity.notAfter = new Date(now.getTime());
  certificate.validity.notAfter.setFullYear(now.getFullYear() + CA_YEARS);
  // The serial's start tells two installations on one host apart in a device's trust settings.
  const subject = [
    { name: 'commonName', value: `Hangar CA ${hostname().split('.')[0] || 'local'} ${certificate.serialNumber.slice(0, 8)}` },
    { name: 'organizationName', value: 'Hangar' },
    { name: 'organizationalUnitName', value: 'Local certificate authority of one Hangar installation' },
  ];
  certificate.setSubject(subject);
  certificate.setIssuer(subject);
  certificate.setExtensions([
    { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  certificate.sign(privateKey, forge.md.sha256.create());
  return describe(certificate, privateKey);
}

/** Writes through a temporary file, so that a crash never leaves half a key. */
async function writeAtomically(file: string, text: string, mode: number): Promise<void> {
  await writeFile(`${file}.tmp`, text, { mode });
  await rename(`${file}.tmp`, file);
}

async function readIfPresent(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** The CA of the data directory: loaded, or made on first start. */
export async function loadOrCreateAuthority(dataDir: string, now: () => number = Date.now): Promise<SigningAuthority> {
  const dir = join(dataDir, TLS_DIR);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const keyFile = join(dir, KEY_FILE);
  const certFile = join(dir, CERT_FILE);
  const [keyPem, certPem] = await Promise.all([readIfPresent(keyFile), readIfPresent(certFile)]);

  if (keyPem === null && certPem === null) {
    const authority = await createAuthority(new Date(now()));
    // key first: a certificate without its key would be refused at the next start
    await writeAtomically(keyFile, forge.pki.privateKeyInfoToPem(forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(authority.privateKey))), 0o600);
    await writeAtomically(certFile, authority.certificatePem, 0o644);
    return authority;
  }
  if (keyPem === null || certPem === null) {
    throw new AuthorityError(`${dir} holds ${keyPem === null ? 'a CA certificate without its key' : 'a CA key without its certificate'}; restore the missing file, or move both away to make a new CA (devices will have to trust it again)`);
  }
  let certificate: forge.pki.Certificate;
  let privateKey: forge.pki.rsa.PrivateKey;
  try {
    certificate = forge.pki.certificateFromPem(certPem);
    privateKey = forge.pki.privateKeyFromPem(keyPem) as forge.pki.rsa.PrivateKey;
  } catch (error) {
    throw new AuthorityError(`cannot read the CA in ${dir}: ${(error as Error).message}`);
  }
  const publicKey = certificate.publicKey as forge.pki.rsa.PublicKey;
  if (publicKey.n.compareTo(privateKey.n) !== 0) throw new AuthorityError(`the CA key in ${dir} does not belong to its certificate`);
  const authority = describe(certificate, privateKey);
  if (!new X509Certificate(authority.certificateDer).ca) throw new AuthorityError(`${certFile} is not a CA certificate`);
  return authority;
}

/** Only what may be shown: the public part of the CA. */
export function publicPart({ certificatePem, certificateDer, commonName, fingerprint256, notAfter }: CertificateAuthority): CertificateAuthority {
  return { certificatePem, certificateDer, commonName, fingerprint256, notAfter };
}
