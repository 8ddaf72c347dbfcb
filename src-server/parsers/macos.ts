/**
 * Reader of zipped .app bundles (macOS): <Name>.app/Contents/Info.plist at any depth of the zip
 * (Finder's "Compress" puts it at the root; CI artefacts often nest it), ignoring __MACOSX/ junk.
 * The icon comes from the .icns named by CFBundleIconFile; icons only in Assets.car are not read.
 */
import { appExtensions, bundleIdentity, embeddedProfile, escapeRegExp, executableArchitectures, readPlistEntry } from './apple.ts';
import { iconImages } from './icns.ts';
import { toPng } from './images.ts';
import { plistString } from './plist.ts';
import { ParseError, type AppMetadata, type BinaryReader } from './types.ts';
import { isMacOsJunk, withZip, type ZipArchive } from './zip.ts';

const WHAT = 'a zipped macOS .app';
const MAX_ICNS_BYTES = 16 * 1024 * 1024;

/** The Info.plist of the outermost .app in the zip: fewest nested `.app/`, then shortest path. */
export function mainAppPlist(names: string[]): string | null {
  const candidates = names.filter((n) => !isMacOsJunk(n) && /(^|\/)[^/]+\.app\/Contents\/Info\.plist$/.test(n));
  const depth = (n: string) => n.split('.app/').length;
  candidates.sort((a, b) => depth(a) - depth(b) || a.length - b.length);
  return candidates[0] ?? null;
}

/** The largest image of an .icns file that decodes, as PNG; null when none does. */
export async function icnsToPng(data: Buffer): Promise<Buffer | null> {
  let images;
  try {
    images = iconImages(data);
  } catch {
    return null;
  }
  for (const image of images) {
    try {
      const png = await toPng(image.decode());
      if (png) return png;
    } catch {
      // a damaged entry: try the next size
    }
  }
  return null;
}

async function readIcon(zip: ZipArchive, contentsDir: string, iconFile: string | null): Promise<{ icon: Buffer; file: string } | null> {
  if (!iconFile) return null;
  const resources = `${contentsDir}Resources/`;
  const wanted = /\.icns$/i.test(iconFile) ? iconFile : `${iconFile}.icns`;
  let entry = zip.has(resources + wanted) ? resources + wanted : undefined;
  entry ??= zip.find(new RegExp(`^${escapeRegExp(resources + wanted)}$`, 'i'))[0];
  if (!entry) return null;
  try {
    const icon = await icnsToPng(await zip.read(entry, MAX_ICNS_BYTES));
    return icon ? { icon, file: entry.slice(resources.length) } : null;
  } catch {
    return null;
  }
}

export const macosAppReader: BinaryReader = {
  format: 'macos-app',
  extensions: ['.app.zip', '.zip'],
  async read(path) {
    return withZip(path, WHAT, async (zip): Promise<AppMetadata> => {
      const plistEntry = mainAppPlist(zip.entries.map((e) => e.name));
      if (!plistEntry) {
        const looksIos = zip.find(/^Payload\/[^/]+\.app\/Info\.plist$/).length > 0;
        throw new ParseError(`not ${WHAT}: <App>.app/Contents/Info.plist is missing${looksIos ? ' (this looks like an iOS .ipa)' : ''}`);
      }
      const contentsDir = plistEntry.slice(0, -'Info.plist'.length); // ".../Name.app/Contents/"
      const bundleDir = contentsDir.slice(0, -'Contents/'.length); // ".../Name.app/"
      const bundleName = bundleDir.slice(0, -1).split('/').pop() as string;
      const folderName = bundleName.replace(/\.app$/, '');
      const info = await readPlistEntry(zip, plistEntry, `not a valid macOS .app`);
      const identity = bundleIdentity(info, folderName, 'not a valid macOS .app', plistEntry);

      const { read: profile, error: provisioningError } = await embeddedProfile(zip, `${contentsDir}embedded.provisionprofile`);
      const iconFile = plistString(info, 'CFBundleIconFile');
      const icon = await readIcon(zip, contentsDir, iconFile);

      const executable = plistString(info, 'CFBundleExecutable');
      const architectures = executable ? await executableArchitectures(zip, `${contentsDir}MacOS/${executable}`) : null;
      const extensions = await appExtensions(zip, new RegExp(`^${escapeRegExp(contentsDir)}(PlugIns|Extensions)/[^/]+\\.appex/Contents/Info\\.plist$`));

      const extra: Record<string, unknown> = {
        executable,
        bundlePath: bundleDir.slice(0, -1),
        appExtensions: extensions,
        provisioningKind: profile?.kind ?? null,
        getTaskAllow: profile ? profile.profile.debuggable : null,
        iconFile: icon?.file ?? null,
        iconInAssetCatalog: !icon && zip.has(`${contentsDir}Resources/Assets.car`),
        category: plistString(info, 'LSApplicationCategoryType'),
        sdk: plistString(info, 'DTSDKName'),
      };
      if (architectures) extra['architectures'] = architectures;
      if (provisioningError) extra['provisioningError'] = provisioningError;

      return {
        format: 'macos-app',
        platform: 'macos',
        ...identity,
        deviceFamily: ['mac'],
        minOsVersion: plistString(info, 'LSMinimumSystemVersion'),
        icon: icon?.icon ?? null,
        // R10's release types are iOS ones; a Mac app's profile is still reported in `provisioning`.
        releaseType: null,
        provisioning: profile?.profile ?? null,
        extra,
      };
    });
  },
};
