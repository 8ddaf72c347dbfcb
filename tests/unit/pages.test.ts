/**
 * The device pages' building blocks: escaping, language negotiation, the two catalogs, the
 * User-Agent table, and pages rendered from hostile data (app names, changelogs, custom fields).
 */
import { describe, expect, it } from 'vitest';
import type { Channel, Release } from '../../src-server/domain/context.ts';
import { escapeHtml, html, raw } from '../../src-server/pages/html.ts';
import { CATALOGS, createI18n, negotiateLocale } from '../../src-server/pages/i18n.ts';
import { pageContext, pageHeaders } from '../../src-server/pages/layout.ts';
import { releaseTypeName } from '../../src-server/pages/parts.ts';
import { channelPage } from '../../src-server/pages/channel-page.ts';
import { customFieldsOf, iconClasses, releasePage } from '../../src-server/pages/release-page.ts';
import { detectClient, suits } from '../../src-server/pages/user-agent.ts';

const UA = {
  iphoneSafari: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  iphoneChrome: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/126.0.6478.54 Mobile/15E148 Safari/604.1',
  ipadAsMac: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
  iosWebView: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148',
  wechatIos: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 MicroMessenger/8.0.49(0x18003137) NetType/WIFI Language/zh_CN',
  wechatAndroid: 'Mozilla/5.0 (Linux; Android 14; Pixel 7 Build/UQ1A.240205.004; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/122.0.6261.120 Mobile Safari/537.36 XWEB/1220099 MMWEBSDK/20240404 MMWEBID/2307 MicroMessenger/8.0.49.2600(0x28003133) WeChat/arm64 Weixin NetType/WIFI Language/zh_CN ABI/arm64',
  qq: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 QQ/9.0.60.612 V1_IPH_SQ_9.0.60_1_APP_A Pixel/1179 MiniAppEnable SimpleUISwitch/0 StudyMode/0 CurrentMode/0 CurrentFontScale/1.000000 QQTheme/1000 AppId/537221786 Core/WKWebView Device/Apple(iPhone 14 Pro) NetType/WIFI QBWebViewType/1 WKType/1',
  qqBrowser: 'Mozilla/5.0 (Linux; U; Android 13; zh-cn; V2197A Build/TP1A.220624.014) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/109.0.5414.86 MQQBrowser/14.9 Mobile Safari/537.36 COVC/046915',
  weibo: 'Mozilla/5.0 (iPhone; CPU iPhone OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Weibo (iPhone15,2__weibo__13.8.1__iphone__os16.6)',
  dingtalk: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 AliApp(DingTalk/7.5.20) com.laiwang.DingTalk/32128744 Channel/201200 language/zh-Hans-CN WK',
  feishu: 'Mozilla/5.0 (Linux; Android 13; SM-S9080 Build/TP1A.220624.014; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/107.0.5304.105 Mobile Safari/537.36 Lark/7.6.8 LarkLocale/zh_CN ChannelName/Feishu',
  alipay: 'Mozilla/5.0 (Linux; U; Android 12; zh-CN; V2055A Build/SP1A.210812.003) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/69.0.3497.100 UWS/3.22.2.59 Mobile Safari/537.36 UCBS/3.22.2.59_230817100535 ChannelId(1) NebulaSDK/1.8.100112 Nebula AlipayDefined(nt:WIFI,ws:393|0|2.75) AliApp(AP/10.5.30.8000) AlipayClient/10.5.30.8000 Language/zh-Hans',
  facebook: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/470.0.0.38.109;FBBV/600000000;FBDV/iPhone15,3;FBMD/iPhone;FBSN/iOS;FBSV/17.5;FBSS/3;FBCR/;FBID/phone;FBLC/en_US;FBOP/80]',
  instagram: 'Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP1A.240505.004; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/125.0.6422.52 Mobile Safari/537.36 Instagram 330.0.0.40.92 Android (34/14; 420dpi; 1080x2400; Google/google; Pixel 8; shiba; shiba; en_US; 597218960)',
  line: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Safari Line/14.8.0',
  androidChrome: 'Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36',
  harmonyNext: 'Mozilla/5.0 (Phone; OpenHarmony 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/114.0.0.0 Safari/537.36 ArkWeb/4.1.6.1 Mobile HuaweiBrowser/5.0.4.300',
  harmony4: 'Mozilla/5.0 (Linux; Android 12; HarmonyOS; NOH-AN00; HMSCore 6.13.0.302) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/99.0.4844.88 HuaweiBrowser/14.0.5.302 Mobile Safari/537.36',
  windowsEdge: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0',
  linuxFirefox: 'Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0',
};

