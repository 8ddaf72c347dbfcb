/**
 * Reader of .ipa (iOS): a zip with Payload/<Name>.app/. Reads the main app's Info.plist (XML or
 * binary), its embedded.mobileprovision, its icon files (Apple-crushed CgBI PNGs are converted),
 * the architectures of its executable and its app extensions (PlugIns/*.appex).
 *
 * Icons that exist only inside Assets.car (asset catalogs, Xcode 9 and later when no loose PNGs are
 * copied) are not read: the icon is then null and extra.iconInAssetCatalog is true.
 */
import { appExtensions, bundleIdentity, embeddedProfile, escapeRegExp, executableArchitectures, readHead, readPlistEntry } from './apple.ts';
import { cgbiToPng, pngSize } from './cgbi.ts';
import { toPng } from './images.ts';
import { plistString, type PlistDict, type PlistValue } from './plist.ts';
import { releaseTypeOf } from './provisioning.ts';
import { ParseError, type AppMetadata, type BinaryReader } from './types.ts';
import { withZip, type ZipArchive } from './zip.ts';

const WHAT = 'an .ipa';
const MAX_ICON_BYTES = 8 * 1024 * 1024;
const MAX_ICON_CANDIDATES = 40;

/** UIDeviceFamily values. */
const DEVICE_FAMILIES: Record<number, string> = { 1: 'iphone', 2: 'ipad', 3: 'tv', 4: 'watch', 6: 'mac', 7: 'vision' };

function asDict(value: PlistValue | undefined): PlistDict | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Uint8Array) && !(value instanceof Date)
    ? (value as PlistDict)
    : null;
}

function asStrings(value: PlistValue | undefined): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** UIDeviceFamily (a number, a string, or an array of either) as names; ['iphone'] when absent. */
export function deviceFamilies(value: PlistValue | undefined): string[] {
  const raw = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  const names: string[] = [];
  for (const item of raw) {
    const number = typeof item === 'number' ? item : typeof item === 'bigint' ? Number(item) : typeof item === 'string' ? Number.parseInt(item, 10) : Number.NaN;
    const name = DEVICE_FAMILIES[number];
    if (name && !names.includes(name)) names.push(name);
  }
  return names.length > 0 ? names : ['iphone'];
}

/** Icon file names that Info.plist declares, in the order they are declared. */
export function declaredIconNames(info: PlistDict): { names: string[]; iconName: string | null } {
  const names: string[] = [];
  let iconName: string | null = null;
  for (const key of ['CFBundleIcons', 'CFBundleIcons~ipad', 'CFBundleIcons~iphone']) {
    const icons = asDict(info[key]);
    if (!icons) continue;
    const primaryValue = icons['CFBundlePrimaryIcon'];
    const primary = asDict(primaryValue);
    if (primary) {
      names.push(...asStrings(primary['CFBundleIconFiles']));
      iconName ??= plistString(primary, 'CFBundleIconName');
    } else if (typeof primaryValue === 'string') {
      names.push(primaryValue);
    }
  }
  names.push(...asStrings(info['CFBundleIconFiles']));
  names.push(...asStrings(info['CFBundleIconFile']));
  iconName ??= plistString(info, 'CFBundleIconName');
  return { names: [...new Set(names.filter((n) => n.trim() !== ''))], iconName };
}

/**
 * The files at the root of the app that a declared icon name refers to: "AppIcon60x60" matches
 * AppIcon60x60@2x.png, AppIcon60x60@3x.png, AppIcon76x76~ipad.png, ...
 */
export function resolveIconFiles(names: string[], rootFiles: string[]): string[] {
  const found: string[] = [];
  for (const name of names) {
    const base = name.replace(/\.png$/i, '');
    const pattern = new RegExp(`^${escapeRegExp(base)}(@\\d+(\\.\\d+)?x)?(~ipad|~iphone)?(\\.png)?$`, 'i');
    for (const file of rootFiles) if (pattern.test(file) && !found.includes(file)) found.push(file);
  }
  return found;
}

/**
 * Ranks the candidate icons by the size in their PNG header (reading only the first bytes of each),
 * then returns the largest one that decodes, as PNG.
 */
