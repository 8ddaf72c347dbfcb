/**
 * Hand-built multipart bodies and raw HTTP, for the upload tests. fetch and FormData normalise what
 * they send (their own boundary, a Content-Type on every file part, no preamble, fields in the order
 * they choose); real CI clients do not, so the upload tests build the bytes themselves and send them
 * with node:http (or node:net, for a connection cut half-way).
 */
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import http, { type IncomingHttpHeaders } from 'node:http';
import { connect, type Socket } from 'node:net';

export const CRLF = '\r\n';

/** A text field. `headers` replaces the part's header lines (default: the Content-Disposition line). */
export interface FieldPart {
  name: string;
  value: string;
  headers?: string[];
}

/**
 * A file part. `contentType` defaults to application/octet-stream; `null` sends no Content-Type
 * line at all. `headers` replaces the part's header lines entirely.
 */
export interface FilePart {
  name: string;
  filename: string;
  data: Buffer;
  contentType?: string | null;
  headers?: string[];
}

export type Part = FieldPart | FilePart;

export interface MultipartOptions {
  /** default: a random one, like a browser's */
  boundary?: string;
  /** bytes before the first boundary (RFC 2046: ignored by the reader) */
  preamble?: string;
  /** bytes after the closing boundary (ignored too) */
  epilogue?: string;
  /** send `boundary="..."` in the Content-Type (needed for boundaries with tspecials) */
  quoteBoundary?: boolean;
}

export interface Multipart {
  body: Buffer;
  boundary: string;
  /** the request's Content-Type header value */
  contentType: string;
}

function isFile(part: Part): part is FilePart {
  return 'data' in part;
}

function headerLines(part: Part): string[] {
  if (part.headers) return part.headers;
  if (!isFile(part)) return [`Content-Disposition: form-data; name="${part.name}"`];
  const lines = [`Content-Disposition: form-data; name="${part.name}"; filename="${part.filename}"`];
  const type = part.contentType === undefined ? 'application/octet-stream' : part.contentType;
  if (type !== null) lines.push(`Content-Type: ${type}`);
  return lines;
}

/** A multipart/form-data body exactly as given: parts in order, CRLF line ends. */
export function multipart(parts: Part[], options: MultipartOptions = {}): Multipart {
  const boundary = options.boundary ?? `----HangarTestBoundary${randomBytes(12).toString('hex')}`;
  const chunks: Buffer[] = [];
  if (options.preamble !== undefined) chunks.push(Buffer.from(options.preamble + CRLF, 'latin1'));
  for (const part of parts) {
    // header lines as UTF-8 bytes, the way browsers and curl send a non-ASCII file name
    chunks.push(Buffer.from(`--${boundary}${CRLF}${headerLines(part).join(CRLF)}${CRLF}${CRLF}`, 'utf8'));
    chunks.push(isFile(part) ? part.data : Buffer.from(part.value, 'utf8'));
    chunks.push(Buffer.from(CRLF, 'latin1'));
  }
  chunks.push(Buffer.from(`--${boundary}--${CRLF}`, 'latin1'));
  if (options.epilogue !== undefined) chunks.push(Buffer.from(options.epilogue, 'latin1'));
  const param = options.quoteBoundary ? `"${boundary}"` : boundary;
  return { body: Buffer.concat(chunks), boundary, contentType: `multipart/form-data; boundary=${param}` };
}

export interface RawResponse<T = any> {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** the parsed JSON when the answer is JSON, else the text */
  body: T;
}

export interface RawRequest {
  method?: string;
  /** path and query, e.g. /api/apps/upload?token=... */
  path: string;
  headers?: Record<string, string>;
  body?: Buffer;
  /** send `Expect: 100-continue` and hold the body until the server says 100 Continue (as curl does) */
  expectContinue?: boolean;
  /** send the body with Transfer-Encoding: chunked instead of a Content-Length (curl reading stdin) */
  chunked?: boolean;
}

function parseBody(headers: IncomingHttpHeaders, text: string): unknown {
  if (!String(headers['content-type'] ?? '').startsWith('application/json') || text === '') return text;
  return JSON.parse(text);
}

/**
 * One request on a fresh connection (no agent), the body written as given with a Content-Length.
 * A server may answer before it has read the whole body (a refusal) and close: the answer wins over
 * the write error that follows.
 */
export function rawRequest<T = any>(baseUrl: string, request: RawRequest): Promise<RawResponse<T>> {
  return openRequest<T>(baseUrl, request).finish();
}