describe('html``', () => {
  it('escapes every interpolated value, in text and in attributes', () => {
    const name = `<script>alert("x")</script>&'`;
    expect(html`<p title="${name}">${name}</p>`.text).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</p>',
    );
    expect(escapeHtml('" onmouseover="x')).toBe('&quot; onmouseover=&quot;x');
  });

  it('joins arrays, drops null, undefined and false, keeps 0, and passes nested templates and raw() through', () => {
    const items = ['<a>', 'b'].map((item) => html`<li>${item}</li>`);
    expect(html`<ul>${items}</ul>${null}${undefined}${false}${0}`.text).toBe('<ul><li>&lt;a&gt;</li><li>b</li></ul>0');
    expect(html`${raw('<b>trusted</b>')}`.text).toBe('<b>trusted</b>');
  });
});

describe('Accept-Language', () => {
  const cases: [string | undefined, string][] = [
    [undefined, 'en'],
    ['', 'en'],
    ['zh', 'zh-CN'],
    ['zh-CN', 'zh-CN'],
    ['zh-cn,zh;q=0.9', 'zh-CN'],
    ['zh-Hans', 'zh-CN'],
    ['zh-Hans-CN', 'zh-CN'],
    ['zh-SG', 'zh-CN'],
    ['zh-TW', 'en'],
    ['zh-HK, zh-TW;q=0.9', 'en'],
    ['zh-TW, zh;q=0.8', 'zh-CN'],
    ['en-US,en;q=0.9,zh-CN;q=0.8', 'en'],
    ['zh-CN;q=0.8, en;q=0.9', 'en'],
    ['en;q=0.5, zh-CN;q=0.9', 'zh-CN'],
    ['fr-FR, de;q=0.9', 'en'],
    ['fr-FR, zh-CN;q=0.5', 'zh-CN'],
    ['zh-CN;q=0, en;q=0.1', 'en'],
    ['*', 'en'],
    ['garbage;;;q=x, zh', 'zh-CN'],
  ];
  it.each(cases)('%j -> %s', (header, locale) => {
    expect(negotiateLocale(header)).toBe(locale);
  });
});

describe('catalogs', () => {
  it('English and Simplified Chinese have the same keys, none of them empty, with the same placeholders', () => {
    const en = CATALOGS.en;
    const zh = CATALOGS['zh-CN'];
    expect(Object.keys(zh).sort()).toEqual(Object.keys(en).sort());
    const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    for (const key of Object.keys(en) as (keyof typeof en)[]) {
      expect(en[key].trim(), key).not.toBe('');
      expect(zh[key].trim(), key).not.toBe('');
      expect(placeholders(zh[key]), key).toEqual(placeholders(en[key]));
    }
  });

  it('names the release types it knows, in either language; others are shown as given', () => {
    const zh = pageContext({ 'accept-language': 'zh-CN' }, { timeZone: 'UTC', secureBase: 'https://x' });
    const en = pageContext({}, { timeZone: 'UTC', secureBase: 'https://x' });
    expect(releaseTypeName(en, 'adhoc')).toBe('Ad hoc');
    expect(releaseTypeName(zh, 'Enterprise')).toBe('企业版');
    expect(releaseTypeName(en, 'nightly')).toBe('nightly');
    expect(releaseTypeName(en, 'constructor')).toBe('constructor');
    expect(releaseTypeName(en, null)).toBeNull();
  });

  it('formats dates in the given time zone and sizes per locale', () => {
    const instant = Date.UTC(2026, 10, 21, 6, 3, 5); // 14:03 in Shanghai, 01:03 in New York
    expect(createI18n('en', 'Asia/Shanghai').dateTime(instant)).toMatch(/Nov 21, 2026.*14:03/);
    expect(createI18n('en', 'America/New_York').dateTime(instant)).toMatch(/Nov 21, 2026.*01:03/);
    expect(createI18n('zh-CN', 'Asia/Shanghai').dateTime(instant)).toMatch(/2026年11月21日.*14:03/);
    const en = createI18n('en', 'UTC');
    expect(en.size(512)).toBe('512 B');
    expect(en.size(1536)).toBe('1.5 KB');
    expect(en.size(42 * 1024 * 1024)).toBe('42 MB');
    expect(en.t('versionBuild', { version: '1.2', build: '7' })).toBe('1.2 (build 7)');
    expect(createI18n('zh-CN', 'UTC').t('versionBuild', { version: '1.2', build: '7' })).toBe('1.2（构建 7）');
  });
});

