/**
 * Requests to Hangar's HTTPS port that trust exactly one CA (the installation's, or a stranger's):
 * Node's fetch cannot be given a CA, so this uses node:https and hands back a standard Response.
 * Redirects are not followed (as `redirect: 'manual'`).
 */
import { request } from 'node:https';
import { checkServerIdentity, type PeerCertificate, type TLSSocket } from 'node:tls';

export interface SecureInit {
  method?: string;
  headers?: Record<string, string>;
  /** the name to check the certificate against, when it is not the URL's host */
  servername?: string;
}

export interface SecureResponse extends Response {
  /** the certificate the server presented */
  peerCertificate: PeerCertificate;
}

export function secureFetch(url: string, ca: string | Buffer, init: SecureInit = {}): Promise<SecureResponse> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const req = request(
      target,
      {
        method: init.method ?? 'GET',
        headers: init.headers ?? {},
        ca,
        agent: false,
        ...(init.servername ? { checkServerIdentity: (_host: string, cert: PeerCertificate) => checkServerIdentity(init.servername!, cert) } : {}),
      },
      (res) => {
        const peerCertificate = (res.socket as TLSSocket).getPeerCertificate();
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, one);
          }
          const status = res.statusCode ?? 0;
          const body = status === 204 || status === 304 || init.method === 'HEAD' ? null : Buffer.concat(chunks);
          resolve(Object.assign(new Response(body, { status, headers }), { peerCertificate }));
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}
