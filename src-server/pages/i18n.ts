/**
 * The words of the device pages, in English and Simplified Chinese, and the choice between them from
 * the browser's Accept-Language. Testers' phones rarely have an account here, so the browser's
 * language is all there is to go by.
 *
 * Messages are plain text with `{name}` placeholders; pages put links and emphasis around them, never
 * inside, so a translation cannot break the markup. Both catalogs have the same keys (the type says
 * so, and a test checks it at run time too). Dates are shown in the server's time zone
 * (`config.timezone`), the one API timestamps use.
 */
import type { Locale } from '../domain/user-settings.ts';

export type { Locale };

const en = {
  'site.name': 'Hangar',
  'action.install': 'Install',
  'action.download': 'Download',
  'action.details': 'Details',
  'action.newer': 'Newer releases',
  'action.older': 'Earlier releases',

  'field.version': 'Version',
  'field.size': 'Size',
  'field.uploaded': 'Uploaded',
  'field.releaseType': 'Release type',
  'field.bundleId': 'Bundle ID',
  'field.minOs': 'Minimum OS',
  'field.branch': 'Branch',
  'field.commit': 'Commit',
  'field.platform': 'Platform',
  'versionBuild': '{version} (build {build})',

  'type.debug': 'Debug',
  'type.adhoc': 'Ad hoc',
  'type.enterprise': 'Enterprise',
  'type.release': 'Release',

  'channel.latest': 'Latest release',
  'channel.earlier': 'Earlier releases',
  'channel.empty': 'No builds have been uploaded to this channel yet.',

  'release.newerAvailable': 'A newer build is available: {version}.',
  'release.goNewest': 'Go to the newest build',
  'release.changelog': 'Changes',
  'release.noChangelog': 'No changes were noted for this build.',
  'release.details': 'Details',
  'release.qrcode': 'Scan to open this page on a phone',
  'release.otherPlatform': 'This build is for {platform}. To install it, open this page on your {platform} device.',
  'release.trustHint': 'Installing from this server for the first time? Trust its certificate first.',
  'release.trustLink': 'Trust the certificate',

  'profile.title': 'Provisioning profile',
  'profile.kind': 'Kind',
  'profile.kind.development': 'Development',
  'profile.kind.adhoc': 'Ad hoc',
  'profile.kind.enterprise': 'Enterprise (in-house)',
  'profile.kind.app-store': 'App Store',
  'profile.team': 'Team',
  'profile.expires': 'Expires',
  'profile.expired': 'The profile expired on {date}: this build no longer installs.',
  'profile.devices': 'Devices',
  'profile.deviceCount': '{count} registered devices',
  'profile.checkDevice': 'Check whether your device is included',

  'inApp.title': 'Open this page in your browser',
  'inApp.named': "{app}'s built-in browser cannot install apps.",
  'inApp.unnamed': "This app's built-in browser cannot install apps.",
  'inApp.ios': 'Tap ··· (or the share button) and choose Open in Safari, or copy this link into Safari:',
  'inApp.other': 'Tap ··· and choose Open in browser, or copy this link into your browser:',

  'password.title': 'Password required',
  'password.intro': 'This channel is protected. Enter its password to see and install its builds.',
  'password.label': 'Password',
  'password.submit': 'Continue',
  'password.wrong': 'That password is not correct.',
  'password.tooMany': 'Too many wrong passwords. Try again in {seconds} seconds.',

  'notFound.title': 'Page not found',
  'notFound.body': 'There is nothing at this address. Check the link, or scan the QR code again.',

  'trust.title': 'Trust this server',
  'trust.intro': 'Hangar installs apps over HTTPS, with a certificate authority made for this Hangar installation only. Install and trust it once on each device; iPhones and iPads need it to install apps from this server.',
  'trust.name': 'Name',
  'trust.fingerprint': 'SHA-256 fingerprint',
  'trust.validUntil': 'Valid until',
  'trust.compare': 'Check that the fingerprint matches the one Hangar shows on its computer.',
  'trust.downloads': 'Downloads',
  'trust.get.mobileconfig': 'Profile for iPhone and iPad',
  'trust.get.crt': 'Certificate for Android and Windows (.crt)',
  'trust.get.pem': 'Certificate for macOS, Linux and Firefox (.pem)',
  'trust.ios': 'iPhone and iPad',
  'trust.ios.1': 'In Safari, tap "Profile for iPhone and iPad" above and allow the download.',
  'trust.ios.2': 'Open Settings → Profile Downloaded → Install, and confirm with your passcode.',
  'trust.ios.3': 'Then open Settings → General → About → Certificate Trust Settings.',
  'trust.ios.4': 'Turn on full trust for "{name}".',
  'trust.android': 'Android',
  'trust.android.1': 'Download the .crt certificate above.',
  'trust.android.2': 'Open Settings → Security → Encryption & credentials → Install a certificate → CA certificate, and choose the downloaded file.',
  'trust.android.3': 'Chrome trusts certificates installed this way; some apps do not.',
  'trust.macos': 'macOS',
  'trust.macos.1': 'Download the .pem certificate and open it: Keychain Access adds it.',
  'trust.macos.2': 'In the System keychain, open "{name}", expand Trust and choose Always Trust.',
  'trust.windows': 'Windows',
  'trust.windows.1': 'Download the .crt certificate and open it, then choose Install Certificate.',
  'trust.windows.2': 'Choose Local Machine, then Place all certificates in the following store → Trusted Root Certification Authorities.',
  'trust.linux': 'Linux and Firefox',
  'trust.linux.1': 'Debian and Ubuntu: copy the .pem certificate to /usr/local/share/ca-certificates/hangar.crt and run sudo update-ca-certificates.',
  'trust.linux.2': 'Firefox keeps its own list: Settings → Privacy & Security → Certificates → View Certificates → Authorities → Import, then tick "Trust this CA to identify websites".',

  'udid.title': 'Register this device',
  'udid.intro': 'Ad hoc and development builds install only on devices listed in their provisioning profile. This profile tells Hangar the UDID of this iPhone or iPad, so that the developer can add it.',
  'udid.install': 'Install profile',
  'udid.1': 'In Safari, tap Install profile and allow the download.',
  'udid.2': 'Open Settings → Profile Downloaded → Install.',
  'udid.3': 'Safari comes back here and shows your device and the builds that include it.',
  'udid.privacy': 'The profile is not kept on the device: it only sends the UDID, model and iOS version to this server.',
  'udid.notIos': 'Open this page in Safari on the iPhone or iPad you want to register.',

  'device.title': 'Your device',
  'device.name': 'Name',
  'device.udid': 'UDID',
  'device.model': 'Model',
  'device.releases': 'Builds for this device',
  'device.none': 'No build on this server includes this device yet. Send the UDID above to the developer.',
  'device.allDevices': 'Enterprise: installs on any device',
} as const;