describe('User-Agent', () => {
  const table: [keyof typeof UA, string, boolean, string | null][] = [
    ['iphoneSafari', 'ios', true, null],
    ['iphoneChrome', 'ios', true, null],
    ['ipadAsMac', 'macos', true, null],
    ['iosWebView', 'ios', true, ''],
    ['wechatIos', 'ios', true, 'WeChat'],
    ['wechatAndroid', 'android', false, 'WeChat'],
    ['qq', 'ios', true, 'QQ'],
    ['qqBrowser', 'android', false, null],
    ['weibo', 'ios', true, 'Weibo'],
    ['dingtalk', 'ios', true, 'DingTalk'],
    ['feishu', 'android', false, 'Feishu'],
    ['alipay', 'android', false, 'Alipay'],
    ['facebook', 'ios', true, 'Facebook'],
    ['instagram', 'android', false, 'Instagram'],
    ['line', 'ios', true, 'LINE'],
    ['androidChrome', 'android', false, null],
    ['harmonyNext', 'harmonyos', false, null],
    ['harmony4', 'harmonyos', false, null],
    ['windowsEdge', 'windows', false, null],
    ['linuxFirefox', 'linux', false, null],
  ];
  it.each(table)('%s: %s, may be iOS %s, in-app %j', (name, platform, mayBeIos, inApp) => {
    expect(detectClient(UA[name])).toEqual({ platform, mayBeIos, inApp });
  });

  it('no User-Agent: unknown, a real browser', () => {
    expect(detectClient(undefined)).toEqual({ platform: 'unknown', mayBeIos: false, inApp: null });
  });

  it('an iOS build suits iPhones, Macs (maybe iPads) and unknown browsers, not Android; an Android build not iPhones', () => {
    expect(suits('ios', detectClient(UA.iphoneSafari))).toBe(true);
    expect(suits('ios', detectClient(UA.ipadAsMac))).toBe(true);
    expect(suits('ios', detectClient(undefined))).toBe(true);
    expect(suits('ios', detectClient(UA.androidChrome))).toBe(false);
    expect(suits('android', detectClient(UA.iphoneSafari))).toBe(false);
    expect(suits('android', detectClient(UA.harmony4))).toBe(true);
    expect(suits('android', detectClient(UA.windowsEdge))).toBe(true);
    expect(suits('windows', detectClient(UA.androidChrome))).toBe(false);
    expect(suits('windows', detectClient(UA.windowsEdge))).toBe(true);
  });
});

describe('custom fields and icon classes', () => {
  it('keeps only plain class names', () => {
    expect(iconClasses('fas fa-code-branch')).toBe('fas fa-code-branch');
    expect(iconClasses('fas" onmouseover="alert(1)')).toBe('');
    expect(iconClasses('fa-solid FA-BAD fa-<b> x_y fa-1')).toBe('fa-solid fa-1');
    expect(iconClasses(42)).toBe('');
  });

  it('reads {name, value, icon} items and skips anything else', () => {
    const release = { customFields: JSON.stringify([{ name: 'Branch', value: 'main', icon: 'fas fa-code-branch' }, { name: 'Count', value: 3 }, 'junk', { name: { x: 1 }, value: 'v' }, null]) } as Release;
    expect(customFieldsOf(release)).toEqual([
      { name: 'Branch', value: 'main', icon: 'fas fa-code-branch' },
      { name: 'Count', value: '3', icon: '' },
    ]);
    expect(customFieldsOf({ customFields: '{"a":1}' } as Release)).toEqual([]);
  });
});

