/**
 * Apple configuration profiles (`.mobileconfig`, XML property lists) that Hangar hands to iOS devices:
 *
 * - the CA profile installs the installation's certificate authority as a trusted root (the user
 *   still switches on full trust in Settings › General › About › Certificate Trust Settings). Its
 *   identifiers and UUIDs derive from the CA's fingerprint, so downloading it again replaces the
 *   installed profile instead of adding a second one, and another CA never replaces this one;
 * - the UDID profile is a "Profile Service" payload: installing it makes the device post its UDID
 *   (and the other attributes asked for) to our callback, signed with its device certificate
 *   (profiles/udid-callback.ts reads that). It carries no Challenge: the profile is public, so a
 *   challenge would prove only that someone fetched it, not that the reply comes from a device.
 *
 * Both are unsigned: iOS installs them after showing "Not Verified". Signing would need a
 * certificate the device already trusts, which is precisely what the CA profile brings.
 */
import { createHash } from 'node:crypto';
import { build } from 'plist';
import type { CertificateAuthority } from '../tls/authority.ts';

const ORGANIZATION = 'Hangar';
const IDENTIFIER_PREFIX = 'dev.hangar';

/**
 * The device attributes the UDID profile asks for (keys Apple documents for the Profile Service
 * payload): only what a device row keeps. IMEI, ICCID, SERIAL or VERSION would be sent by the device
 * and then thrown away, so they are not asked for.
 */
export const DEVICE_ATTRIBUTES = ['UDID', 'PRODUCT', 'DEVICE_NAME'] as const;

/** A UUID that is always the same for the same text (RFC 9562 version 8, from SHA-256). */
export function stableUuid(text: string): string {
  const bytes = createHash('sha256').update(text).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex').toUpperCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The certificate authority profile: one `com.apple.security.root` payload holding the CA (DER). */
export function caProfile(authority: CertificateAuthority, hostname: string): string {
  const fingerprint = authority.fingerprint256.replaceAll(':', '').toLowerCase();
  const identifier = `${IDENTIFIER_PREFIX}.ca.${fingerprint.slice(0, 16)}`;
  return build({
    PayloadType: 'Configuration',
    PayloadVersion: 1,
    PayloadIdentifier: identifier,
    PayloadUUID: stableUuid(`profile:${fingerprint}`),
    PayloadDisplayName: `Hangar CA (${hostname})`,
    PayloadDescription: `Lets this device trust the Hangar server on ${hostname}, so that apps install from it over HTTPS. After installing, turn on full trust for "${authority.commonName}" in Settings › General › About › Certificate Trust Settings.`,
    PayloadOrganization: ORGANIZATION,
    PayloadContent: [
      {
        PayloadType: 'com.apple.security.root',
        PayloadVersion: 1,
        PayloadIdentifier: `${identifier}.root`,
        PayloadUUID: stableUuid(`root:${fingerprint}`),
        PayloadDisplayName: authority.commonName,
        PayloadDescription: `The certificate authority of the Hangar server on ${hostname} (SHA-256 ${authority.fingerprint256}).`,
        PayloadOrganization: ORGANIZATION,
        PayloadCertificateFileName: 'hangar-ca.cer',
        PayloadContent: authority.certificateDer,
      },
    ],
  });
}

/** The UDID profile: a Profile Service payload whose device reply goes to `callbackUrl`. */
export function udidProfile(callbackUrl: string): string {
  return build({
    PayloadType: 'Profile Service',
    PayloadVersion: 1,
    PayloadIdentifier: `${IDENTIFIER_PREFIX}.udid`,
    PayloadUUID: stableUuid(`udid:${callbackUrl}`),
    PayloadDisplayName: 'Hangar: register this device',
    PayloadDescription: "Sends this device's UDID, model and name to the Hangar server, so that it can be added to ad hoc builds. Nothing stays installed.",
    PayloadOrganization: ORGANIZATION,
    PayloadContent: {
      URL: callbackUrl,
      DeviceAttributes: [...DEVICE_ATTRIBUTES],
    },
  });
}
