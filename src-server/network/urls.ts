/**
 * Every absolute URL Hangar hands out (R11), built from the public base URL: the configured one, or
 * http://<primary LAN address>:<port>. Never from a request's Host header.
 */

export interface Urls {
  readonly base: string;
  /** base URL for iOS installs, which need HTTPS a device trusts (the LAN issue provides it) */
  readonly secureBase: string;
  /** the device-facing release page */
  release(slug: string, releaseId: number): string;
  /** `itms-services` for iOS, the download URL otherwise */
  install(deviceType: string, slug: string, releaseId: number): string;
  /** the itms-services manifest of an iOS release */
  manifest(slug: string, releaseId: number): string;
  /** answers 302 to the file under its download name */
  download(releaseId: number): string;
  qrcode(slug: string, releaseId: number): string;
  icon(releaseId: number): string;
  /** a debug-symbol archive (`file_url`, R11) */
  debugFile(debugFileId: number): string;
}

export function createUrls(base: string, secureBase: string = base): Urls {
  const enc = encodeURIComponent;
  const urls: Urls = {
    base,
    secureBase,
    release: (slug, id) => `${base}/${enc(slug)}/${id}`,
    manifest: (slug, id) => `${secureBase}/channels/${enc(slug)}/releases/${id}/install`,
    install: (deviceType, slug, id) =>
      deviceType === 'ios' ? `itms-services://?action=download-manifest&url=${urls.manifest(slug, id)}` : urls.download(id),
    download: (id) => `${base}/download/releases/${id}`,
    qrcode: (slug, id) => `${base}/channels/${enc(slug)}/releases/${id}/qrcode`,
    icon: (id) => `${base}/icons/releases/${id}.png`,
    debugFile: (id) => `${base}/download/debug_files/${id}`,
  };
  return urls;
}
