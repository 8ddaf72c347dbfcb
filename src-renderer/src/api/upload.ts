/**
 * Uploading a build (POST /api/apps/upload) with XMLHttpRequest, which, unlike fetch, reports how
 * much of the body has been sent: the console shows per-file progress and speed, and can cancel.
 * Without a channel key the server makes a new app for the build (R10).
 */
import type { Connection } from './connection.ts';
import { SHAPE_HEADERS } from './connection.ts';
import { errorFromBody, networkError } from './errors.ts';
import type { UploadedRelease } from './types.ts';

export interface UploadFields {
  /** the channel to add the build to; absent: a new app */
  channel_key?: string;
  changelog?: string;
}

export interface UploadProgress {
  /** bytes of the request body sent so far */
  loaded: number;
  total: number;
  /** recent sending speed */
  bytesPerSecond: number;
}

export interface UploadHandle {
  /** the release, or an ApiError; an UploadCancelled after `cancel()` */
  readonly result: Promise<UploadedRelease>;
  cancel(): void;
}

export class UploadCancelled extends Error {
  constructor() {
    super('Upload cancelled');
    this.name = 'UploadCancelled';
  }
}

/** Speed over the last few seconds, so that it follows changes without flickering. */
const SPEED_WINDOW_MS = 3000;

export class SpeedMeter {
  private readonly samples: { at: number; loaded: number }[] = [];

  /** Records that `loaded` bytes were sent by `at` (ms); answers bytes per second. */
  sample(loaded: number, at: number): number {
    this.samples.push({ at, loaded });
    while (this.samples.length > 2 && at - this.samples[0]!.at > SPEED_WINDOW_MS) this.samples.shift();
    const first = this.samples[0]!;
    const elapsed = at - first.at;
    return elapsed > 0 ? ((loaded - first.loaded) * 1000) / elapsed : 0;
  }
}

export function uploadBuild(connection: Connection, file: File, fields: UploadFields, onProgress: (progress: UploadProgress) => void): UploadHandle {
  const xhr = new XMLHttpRequest();
  const meter = new SpeedMeter();
  const result = new Promise<UploadedRelease>((resolve, reject) => {
    xhr.open('POST', `${connection.origin}/api/apps/upload`);
    xhr.withCredentials = connection.credentials !== 'omit';
    for (const [name, value] of Object.entries({ ...SHAPE_HEADERS, Accept: 'application/json', ...connection.authHeaders('POST') })) {
      xhr.setRequestHeader(name, value);
    }
    xhr.responseType = 'text';
    xhr.upload.onprogress = (event) => {
      const total = event.lengthComputable ? event.total : file.size;
      onProgress({ loaded: event.loaded, total, bytesPerSecond: meter.sample(event.loaded, performance.now()) });
    };
    xhr.onload = () => {
      let body: unknown = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = { error: xhr.responseText.slice(0, 200) };
      }
      if (xhr.status === 201) resolve(body as UploadedRelease);
      else reject(errorFromBody(xhr.status, body, xhr.getResponseHeader('Retry-After')));
    };
    xhr.onerror = () => reject(networkError(new Error('the upload was interrupted')));
    xhr.onabort = () => reject(new UploadCancelled());

    const form = new FormData();
    // Fields before the file, as CI tools send them: the server knows the channel when the build arrives.
    for (const [name, value] of Object.entries(fields)) if (value) form.append(name, value);
    form.append('file', file, file.name);
    xhr.send(form);
  });
  return { result, cancel: () => xhr.abort() };
}
