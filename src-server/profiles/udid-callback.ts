/**
 * The reply an iOS device posts after installing the UDID profile (mobileconfig.ts): a CMS
 * (PKCS#7) SignedData, `Content-Type: application/pkcs7-signature`, whose encapsulated content is
 * an XML property list of the attributes asked for (UDID, PRODUCT, DEVICE_NAME, ...). Some tools
 * post that property list bare, which is accepted too.
 *
 * The device's signature is not verified: the device certificate chains to Apple's device CA,
 * which Hangar does not ship, and the reply only adds a UDID to the device list (no right comes
 * with it). The SignedData is walked with node-forge's ASN.1 reader (BER included: iOS writes
 * indefinite lengths) rather than its PKCS#7 one, which also parses the certificates and fails on
 * any key that is not RSA.
 *
 * A body that is no such reply is a 400; a reply without a valid UDID, or with over-long values, a 422.
 */
import forge from 'node-forge';
import { UDID_PATTERN, type EnrolledDevice } from '../domain/devices.ts';
import { ValidationError } from '../domain/errors.ts';
import { BadRequestError } from '../http/errors.ts';
import { parsePlist, plistString, type PlistDict } from '../parsers/plist.ts';

/** Far more than a reply (about 3 KiB, most of it the device's certificates) ever needs. */
export const DEVICE_REPLY_LIMIT = 64 * 1024;

/** Names and model identifiers are stored as device names and models (255 characters at most). */
const MAX_TEXT = 255;

const OID_SIGNED_DATA = '1.2.840.113549.1.7.2';
const OID_DATA = '1.2.840.113549.1.7.1';

type Asn1 = forge.asn1.Asn1;

function child(node: Asn1 | undefined, index: number, what: string): Asn1 {
  const value = node?.value;
  const found = Array.isArray(value) ? value[index] : undefined;
  if (!found) throw new Error(`${what} is missing`);
  return found;
}

function oidOf(node: Asn1): string {
  if (node.type !== forge.asn1.Type.OID || typeof node.value !== 'string') throw new Error('an object identifier was expected');
  return forge.asn1.derToOid(node.value);
}

/** The bytes of an OCTET STRING, also in BER's constructed form (a sequence of chunks). */
function octets(node: Asn1): string {
  if (node.type !== forge.asn1.Type.OCTETSTRING) throw new Error('the content is not an OCTET STRING');
  return typeof node.value === 'string' ? node.value : node.value.map(octets).join('');
}

/**
 * The encapsulated content of a SignedData:
 * ContentInfo { signedData, [0] SignedData { version, digestAlgorithms, EncapsulatedContentInfo { data, [0] OCTET STRING } ... } }
 */
function signedContent(body: Buffer): Buffer {
  const contentInfo = forge.asn1.fromDer(body.toString('binary'));
  if (oidOf(child(contentInfo, 0, 'the content type')) !== OID_SIGNED_DATA) throw new Error('it is not SignedData');
  const signedData = child(child(contentInfo, 1, 'the SignedData'), 0, 'the SignedData');
  const encapsulated = child(signedData, 2, 'the encapsulated content');
  if (oidOf(child(encapsulated, 0, 'the encapsulated content type')) !== OID_DATA) throw new Error('its content is not data');
  return Buffer.from(octets(child(child(encapsulated, 1, 'the content (detached signature?)'), 0, 'the content')), 'binary');
}

/** The property list of a reply: inside the SignedData, or the whole body when it is one. */
function replyPlist(body: Buffer): PlistDict {
  if (body.length === 0) throw new BadRequestError('The device reply is empty');
  const bare = /^\uFEFF?\s*(?:<|bplist)/.test(body.subarray(0, 64).toString('utf8'));
  let content = body;
  if (!bare) {
    try {
      content = signedContent(body);
    } catch (error) {
      throw new BadRequestError(`The device reply is not a signed (PKCS#7) message: ${(error as Error).message}`, { cause: error });
    }
  }
  try {
    return parsePlist(content, 'the device reply');
  } catch (error) {
    throw new BadRequestError((error as Error).message, { cause: error });
  }
}

function text(dict: PlistDict, key: string): string | null {
  const value = plistString(dict, key)?.trim();
  if (!value) return null;
  if (value.length > MAX_TEXT) throw ValidationError.field(key, `is longer than ${MAX_TEXT} characters`);
  return value;
}

/** Reads a device's reply to the UDID profile. */
export function readDeviceReply(body: Buffer): EnrolledDevice {
  const dict = replyPlist(body);
  const udid = plistString(dict, 'UDID')?.trim() ?? '';
  if (!UDID_PATTERN.test(udid)) throw ValidationError.field('UDID', udid === '' ? "can't be blank" : 'is not a device UDID');
  return { udid, deviceName: text(dict, 'DEVICE_NAME'), product: text(dict, 'PRODUCT') };
}