describe('pages from hostile data', () => {
  const XSS = `<img src=x onerror=alert(1)>`;
  const channel = { id: 1, slug: 'beta', name: `Main ${XSS}`, deviceType: 'ios', passwordHash: null } as Channel;
  const release = {
    id: 7,
    channelId: 1,
    appName: `App ${XSS}`,
    releaseVersion: `1.0${XSS}`,
    buildVersion: '3',
    bundleId: 'dev.hangar.x',
    releaseType: 'adhoc',
    deviceType: 'ios',
    size: 1234,
    createdAt: Date.UTC(2026, 0, 2),
    iconPath: null,
    branch: `main"><script>`,
    gitCommit: null,
    changelog: JSON.stringify([{ message: `Fixed ${XSS}` }, { message: '</li><script>alert(2)</script>' }]),
    customFields: JSON.stringify([{ name: `N${XSS}`, value: `V${XSS}`, icon: 'fas" onclick="alert(3)' }, { name: 'ok', value: 'fine', icon: 'fas fa-code-branch' }]),
    metadata: JSON.stringify({ minOsVersion: XSS, provisioning: { name: 'P', uuid: null, teamId: null, teamName: XSS, createdAt: null, expiresAt: '2030-01-01T00:00:00.000Z', devices: ['A', 'B'], provisionsAllDevices: false, debuggable: false } }),
  } as unknown as Release;
  const ctx = pageContext({ 'accept-language': 'en', 'user-agent': UA.iphoneSafari }, { timeZone: 'UTC', secureBase: 'https://hangar.test:7443' });

  /** No element or attribute came from the data: every "<" of it is escaped. */
  function expectInert(page: string) {
    expect(page).not.toContain('<img src=x');
    expect(page).not.toContain('<script>alert');
    expect(page).not.toMatch(/onclick=|onerror=alert\(1\)>/);
    expect(page).not.toContain('"><script>');
  }

  it('the release page escapes the name, changelog, branch, custom fields and profile, and filters icon classes', () => {
    const page = releasePage(ctx, { channel, release, install: { href: 'itms-services://?action=download-manifest&url=https://hangar.test:7443/x', ios: true, fileName: 'a.ipa', size: 1 }, newer: null, pageUrl: 'http://hangar.test/beta/7' });
    expectInert(page);
    expect(page).toContain('App &lt;img src=x onerror=alert(1)&gt;');
    expect(page).toContain('Fixed &lt;img src=x onerror=alert(1)&gt;');
    expect(page).toContain('&lt;/li&gt;&lt;script&gt;alert(2)&lt;/script&gt;');
    expect(page).toContain('V&lt;img src=x onerror=alert(1)&gt;');
    expect(page).toContain('<i class="fas fa-code-branch" aria-hidden="true"></i>');
    expect(page).not.toContain('<i class="fas"');
    expect(page).toContain('href="/assets/fontawesome/css/all.min.css"');
    expect(page).toContain('2 registered devices');
    expect(page.length).toBeLessThan(30_000);
  });

  it('the channel page escapes the app and channel names', () => {
    const page = channelPage(ctx, {
      app: { id: 1, name: `Hostile ${XSS}` } as never,
      channel,
      iconUrl: null,
      newest: { release, install: { href: '/download/releases/7', ios: false, fileName: `f${XSS}.apk`, size: 1 } },
      releases: [release],
      page: 1,
      hasMore: false,
      pageUrl: `http://hangar.test/beta?${XSS}`,
    });
    expectInert(page);
    expect(page).toContain('Hostile &lt;img');
  });

  it('pages carry their nonce, and the headers a strict policy', () => {
    const page = releasePage(ctx, { channel, release, install: { href: '#', ios: true, fileName: 'a.ipa', size: 1 }, newer: null, pageUrl: 'http://x/beta/7' });
    expect(page).toContain(`<style nonce="${ctx.nonce}">`);
    expect(page).toContain(`<script nonce="${ctx.nonce}">`);
    const headers = pageHeaders(ctx);
    expect(headers['content-security-policy']).toContain(`script-src 'nonce-${ctx.nonce}'`);
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(headers['content-security-policy']).toContain('https://hangar.test:7443');
    expect(headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(pageContext({}, { timeZone: 'UTC', secureBase: 'https://x' }).nonce).not.toBe(ctx.nonce);
  });
});