export interface OpenRequest<T> {
  /** the answer, once it has come */
  readonly response: Promise<RawResponse<T>>;
  /** writes more of the body */
  write(chunk: Buffer): Promise<void>;
  /** writes the rest of the body (whatever `request.body` held and was not written yet) and waits for the answer */
  finish(rest?: Buffer): Promise<RawResponse<T>>;
}

/**
 * Starts a request whose body is sent in pieces: `write` some, then `finish`. With
 * `expectContinue`, nothing is written before the server's 100 Continue.
 */
export function openRequest<T = any>(baseUrl: string, request: RawRequest): OpenRequest<T> {
  const url = new URL(request.path, baseUrl);
  const body = request.body ?? Buffer.alloc(0);
  const headers: Record<string, string> = { ...request.headers };
  if (request.chunked) headers['transfer-encoding'] = 'chunked';
  else headers['content-length'] = String(body.length);
  if (request.expectContinue) headers.expect = '100-continue';
  const req = http.request({ host: url.hostname, port: url.port, method: request.method ?? 'POST', path: url.pathname + url.search, headers, agent: false });
  // a server may answer at once instead of saying 100 Continue (a refusal): then the body follows anyway
  const continued = request.expectContinue
    ? new Promise<void>((resolve) => {
        req.once('continue', () => resolve());
        req.once('response', () => resolve());
      })
    : Promise.resolve();
  let written = 0;
  let answered = false;
  const response = new Promise<RawResponse<T>>((resolve, reject) => {
    req.on('response', (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        try {
          resolve({ status: res.statusCode!, headers: res.headers, text, body: parseBody(res.headers, text) as T });
        } catch (error) {
          reject(error);
        }
      });
    });
    req.on('error', (error) => {
      // EPIPE / ECONNRESET after (or while) the server answered: wait for the answer instead
      setTimeout(() => {
        if (!answered) reject(error);
      }, 200);
    });
  });
  response.catch(() => {}); // observed through finish()
  if (!request.expectContinue) req.flushHeaders();
  return {
    response,
    async write(chunk: Buffer) {
      await continued;
      written += chunk.length;
      await new Promise<void>((resolve) => req.write(chunk, () => resolve()));
    },
    async finish(rest?: Buffer) {
      await continued;
      req.end(rest ?? body.subarray(written));
      return response;
    },
  };
}

export interface UploadOptions extends MultipartOptions {
  /** Authorization: Bearer <token> */
  bearer?: string;
  /** query parameters (e.g. token) */
  query?: Record<string, string>;
  headers?: Record<string, string>;
  expectContinue?: boolean;
  chunked?: boolean;
  shape?: 'base' | 'extended';
}

/** POST /api/apps/upload with a hand-built multipart body. */
export function uploadRaw<T = any>(baseUrl: string, parts: Part[], options: UploadOptions = {}): Promise<RawResponse<T>> {
  const form = multipart(parts, options);
  const query = new URLSearchParams(options.query ?? {}).toString();
  const headers: Record<string, string> = { 'content-type': form.contentType, ...options.headers };
  if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
  if (options.shape) headers['x-api-shape'] = options.shape;
  return rawRequest<T>(baseUrl, {
    path: `/api/apps/upload${query ? `?${query}` : ''}`,
    headers,
    body: form.body,
    ...(options.expectContinue !== undefined && { expectContinue: options.expectContinue }),
    ...(options.chunked !== undefined && { chunked: options.chunked }),
  });
}

/** The head of an HTTP/1.1 request, for writing by hand on a socket. */
export function requestHead(baseUrl: string, path: string, headers: Record<string, string>, method = 'POST'): Buffer {
  const url = new URL(baseUrl);
  const lines = [`${method} ${path} HTTP/1.1`, `Host: ${url.host}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  return Buffer.from(lines.join(CRLF) + CRLF + CRLF, 'latin1');
}

/** A raw TCP connection to the server of `baseUrl`, once connected. */
export function openSocket(baseUrl: string): Promise<Socket> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port) }, () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** Writes and waits until the bytes are handed to the kernel. */
export function writeAll(socket: Socket, data: Buffer): Promise<void> {
  return new Promise((resolve, reject) => socket.write(data, (error) => (error ? reject(error) : resolve())));
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it holds (true) or `timeoutMs` passes; answers whether it held. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 3_000, everyMs = 25): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > until) return false;
    await sleep(everyMs);
  }
}

/** The names in a directory (none when it does not exist). */
export async function entriesOf(dir: string): Promise<string[]> {
  return (await readdir(dir).catch(() => [] as string[])).sort();
}