export type MessageKey = keyof typeof en;
export type Catalog = Record<MessageKey, string>;

const zhCN: Catalog = {
  'site.name': 'Hangar',
  'action.install': '安装',
  'action.download': '下载',
  'action.details': '详情',
  'action.newer': '较新的版本',
  'action.older': '更早的版本',

  'field.version': '版本',
  'field.size': '大小',
  'field.uploaded': '上传时间',
  'field.releaseType': '发布类型',
  'field.bundleId': '包名',
  'field.minOs': '最低系统版本',
  'field.branch': '分支',
  'field.commit': '提交',
  'field.platform': '平台',
  'versionBuild': '{version}（构建 {build}）',

  'type.debug': '调试版',
  'type.adhoc': 'Ad hoc',
  'type.enterprise': '企业版',
  'type.release': '正式版',

  'channel.latest': '最新版本',
  'channel.earlier': '更早的版本',
  'channel.empty': '此渠道还没有上传任何构建。',

  'release.newerAvailable': '有更新的构建：{version}。',
  'release.goNewest': '前往最新构建',
  'release.changelog': '更新内容',
  'release.noChangelog': '此构建没有填写更新内容。',
  'release.details': '详细信息',
  'release.qrcode': '用手机扫码打开此页面',
  'release.otherPlatform': '此构建适用于 {platform}。请在您的 {platform} 设备上打开此页面进行安装。',
  'release.trustHint': '第一次从此服务器安装？请先信任它的证书。',
  'release.trustLink': '信任证书',

  'profile.title': '描述文件',
  'profile.kind': '类型',
  'profile.kind.development': '开发',
  'profile.kind.adhoc': 'Ad hoc',
  'profile.kind.enterprise': '企业（内部分发）',
  'profile.kind.app-store': 'App Store',
  'profile.team': '团队',
  'profile.expires': '过期时间',
  'profile.expired': '描述文件已于 {date} 过期：此构建已无法安装。',
  'profile.devices': '设备',
  'profile.deviceCount': '已注册 {count} 台设备',
  'profile.checkDevice': '查看您的设备是否在列表中',

  'inApp.title': '请在浏览器中打开此页面',
  'inApp.named': '{app} 的内置浏览器无法安装应用。',
  'inApp.unnamed': '此应用的内置浏览器无法安装应用。',
  'inApp.ios': '点击右上角 ···（或分享按钮）选择“在 Safari 中打开”，或将此链接复制到 Safari：',
  'inApp.other': '点击右上角 ··· 选择“在浏览器中打开”，或将此链接复制到浏览器：',

  'password.title': '需要密码',
  'password.intro': '此渠道受密码保护。输入密码后即可查看和安装其中的构建。',
  'password.label': '密码',
  'password.submit': '继续',
  'password.wrong': '密码不正确。',
  'password.tooMany': '密码错误次数过多，请在 {seconds} 秒后重试。',

  'notFound.title': '页面不存在',
  'notFound.body': '此地址没有内容。请检查链接，或重新扫描二维码。',

  'trust.title': '信任此服务器',
  'trust.intro': 'Hangar 通过 HTTPS 安装应用，所用的证书颁发机构仅为此 Hangar 安装生成。每台设备只需安装并信任一次；iPhone 和 iPad 需要它才能从此服务器安装应用。',
  'trust.name': '名称',
  'trust.fingerprint': 'SHA-256 指纹',
  'trust.validUntil': '有效期至',
  'trust.compare': '请核对指纹与 Hangar 在电脑上显示的一致。',
  'trust.downloads': '下载',
  'trust.get.mobileconfig': 'iPhone 和 iPad 描述文件',
  'trust.get.crt': 'Android 和 Windows 证书（.crt）',
  'trust.get.pem': 'macOS、Linux 和 Firefox 证书（.pem）',
  'trust.ios': 'iPhone 和 iPad',
  'trust.ios.1': '在 Safari 中点击上方的“iPhone 和 iPad 描述文件”，并允许下载。',
  'trust.ios.2': '打开“设置”→“已下载描述文件”→“安装”，并输入设备密码确认。',
  'trust.ios.3': '然后打开“设置”→“通用”→“关于本机”→“证书信任设置”。',
  'trust.ios.4': '为“{name}”开启完全信任。',
  'trust.android': 'Android',
  'trust.android.1': '下载上方的 .crt 证书。',
  'trust.android.2': '打开“设置”→“安全”→“加密与凭据”→“安装证书”→“CA 证书”，选择下载的文件。',
  'trust.android.3': 'Chrome 信任以此方式安装的证书；部分应用不信任。',
  'trust.macos': 'macOS',
  'trust.macos.1': '下载 .pem 证书并打开，“钥匙串访问”会添加它。',
  'trust.macos.2': '在“系统”钥匙串中打开“{name}”，展开“信任”，选择“始终信任”。',
  'trust.windows': 'Windows',
  'trust.windows.1': '下载 .crt 证书并打开，选择“安装证书”。',
  'trust.windows.2': '选择“本地计算机”，然后“将所有的证书都放入下列存储”→“受信任的根证书颁发机构”。',
  'trust.linux': 'Linux 和 Firefox',
  'trust.linux.1': 'Debian 和 Ubuntu：将 .pem 证书复制为 /usr/local/share/ca-certificates/hangar.crt，然后运行 sudo update-ca-certificates。',
  'trust.linux.2': 'Firefox 使用自己的证书列表：“设置”→“隐私与安全”→“证书”→“查看证书”→“证书颁发机构”→“导入”，并勾选“信任由此证书颁发机构来标识网站”。',

  'udid.title': '注册此设备',
  'udid.intro': 'Ad hoc 和开发构建只能安装在描述文件所列的设备上。安装此描述文件后，Hangar 会获取这台 iPhone 或 iPad 的 UDID，以便开发者添加。',
  'udid.install': '安装描述文件',
  'udid.1': '在 Safari 中点击“安装描述文件”，并允许下载。',
  'udid.2': '打开“设置”→“已下载描述文件”→“安装”。',
  'udid.3': 'Safari 会回到此页面，显示您的设备以及包含它的构建。',
  'udid.privacy': '描述文件不会保留在设备上：它只会把 UDID、型号和 iOS 版本发送给此服务器。',
  'udid.notIos': '请在要注册的 iPhone 或 iPad 上用 Safari 打开此页面。',

  'device.title': '您的设备',
  'device.name': '名称',
  'device.udid': 'UDID',
  'device.model': '型号',
  'device.releases': '适用于此设备的构建',
  'device.none': '此服务器上还没有包含此设备的构建。请把上面的 UDID 发给开发者。',
  'device.allDevices': '企业版：任何设备均可安装',
};

