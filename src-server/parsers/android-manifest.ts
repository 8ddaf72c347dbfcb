/**
 * What Hangar takes from an AndroidManifest.xml, decoded from either encoding (binary XML in an
 * .apk, protobuf in an .aab) into the common element tree of android-model.ts.
 */
import {
  androidAttr,
  childElements,
  cleanText,
  localizedTexts,
  plainAttr,
  resolveDefault,
  resolveText,
  valueText,
  type ResourceTable,
  type ResValue,
  type XmlElement,
} from './android-model.ts';

export interface AndroidManifestInfo {
  package: string;
  versionName: string | null;
  versionCode: string | null;
  minSdkVersion: string | null;
  targetSdkVersion: string | null;
  compileSdkVersion: string | null;
  /** the application label in the default locale, resolved through the resources */
  label: string | null;
  /** other locales' labels, e.g. { 'zh-CN': 'AppInfo演示' } */
  localizedLabels: Record<string, string>;
  /** the application icon (android:icon, else android:roundIcon) as written: usually a reference */
  icon: ResValue | null;
  permissions: string[];
  debuggable: boolean;
  /** device kinds the manifest requires: 'watch', 'tv', 'automotive' (empty: phones and tablets) */
  deviceFamily: string[];
}

/** An integer-ish value as text ("10"), following references (versionCode may be @integer/...). */
function numberText(value: ResValue | null, table: ResourceTable | null): string | null {
  const resolved = resolveDefault(value, table);
  const text = valueText(resolved);
  return text === null ? null : cleanText(text) || null;
}

/** Features that mark an app as being for one kind of device only. */
const DEVICE_FEATURES: Record<string, string> = {
  'android.hardware.type.watch': 'watch',
  'android.software.leanback': 'tv',
  'android.hardware.type.television': 'tv',
  'android.hardware.type.automotive': 'automotive',
};

export function readAndroidManifest(root: XmlElement, table: ResourceTable | null): AndroidManifestInfo {
  if (root.name !== 'manifest') throw new Error(`its root element is <${root.name || '?'}>, not <manifest>`);
  const pkg = cleanText(valueText(plainAttr(root, 'package')) ?? '');
  if (!pkg) throw new Error('<manifest> has no package attribute');

  const usesSdk = childElements(root, 'uses-sdk')[0];
  const minSdkVersion = usesSdk ? numberText(androidAttr(usesSdk, 'minSdkVersion'), table) : null;
  // Android's default: the target is the minimum when it is not given
  const targetSdkVersion = (usesSdk ? numberText(androidAttr(usesSdk, 'targetSdkVersion'), table) : null) ?? minSdkVersion;

  const application = childElements(root, 'application')[0];
  const labelValue = application ? androidAttr(application, 'label') : null;
  const iconValue = application ? (androidAttr(application, 'icon') ?? androidAttr(application, 'roundIcon')) : null;
  const debuggable = application ? resolveDefault(androidAttr(application, 'debuggable'), table) : null;

  const permissions: string[] = [];
  for (const tag of ['uses-permission', 'uses-permission-sdk-23', 'uses-permission-sdk-m']) {
    for (const element of childElements(root, tag)) {
      const name = valueText(androidAttr(element, 'name'));
      if (name && !permissions.includes(cleanText(name))) permissions.push(cleanText(name));
    }
  }

  const deviceFamily: string[] = [];
  for (const feature of childElements(root, 'uses-feature')) {
    const kind = DEVICE_FEATURES[valueText(androidAttr(feature, 'name')) ?? ''];
    const required = resolveDefault(androidAttr(feature, 'required'), table);
    if (kind && !(required?.kind === 'bool' && !required.value) && !deviceFamily.includes(kind)) deviceFamily.push(kind);
  }

  return {
    package: pkg,
    versionName: resolveText(androidAttr(root, 'versionName'), table),
    versionCode: numberText(androidAttr(root, 'versionCode'), table),
    minSdkVersion,
    targetSdkVersion,
    compileSdkVersion: numberText(androidAttr(root, 'compileSdkVersion') ?? plainAttr(root, 'platformBuildVersionCode'), table),
    label: resolveText(labelValue, table),
    localizedLabels: localizedTexts(labelValue, table),
    icon: iconValue,
    permissions,
    debuggable: debuggable?.kind === 'bool' && debuggable.value,
    deviceFamily,
  };
}
