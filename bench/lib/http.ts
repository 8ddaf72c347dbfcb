/**
 * The HTTP clients of the benchmarks, on node:http: a fresh connection per transfer unless a
 * (keep-alive) agent is passed. Files stream from and to nowhere but the socket: the upload reads the
 * package from disk as it sends it, the download counts the bytes it receives and drops them.
 *
 * Both free their buffers young as Hangar does (src-server/http/young-buffers.ts). The clients are
 * Node too, and had the same trouble: a full garbage collection of this (large) process every few
 * dozen MiB. A client busy collecting sends in bursts, and in about half of the runs that put the
 * server under test into the same state (full collections all through the upload, twice the CPU);
 * with the client paced, 4 runs of 4 measured the server alone. CI agents (curl, fastlane) have no
 * such pauses.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { request, type Agent, type IncomingHttpHeaders } from 'node:http';
import { youngBuffers } from '../../src-server/http/young-buffers.ts';

export interface Transfer {
  status: number;
  /** bytes of the file (upload) or of the response body (download) */
  bytes: number;
  seconds: number;
  /** uploads: when the last byte of the body had been handed to the socket (seconds from the start) */
  sentSeconds: number;
  headers: IncomingHttpHeaders;
  /** the response body (uploads only; downloads drop it) */
  body: string;
}

export interface UploadOptions {
  url: string;
  token?: string;
  fields?: Record<string, string>;
  filePath: string;
  fileName: string;
  /** a keep-alive agent to reuse connections; default: a fresh connection */
  agent?: Agent;
}

/**
 * POSTs a multipart/form-data body: preamble (text fields, then the file part's headers), the file
 * streamed from disk, epilogue; with a Content-Length, as curl and fastlane send it.
 */
export function uploadMultipart(options: UploadOptions): Promise<Transfer> {
  const boundary = `----hangar-bench-${randomBytes(12).toString('hex')}`;
  let preamble = '';
  for (const [name, value] of Object.entries(options.fields ?? {})) {
    preamble += `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  }
  preamble += `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${options.fileName}"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  const epilogue = `\r\n--${boundary}--\r\n`;
  const fileBytes = statSync(options.filePath).size;
  const head = Buffer.from(preamble);
  const tail = Buffer.from(epilogue);
  const url = new URL(options.url);
  const headers: Record<string, string | number> = {
    'content-type': `multipart/form-data; boundary=${boundary}`,
    'content-length': head.length + fileBytes + tail.length,
    accept: 'application/json',
  };
  if (options.token) headers.authorization = `Bearer ${options.token}`;

  return new Promise<Transfer>((resolve, reject) => {
    const file = youngBuffers.counting(createReadStream(options.filePath));
    const started = process.hrtime.bigint();
    let sentSeconds = Number.NaN;
    const req = request({ host: url.hostname, port: url.port, path: url.pathname + url.search, method: 'POST', headers, agent: options.agent ?? false });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        resolve({ status: res.statusCode ?? 0, bytes: fileBytes, seconds, sentSeconds, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') });
      });
      // a server that answers early (an error) stops the upload
      if ((res.statusCode ?? 0) >= 300) {
        file.unpipe(req);
        file.destroy();
      }
    });
    req.write(head);
    file.on('error', (error) => {
      req.destroy(error);
      reject(error);
    });
    file.pipe(req, { end: false });
    file.on('end', () =>
      req.end(tail, () => {
        sentSeconds = Number(process.hrtime.bigint() - started) / 1e9;
      }),
    );
  });
}

/** GET that drops the body, counting it. */
export function download(url: string, headers: Record<string, string> = {}, agent: Agent | false = false): Promise<Transfer> {
  const target = new URL(url);
  return new Promise<Transfer>((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = request({ host: target.hostname, port: target.port, path: target.pathname + target.search, method: 'GET', headers, agent });
    req.on('error', reject);
    req.on('response', (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        youngBuffers.passed(chunk.length);
        bytes += chunk.length;
      });
      res.on('error', reject);
      res.on('end', () => {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        resolve({ status: res.statusCode ?? 0, bytes, seconds, sentSeconds: Number.NaN, headers: res.headers, body: '' });
      });
    });
    req.end();
  });
}

export interface JsonResponse<T = unknown> {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json: T;
}

/** A small JSON request (setup and checks; the mixed load's polls). */
export function requestJson<T = unknown>(
  method: string,
  url: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string>; agent?: Agent } = {},
): Promise<JsonResponse<T>> {
  const target = new URL(url);
  const headers: Record<string, string | number> = { accept: 'application/json', ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let payload: Buffer | null = null;
  if (options.body !== undefined) {
    payload = Buffer.from(JSON.stringify(options.body));
    headers['content-type'] = 'application/json';
    headers['content-length'] = payload.length;
  }
  return new Promise((resolve, reject) => {
    const req = request({ host: target.hostname, port: target.port, path: target.pathname + target.search, method, headers, agent: options.agent ?? false });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown = null;
        try {
          json = text === '' ? null : JSON.parse(text);
        } catch {
          json = null;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: json as T });
      });
    });
    req.end(payload ?? undefined);
  });
}
