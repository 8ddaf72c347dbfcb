/**
 * Reading an upload form (builds, debug symbols): the file part streams to a temporary file in the
 * data directory while it is hashed and counted, never held in memory; the text fields are kept as
 * they come. The caller owns the temporary file from the moment it exists (`form.tempPath`), so that
 * a refused, failed or aborted upload can always remove it.
 *
 * The form is read as real clients send it: the file part before or after the fields, any boundary,
 * no Content-Type on the file part, a full path as the file name (its base name is kept), empty
 * fields meaning absent, the token in a form field (checked as soon as it is read, so a bad one is
 * refused before a file that follows it).
 */
import type {} from '@fastify/multipart'; // request.parts()
import type { FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ValidationError } from '../domain/errors.ts';
import type { Domain } from '../domain/index.ts';
import { authenticateDeferred } from './access.ts';
import { BadRequestError } from './errors.ts';
import { youngBuffers } from './young-buffers.ts';

/** The largest text field of a multipart form (busboy's fieldSize, set in app.ts). */
export const MAX_FIELD_BYTES = 1024 * 1024;

/**
 * The base name of what a client sent as a file name (some send a full Windows or POSIX path); empty
 * when it sent none (busboy takes a part with a Content-Type but no filename for a file too).
 */
export function baseName(fileName: string | undefined): string {
  return (fileName ?? '').split(/[\\/]/).pop()!.trim();
}

/**
 * A pass-through that hashes and counts what flows through it, and tells the pacer that frees body
 * buffers early (young-buffers.ts) how much has gone by.
 */
class Digest extends Transform {
  readonly hash = createHash('sha256');
  size = 0;
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null, data?: Buffer) => void): void {
    this.hash.update(chunk);
    this.size += chunk.length;
    youngBuffers.passed(chunk.length);
    done(null, chunk);
  }
}

export interface UploadForm {
  fields: Record<string, string>;
  file: { fileName: string; size: number; sha256: string } | null;
  /** the temporary file, while it is ours to remove */
  tempPath: string | null;
}

export interface UploadFormOptions {
  /** fields for which an empty value means something (e.g. "clear the password") rather than absent */
  keepEmpty?: readonly string[];
}

/**
 * Reads the multipart form into `form`: text fields, and the part named `file` streamed to a
 * temporary file. Other file parts are drained.
 */
async function readUploadForm(request: FastifyRequest, domain: Domain, form: UploadForm, options: UploadFormOptions): Promise<void> {
  try {
    for await (const part of request.parts()) {
      if (part.type === 'field') {
        // busboy cuts a field at its size limit (app.ts): refuse it rather than keep half a value
        if (part.valueTruncated) throw ValidationError.field(part.fieldname, `is too long (maximum is ${MAX_FIELD_BYTES} bytes)`);
        const value = typeof part.value === 'string' ? part.value : String(part.value ?? '');
        if (value === '' && !options.keepEmpty?.includes(part.fieldname)) continue;
        form.fields[part.fieldname] = value;
        // a bad token in the form is refused before a file that follows it is read
        if (part.fieldname === 'token') authenticateDeferred(request, domain, value);
        continue;
      }
      if (part.fieldname !== 'file' || form.file !== null) {
        part.file.resume(); // another file part: not ours to keep
        continue;
      }
      form.tempPath = await domain.ctx.files.newTempPath('.upload');
      const digest = new Digest();
      await pipeline(part.file, digest, domain.ctx.files.createTempWriteStream(form.tempPath));
      form.file = { fileName: baseName(part.filename) || 'upload', size: digest.size, sha256: digest.hash.digest('hex') };
    }
  } catch (error) {
    // busboy says what is wrong with the body (no boundary, cut short) with plain Errors: the
    // client's mistake. Our errors, multipart's (with a status) and the system's (ENOSPC: 507,
    // EIO: 500) keep their meaning.
    const plain = error instanceof Error && error.constructor === Error && !('statusCode' in error) && (error as NodeJS.ErrnoException).code === undefined;
    if (plain) throw new BadRequestError(`Malformed multipart body: ${error.message}`, { cause: error });
    throw error;
  }
}

/**
 * Reads the request's upload form and runs `use` with it. Afterwards the temporary file is removed,
 * whatever happened, unless `use` took it (moved it into place and set `form.tempPath` to null).
 */
export async function withUploadForm<T>(request: FastifyRequest, domain: Domain, options: UploadFormOptions, use: (form: UploadForm) => Promise<T>): Promise<T> {
  const form: UploadForm = { fields: {}, file: null, tempPath: null };
  try {
    await readUploadForm(request, domain, form, options);
    return await use(form);
  } finally {
    if (form.tempPath) await rm(form.tempPath, { force: true });
  }
}
