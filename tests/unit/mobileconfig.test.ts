/**
 * The configuration profiles of src-server/profiles/mobileconfig.ts, parsed back as iOS reads them:
 * payload types, identifiers and UUIDs stable for one CA (so a reinstall replaces) and different for
 * another, the CA certificate inside byte for byte, and the UDID profile's callback and attributes.
 */
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'plist';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caProfile, DEVICE_ATTRIBUTES, stableUuid, udidProfile } from '../../src-server/profiles/mobileconfig.ts';
import type { CertificateAuthority } from '../../src-server/tls/authority.ts';
import { run } from '../helpers/tools.ts';

const UUID = /^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/;
const temp = mkdtempSync(join(tmpdir(), 'hangar-mobileconfig-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** A throwaway self-signed CA made by openssl, described as tls/authority.ts describes Hangar's. */
function makeAuthority(name: string): CertificateAuthority {
  const pem = join(temp, `${name}.pem`);
  run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', join(temp, `${name}.key`), '-out', pem, '-days', '30', '-subj', `/CN=${name}/O=Hangar`, '-addext', 'basicConstraints=critical,CA:TRUE']);
  const certificatePem = readFileSync(pem, 'utf8');
  const x509 = new X509Certificate(certificatePem);
  return { certificatePem, certificateDer: x509.raw, commonName: name, fingerprint256: x509.fingerprint256, notAfter: new Date(x509.validTo) };
}

let authority: CertificateAuthority;
let other: CertificateAuthority;
beforeAll(() => {
  authority = makeAuthority('Hangar CA labmac 1a2b3c4d');
  other = makeAuthority('Hangar CA othermac 5e6f7a8b');
});

const read = (xml: string) => parse(xml) as Record<string, any>;

describe('the CA profile', () => {
  it('is a Configuration profile with one com.apple.security.root payload holding the CA certificate (DER)', () => {
    const profile = read(caProfile(authority, 'labmac'));
    expect(profile).toMatchObject({
      PayloadType: 'Configuration',
      PayloadVersion: 1,
      PayloadDisplayName: 'Hangar CA (labmac)',
      PayloadOrganization: 'Hangar',
      PayloadDescription: expect.stringContaining('Certificate Trust Settings'),
    });
    expect(profile.PayloadContent).toHaveLength(1);
    const [root] = profile.PayloadContent;
    expect(root).toMatchObject({ PayloadType: 'com.apple.security.root', PayloadVersion: 1, PayloadDisplayName: 'Hangar CA labmac 1a2b3c4d' });
    const der = Buffer.from(root.PayloadContent);
    expect(der.equals(authority.certificateDer)).toBe(true);
    const certificate = new X509Certificate(der);
    expect(certificate.subject).toContain('CN=Hangar CA labmac 1a2b3c4d');
    expect(certificate.ca).toBe(true);
    expect(certificate.fingerprint256).toBe(authority.fingerprint256);
  });

  it('has identifiers and UUIDs derived from the fingerprint: the same for the same CA, others for another', () => {
    const first = read(caProfile(authority, 'labmac'));
    const again = read(caProfile(authority, 'renamed-host'));
    const another = read(caProfile(other, 'labmac'));
    const ids = (p: Record<string, any>) => [p.PayloadIdentifier, p.PayloadUUID, p.PayloadContent[0].PayloadIdentifier, p.PayloadContent[0].PayloadUUID];

    expect(ids(again)).toEqual(ids(first));
    for (const [i, id] of ids(another).entries()) expect(id).not.toBe(ids(first)[i]);
    const prefix = authority.fingerprint256.replaceAll(':', '').toLowerCase().slice(0, 16);
    expect(first.PayloadIdentifier).toBe(`dev.hangar.ca.${prefix}`);
    expect(first.PayloadContent[0].PayloadIdentifier).toBe(`dev.hangar.ca.${prefix}.root`);
    expect(first.PayloadUUID).toMatch(UUID);
    expect(first.PayloadContent[0].PayloadUUID).toMatch(UUID);
    expect(first.PayloadUUID).not.toBe(first.PayloadContent[0].PayloadUUID);
  });
});

describe('the UDID profile', () => {
  it('is a Profile Service payload that asks for the device attributes and names the callback', () => {
    const profile = read(udidProfile('http://192.168.1.20:7700/udid'));
    expect(profile).toEqual({
      PayloadType: 'Profile Service',
      PayloadVersion: 1,
      PayloadIdentifier: 'dev.hangar.udid',
      PayloadUUID: expect.stringMatching(UUID),
      PayloadDisplayName: expect.any(String),
      PayloadDescription: expect.any(String),
      PayloadOrganization: 'Hangar',
      PayloadContent: { URL: 'http://192.168.1.20:7700/udid', DeviceAttributes: ['UDID', 'PRODUCT', 'DEVICE_NAME'] },
    });
    expect(profile.PayloadContent.DeviceAttributes).toEqual([...DEVICE_ATTRIBUTES]);
    expect(profile).not.toHaveProperty('PayloadContent.Challenge');
  });

  it('keeps its UUID for one callback URL and changes it with the URL', () => {
    const uuid = (url: string) => read(udidProfile(url)).PayloadUUID;
    expect(uuid('http://10.0.0.5:7700/udid')).toBe(uuid('http://10.0.0.5:7700/udid'));
    expect(uuid('http://10.0.0.6:7700/udid')).not.toBe(uuid('http://10.0.0.5:7700/udid'));
  });
});

describe('stableUuid', () => {
  it('is an RFC 9562 version 8 UUID, the same for the same text', () => {
    const uuid = stableUuid('profile:abc');
    expect(uuid).toMatch(UUID);
    expect(uuid[14]).toBe('8');
    expect('89AB').toContain(uuid[19]);
    expect(stableUuid('profile:abc')).toBe(uuid);
    expect(stableUuid('profile:abd')).not.toBe(uuid);
  });
});
