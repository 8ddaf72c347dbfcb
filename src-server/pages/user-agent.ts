/**
 * What the device pages need to know about the browser that opened them, from its User-Agent:
 *
 * - the platform, to put the right install instructions first. iPadOS Safari asks for desktop pages
 *   and says it is a Mac; a server cannot tell the two apart, so a Mac may be an iPad (`mayBeIos`)
 *   and pages then offer the iOS way too;
 * - whether it is an app's built-in browser, which cannot install apps (iOS hands itms-services
 *   links only to Safari; in-app browsers on Android swallow downloads): the pages then ask the
 *   tester to open the link in the system browser;
 * - whether the device can install a build at all (an Android build on an iPhone cannot).
 */
import type { DeviceType } from '../storage/schema.ts';

export type Platform = 'ios' | 'android' | 'harmonyos' | 'macos' | 'windows' | 'linux' | 'unknown';

export interface Client {
  platform: Platform;
  /** iOS, or a Mac that may be an iPad in disguise */
  mayBeIos: boolean;
  /** the app whose built-in browser this is ('' when it is an unnamed iOS app's web view); null: a real browser */
  inApp: string | null;
}

/** First match wins: HarmonyOS 2-4 also says "Android", and iPhone apps' web views say "like Mac OS X". */
const PLATFORMS: [Platform, RegExp][] = [
  ['harmonyos', /OpenHarmony|HarmonyOS/i],
  ['ios', /iPhone|iPad|iPod/],
  ['android', /Android/i],
  ['macos', /Macintosh|Mac OS X/],
  ['windows', /Windows/],
  ['linux', /Linux|X11|CrOS/],
];

const MOBILE: Platform[] = ['ios', 'android', 'harmonyos'];

/** Built-in browsers of apps that cannot install: [name shown to the tester, how its User-Agent says so]. */
const IN_APP_BROWSERS: [string, RegExp][] = [
  ['WeChat', /MicroMessenger\//i],
  ['QQ', /\bQQ\/\d/],
  ['Weibo', /\bWeibo\b|__weibo__/i],
  ['DingTalk', /DingTalk/i],
  ['Feishu', /Feishu|\bLark\//i],
  ['Alipay', /AlipayClient/i],
  ['Facebook', /FBAN\/|FBAV\//],
  ['Instagram', /\bInstagram\b/],
  ['LINE', /\bLine\/\d/],
];

/** An iOS app's WKWebView: WebKit on an iPhone or iPad without Safari's token (Chrome and Firefox for iOS keep it). */
function isIosWebView(userAgent: string): boolean {
  return /AppleWebKit/.test(userAgent) && !/Safari\//.test(userAgent);
}

export function detectClient(userAgent: string | undefined): Client {
  const ua = userAgent ?? '';
  const platform = PLATFORMS.find(([, pattern]) => pattern.test(ua))?.[0] ?? 'unknown';
  let inApp = IN_APP_BROWSERS.find(([, pattern]) => pattern.test(ua))?.[0] ?? null;
  if (inApp === null && platform === 'ios' && isIosWebView(ua)) inApp = '';
  return { platform, mayBeIos: platform === 'ios' || platform === 'macos', inApp };
}

/**
 * Can this browser's device install a build for `deviceType`? False only when it surely cannot (an
 * iOS build on an Android phone, an Android build on an iPhone): unknown browsers and Macs, which may
 * be iPads, get the benefit of the doubt, and a desktop may fetch an Android build to sideload it.
 */
export function suits(deviceType: DeviceType, client: Client): boolean {
  if (client.platform === 'unknown') return true;
  if (deviceType === 'ios') return client.mayBeIos;
  if (client.platform === 'ios') return false;
  if (deviceType === 'android' || deviceType === 'harmonyos') return true;
  return !MOBILE.includes(client.platform);
}
