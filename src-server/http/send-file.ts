/**
 * Sending a stored file for download (releases, debug symbols) without loading it into memory:
 * @fastify/send streams it, with byte ranges (206, so a download that dropped resumes) and HEAD. The
 * entity tag is strong, the file's SHA-256: a stored file never changes under its row (a replaced
 * debug file gets a new one).
 */
import send from '@fastify/send';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { basename, dirname } from 'node:path';
import { NotFoundError } from '../domain/errors.ts';
import { youngBuffers } from './young-buffers.ts';

export interface StoredFile {
  /** absolute path on disk */
  path: string;
  sha256: string;
  contentType: string;
  /** the name the client saves it under */
  downloadName: string;
}

function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  // RFC 8187 value-chars: encodeURIComponent leaves ' ( ) * as they are, which the syntax does not allow
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** Does If-None-Match name this entity tag? (weak comparison, as RFC 9110 asks for it) */
function noneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/**
 * Answers the request with the file (or 304, 206, 412, 416 as its conditional and Range headers
 * ask). `onFullDownload` runs when a GET fetches the file from its first byte: a download, not a
 * resumption or a peek.
 */
export async function sendStoredFile(request: FastifyRequest, reply: FastifyReply, file: StoredFile, onFullDownload?: () => void) {
  const etag = `"${file.sha256}"`;
  const headers = request.raw.headers;
  // Preconditions on our strong tag; send() knows nothing of it (its own would be weak).
  if (headers['if-match'] !== undefined) {
    const match = headers['if-match'].trim() === '*' || headers['if-match'].split(',').some((tag) => tag.trim() === etag);
    if (!match) return reply.code(412).header('etag', etag).send({ error: 'Precondition failed: the file is not the one asked for' });
    delete headers['if-match'];
  }
  if (noneMatch(headers['if-none-match'], etag)) return reply.code(304).header('etag', etag).send();
  // Ranges are honoured only for this exact file (If-Range with our strong tag); send() knows
  // nothing of our tag, so it is given the request's Range only when it applies.
  if (headers['if-range'] !== undefined) {
    if (headers['if-range'] === etag) delete headers['if-range'];
    else delete headers.range;
  }
  const result = await send(request.raw, `/${encodeURIComponent(basename(file.path))}`, {
    root: dirname(file.path),
    etag: false,
    lastModified: true,
    cacheControl: false,
    contentType: false,
    dotfiles: 'allow',
    index: false,
    // 256 KiB reads: as fast as 1 MiB for one download, and much less memory for twenty at once
    highWaterMark: 256 * 1024,
  });
  if (result.type === 'error') {
    if (result.statusCode === 404) throw new NotFoundError('File');
    // 412 (If-Unmodified-Since), 416 (with Content-Range: bytes */size): send's answer, in our body
    const error = result.statusCode === 416 ? 'Range not satisfiable' : result.statusCode === 412 ? 'Precondition failed' : 'Cannot send the file';
    // send's own error page is HTML with its own length: keep only what tells the client about the file
    const range = (result.headers as Record<string, string>)['Content-Range'];
    if (range) reply.header('content-range', range);
    return reply.code(result.statusCode).header('etag', etag).send({ error });
  }
  reply.code(result.statusCode).headers(result.headers as Record<string, string>);
  reply.header('etag', etag);
  reply.header('content-type', file.contentType);
  reply.header('content-disposition', contentDisposition(file.downloadName));
  reply.header('cache-control', 'private, no-cache');
  const ranged = result.statusCode === 206 && !/^bytes=0-/.test(String(headers.range ?? ''));
  if (request.method === 'GET' && result.statusCode < 300 && !ranged) onFullDownload?.();
  // each read is a new 256 KiB buffer: the pacer frees them young (young-buffers.ts)
  return reply.send(youngBuffers.counting(result.stream));
}