export const CATALOGS: Record<Locale, Catalog> = { en, 'zh-CN': zhCN };

/** Accept-Language tags that mean Simplified Chinese: zh, zh-CN, zh-SG, zh-Hans and its subtags. */
const SIMPLIFIED_CHINESE = /^zh(-cn|-sg|-hans(-.*)?)?$/;

function supported(tag: string): Locale | null {
  if (SIMPLIFIED_CHINESE.test(tag)) return 'zh-CN';
  if (tag === 'en' || tag.startsWith('en-')) return 'en';
  return null;
}

/**
 * The locale for an Accept-Language header: its most preferred language that the pages have (by
 * q-value, then order), else English. `zh-TW` and other languages are skipped, not matched.
 */
export function negotiateLocale(acceptLanguage: string | undefined): Locale {
  const ranges = (acceptLanguage ?? '')
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().toLowerCase().split(';');
      const q = params.map((p) => /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
      return { tag: tag.trim(), q: q === undefined ? 1 : Number(q), index };
    })
    .filter((range) => range.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const { tag } of ranges) {
    const locale = supported(tag);
    if (locale) return locale;
  }
  return 'en';
}

export interface I18n {
  locale: Locale;
  t(key: MessageKey, values?: Record<string, string | number>): string;
  /** a date and time in the server's time zone */
  dateTime(ms: number): string;
  /** a date alone, in the server's time zone */
  date(ms: number): string;
  /** a file size: 1.2 MB */
  size(bytes: number): string;
  /** a count with the locale's grouping: 1,234 */
  count(n: number): string;
}

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'];

export function createI18n(locale: Locale, timeZone: string): I18n {
  const catalog = CATALOGS[locale];
  const dateTimeFormat = new Intl.DateTimeFormat(locale, { timeZone, dateStyle: 'medium', timeStyle: 'short', hourCycle: 'h23' });
  const dateFormat = new Intl.DateTimeFormat(locale, { timeZone, dateStyle: 'medium' });
  const number = new Intl.NumberFormat(locale, { maximumFractionDigits: 1 });
  return {
    locale,
    t: (key, values = {}) => catalog[key].replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole)),
    dateTime: (ms) => dateTimeFormat.format(ms),
    date: (ms) => dateFormat.format(ms),
    size(bytes) {
      let value = bytes;
      let unit = 0;
      while (value >= 1024 && unit < UNITS.length - 1) {
        value /= 1024;
        unit += 1;
      }
      return `${number.format(value)} ${UNITS[unit]}`;
    },
    count: (n) => number.format(n),
  };
}
