/**
 * Builds to upload in tests that need releases but not a particular real binary: a minimal but real
 * .ipa (a zip with Payload/<App>.app/Info.plist) that Hangar's iOS reader accepts, and the multipart
 * body that carries it.
 */
import { build } from 'plist';
import { makeZip } from './make-zip.ts';

export interface SyntheticBuild {
  bundleId?: string;
  releaseVersion?: string;
  buildVersion?: string;
  name?: string;
}

/** The Info.plist of a synthetic .ipa's Payload/<name>.app/. */
export function syntheticInfoPlist(options: SyntheticBuild = {}): string {
  return build({
    CFBundleIdentifier: options.bundleId ?? 'dev.hangar.synthetic',
    CFBundleShortVersionString: options.releaseVersion ?? '1.0',
    CFBundleVersion: options.buildVersion ?? '1',
    CFBundleName: options.name ?? 'Synthetic',
    MinimumOSVersion: '15.0',
    UIDeviceFamily: [1],
  });
}

export function syntheticIpa(options: SyntheticBuild = {}): Buffer {
  const name = options.name ?? 'Synthetic';
  const info = syntheticInfoPlist(options);
  return makeZip({ [`Payload/${name}.app/Info.plist`]: info });
}

/** A multipart/form-data body with text fields and one file part named `file`. */
export function multipartBody(fields: Record<string, string>, file: { name: string; data: Buffer; contentType?: string }): { body: Buffer; contentType: string } {
  const boundary = `----hangar-test-${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const [key, value] of Object.entries(fields)) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${key}"\r\n\r\n${value}\r\n`));
  }
  const type = file.contentType ? `Content-Type: ${file.contentType}\r\n` : '';
  chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\n${type}\r\n`), file.data, Buffer.from(`\r\n--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