async function largestIcon(zip: ZipArchive, appDir: string, files: string[]): Promise<{ icon: Buffer; file: string } | null> {
  const candidates: { file: string; area: number; bytes: number }[] = [];
  for (const file of files.slice(0, MAX_ICON_CANDIDATES)) {
    try {
      const size = pngSize(await readHead(zip, appDir + file, 64));
      const bytes = zip.entries.find((e) => e.name === appDir + file)?.uncompressedSize ?? 0;
      candidates.push({ file, area: size ? size.width * size.height : 0, bytes });
    } catch {
      // an unreadable icon is skipped
    }
  }
  candidates.sort((a, b) => b.area - a.area || b.bytes - a.bytes);
  for (const candidate of candidates) {
    let data: Buffer;
    try {
      data = await zip.read(appDir + candidate.file, MAX_ICON_BYTES);
    } catch {
      continue;
    }
    let png: Buffer;
    try {
      png = cgbiToPng(data);
    } catch {
      png = data; // not a PNG at all (a JPEG named .png?): let sharp try
    }
    const icon = await toPng(png);
    if (icon) return { icon, file: candidate.file };
  }
  return null;
}

export const ipaReader: BinaryReader = {
  format: 'ipa',
  extensions: ['.ipa'],
  async read(path) {
    return withZip(path, WHAT, async (zip): Promise<AppMetadata> => {
      const plistEntry = zip.find(/^Payload\/[^/]+\.app\/Info\.plist$/)[0];
      if (!plistEntry) {
        const looksMac = zip.find(/(^|\/)[^/]+\.app\/Contents\/Info\.plist$/).length > 0;
        throw new ParseError(`not ${WHAT}: Payload/<App>.app/Info.plist is missing${looksMac ? ' (this looks like a zipped macOS app)' : ''}`);
      }
      const appDir = plistEntry.slice(0, -'Info.plist'.length); // "Payload/Name.app/"
      const folderName = appDir.slice('Payload/'.length, -'.app/'.length);
      const info = await readPlistEntry(zip, plistEntry, `not a valid .ipa`);
      const identity = bundleIdentity(info, folderName, 'not a valid .ipa', plistEntry);

      const { read: profile, error: provisioningError } = await embeddedProfile(zip, `${appDir}embedded.mobileprovision`);

      const { names, iconName } = declaredIconNames(info);
      const rootFiles = zip.entries.map((e) => e.name).filter((n) => n.startsWith(appDir) && !n.slice(appDir.length).includes('/')).map((n) => n.slice(appDir.length));
      const iconFiles = names.length > 0 ? resolveIconFiles(names, rootFiles) : rootFiles.filter((f) => /^(AppIcon|Icon)[^/]*\.png$/i.test(f));
      const icon = await largestIcon(zip, appDir, iconFiles);

      const executable = plistString(info, 'CFBundleExecutable');
      const architectures = executable ? await executableArchitectures(zip, appDir + executable) : null;
      const extensions = await appExtensions(zip, new RegExp(`^${escapeRegExp(appDir)}(PlugIns|Extensions)/[^/]+\\.appex/Info\\.plist$`));

      const extra: Record<string, unknown> = {
        executable,
        appExtensions: extensions,
        provisioningKind: profile?.kind ?? null,
        getTaskAllow: profile ? profile.profile.debuggable : null,
        iconFile: icon?.file ?? null,
        iconInAssetCatalog: !icon && rootFiles.includes('Assets.car'),
        iconName,
        sdk: plistString(info, 'DTSDKName'),
        supportedPlatforms: asStrings(info['CFBundleSupportedPlatforms']),
      };
      if (architectures) extra['architectures'] = architectures;
      if (provisioningError) extra['provisioningError'] = provisioningError;

      return {
        format: 'ipa',
        platform: 'ios',
        ...identity,
        deviceFamily: deviceFamilies(info['UIDeviceFamily']),
        minOsVersion: plistString(info, 'MinimumOSVersion'),
        icon: icon?.icon ?? null,
        releaseType: releaseTypeOf(profile?.profile ?? null),
        provisioning: profile?.profile ?? null,
        extra,
      };
    });
  },
};
