/**
 * Apple configuration profiles and the certificate downloads of the trust page, outside /api:
 *
 * - `/ca.pem`, `/ca.crt` (DER) and `/ca.mobileconfig`: the installation's CA, for the /ca page. Plain
 *   HTTP serves them too, so that a device which does not trust the CA yet can start there;
 * - `/ca/check`: an empty answer, for pages to find out over HTTPS whether the device trusts the CA;
 * - `/udid.mobileconfig`: the profile that makes an iOS device post its UDID to `POST /udid`, which
 *   records the device and answers 301 to its result page (iOS opens Safari on that redirect).
 *   Rate-limited per client: one device posts once per install.
 *
 * The HTML pages (/ca, /udid, /udid/device/:token) are the page routes'.
 */
import type { FastifyReply } from 'fastify';
import { hostname } from 'node:os';
import { access } from '../http/access.ts';
import { caProfile, udidProfile } from '../profiles/mobileconfig.ts';
import { DEVICE_REPLY_LIMIT, readDeviceReply } from '../profiles/udid-callback.ts';
import type { Api, RouteDeps } from './deps.ts';

const PROFILE_TYPE = 'application/x-apple-aspen-config';
/** Replies per client and minute: far above what devices send, far below filling the device list. */
export const REPLY_RATE = { max: 60, timeWindow: 60_000 };

function sendDownload(reply: FastifyReply, type: string, fileName: string, body: string | Buffer, cacheControl = 'no-cache') {
  return reply.header('content-type', type).header('content-disposition', `attachment; filename="${fileName}"`).header('cache-control', cacheControl).send(body);
}

export function profileRoutes(api: Api, { domain, authority, urls }: RouteDeps): void {
  const device = { access: access.public() };
  const host = hostname().split('.')[0] || 'localhost';
  const caDownloads = [
    { path: '/ca.pem', type: 'application/x-pem-file', fileName: 'hangar-ca.pem', body: () => authority.certificatePem },
    { path: '/ca.crt', type: 'application/x-x509-ca-cert', fileName: 'hangar-ca.crt', body: () => authority.certificateDer },
    { path: '/ca.mobileconfig', type: PROFILE_TYPE, fileName: 'hangar-ca.mobileconfig', body: () => caProfile(authority, host) },
  ];

  for (const { path, type, fileName, body } of caDownloads) {
    api.get(path, {
      config: device,
      schema: { hide: true },
      handler: async (_request, reply) => sendDownload(reply, type, fileName, body()),
    });
  }

  // A device page asks this over HTTPS to learn whether the device trusts the CA yet (the request
  // fails before it arrives when it does not), and shows the way to /ca only then.
  api.get('/ca/check', {
    config: device,
    schema: { hide: true },
    handler: async (_request, reply) => reply.code(204).header('access-control-allow-origin', '*').header('cache-control', 'no-store').send(),
  });

  api.get('/udid.mobileconfig', {
    config: device,
    schema: { hide: true },
    // no-store: the callback URL in it follows the server's address
    handler: async (_request, reply) => sendDownload(reply, PROFILE_TYPE, 'hangar-udid.mobileconfig', udidProfile(`${urls().base}/udid`), 'no-store'),
  });

  // The device's reply (application/pkcs7-signature; a bare XML plist from some tools) is read raw
  // whatever its declared type, by a parser of this scope only: readDeviceReply tells what it is.
  api.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

    scope.post('/udid', {
      config: { ...device, rateLimit: REPLY_RATE },
      schema: { hide: true },
      bodyLimit: DEVICE_REPLY_LIMIT,
      handler: async (request, reply) => {
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const enrolled = domain.devices.enroll(readDeviceReply(body));
        return reply.redirect(`${urls().base}/udid/device/${domain.devices.pageToken(enrolled.udid)}`, 301);
      },
    });
  });
}
