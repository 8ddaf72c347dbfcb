/**
 * Every real binary in ../shared/fixtures uploaded through POST /api/apps/upload, in both shapes, and
 * what Hangar answers compared field by field with SOURCES.md: the release, the app, scheme and
 * channel an upload without a channel key creates (R10), the icon, and the bytes served back.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, fixturesMissing } from '../helpers/fixtures.ts';
import { multipartBody } from '../helpers/builds.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

interface Expected {
  path: [string, string];
  deviceType: string;
  platform: string;
  bundleId: string;
  releaseVersion: string;
  buildVersion: string;
  appName: string;
  icon: boolean;
  /** the scheme an upload without channel key creates (R10) */
  scheme: 'Debug' | 'AdHoc' | 'Enterprise' | 'Release';
}

const FIXTURES: Expected[] = [
  { path: ['ios', 'appinfodemo-1.2.3-b5-iphone-noicon.ipa'], deviceType: 'ios', platform: 'iOS', bundleId: 'com.icyleaf.AppInfoDemo', releaseVersion: '1.2.3', buildVersion: '5', appName: 'AppInfoDemo', icon: false, scheme: 'AdHoc' },
  { path: ['ios', 'bundle-1.0-b1-ipad-cgbi-icons.ipa'], deviceType: 'ios', platform: 'iOS', bundleId: 'com.icyleaf.bundle', releaseVersion: '1.0', buildVersion: '1', appName: 'bundle', icon: true, scheme: 'Release' },
  { path: ['ios', 'demo-1.0-b1-with-appex-plugin.ipa'], deviceType: 'ios', platform: 'iOS', bundleId: 'com.icyleaf.test.Demo', releaseVersion: '1.0', buildVersion: '1', appName: 'Demo', icon: false, scheme: 'Enterprise' },
  { path: ['macos', 'guiapp-1.0-b1-unsigned.app.zip'], deviceType: 'macos', platform: 'macOS', bundleId: 'com.icyleaf.macos.GUIApp', releaseVersion: '1.0', buildVersion: '1', appName: 'GuiApp', icon: true, scheme: 'AdHoc' },
  { path: ['android', 'contactmanager-1.0-vc1-minsdk5-v1signed.apk'], deviceType: 'android', platform: 'Android', bundleId: 'com.example.android.contactmanager', releaseVersion: '1.0', buildVersion: '1', appName: 'Contact Manager', icon: true, scheme: 'AdHoc' },
  { path: ['android', 'helloapp-1.0-vc1-debug-unaligned.apk'], deviceType: 'android', platform: 'Android', bundleId: 'com.example.hello.helloapp.app', releaseVersion: '1.0', buildVersion: '1', appName: 'HelloApp', icon: true, scheme: 'AdHoc' },
  { path: ['android', 'appinfodemo-2.1.0-vc10-r8-v2signed.apk'], deviceType: 'android', platform: 'Android', bundleId: 'com.icyleaf.appinfodemo', releaseVersion: '2.1.0', buildVersion: '10', appName: 'AppInfoDemo', icon: true, scheme: 'AdHoc' },
  { path: ['android', 'appinfodemo-2.1.0-vc10.aab'], deviceType: 'android', platform: 'Android', bundleId: 'com.icyleaf.appinfodemo', releaseVersion: '2.1.0', buildVersion: '10', appName: 'AppInfoDemo', icon: true, scheme: 'AdHoc' },
  { path: ['harmonyos', 'myapplication-1.0.0-vc1000000.hap'], deviceType: 'harmonyos', platform: 'HarmonyOS', bundleId: 'com.example.myapplication', releaseVersion: '1.0.0', buildVersion: '1000000', appName: 'MyApplication', icon: true, scheme: 'AdHoc' },
  { path: ['harmonyos', 'myapplication-1.0.0-vc1000000.app'], deviceType: 'harmonyos', platform: 'HarmonyOS', bundleId: 'com.example.myapplication', releaseVersion: '1.0.0', buildVersion: '1000000', appName: 'MyApplication', icon: true, scheme: 'AdHoc' },
  { path: ['windows', 'upx-3.08-win32-console.exe'], deviceType: 'windows', platform: 'Windows', bundleId: 'UPX', releaseVersion: '3.08 (2011-12-12)', buildVersion: '3.8.0.0', appName: 'UPX executable packer', icon: false, scheme: 'AdHoc' },
  { path: ['linux', 'echo-x86_64-type2.AppImage'], deviceType: 'linux', platform: 'Linux', bundleId: 'echo', releaseVersion: '0', buildVersion: '0', appName: 'Echo', icon: true, scheme: 'AdHoc' },
  { path: ['linux', 'libjs-microplugin.js_0.0.3+dfsg-1.1_all.deb'], deviceType: 'linux', platform: 'Linux', bundleId: 'libjs-microplugin.js', releaseVersion: '0.0.3+dfsg', buildVersion: '1.1', appName: 'libjs-microplugin.js', icon: false, scheme: 'AdHoc' },
];

const BASE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$/;
const EXT_TIME = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4}$/;

describe.skipIf(fixturesMissing !== null)('uploading every fixture', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ baseUrl: 'http://lab.example:7700' });
  });
  afterAll(() => t?.close());

  for (const expected of FIXTURES) {
    for (const shape of ['extended', 'base'] as const) {
      it(`${expected.path[1]} (${shape})`, async () => {
        const file = fixture(...expected.path);
        const data = readFileSync(file);
        const { body, contentType } = multipartBody({ changelog: 'From the fixture test' }, { name: expected.path[1], data, contentType: 'application/octet-stream' });
        const res = await t.admin.request('POST', '/api/apps/upload', { raw: { body, contentType }, shape });
        expect(res.status, res.text).toBe(201);
        const r = res.body;

        // the release, field by field
        expect(r).toMatchObject({
          id: expect.any(Number),
          version: 1,
          app_name: expected.appName,
          bundle_id: expected.bundleId,
          release_version: expected.releaseVersion,
          build_version: expected.buildVersion,
          source: 'api',
          branch: null,
          git_commit: null,
          ci_url: null,
          size: statSync(file).size,
          changelog: [{ message: 'From the fixture test' }],
          text_changelog: '- From the fixture test',
          custom_fields: [],
        });
        const slug = r.app ? (shape === 'base' ? r.channel.slug : r.app.schemes[0].channels[0].slug) : '';
        expect(r.release_url).toBe(`http://lab.example:7700/${slug}/${r.id}`);
        expect(r.qrcode_url).toBe(`http://lab.example:7700/channels/${slug}/releases/${r.id}/qrcode`);
        expect(r.install_url).toBe(
          expected.deviceType === 'ios'
            ? `itms-services://?action=download-manifest&url=https://lab.example:${t.server.httpsPort}/channels/${slug}/releases/${r.id}/install`
            : `http://lab.example:7700/download/releases/${r.id}`,
        );
        expect(r.icon_url).toBe(expected.icon ? `http://lab.example:7700/icons/releases/${r.id}.png` : null);
        expect(r.created_at).toMatch(shape === 'base' ? BASE_TIME : EXT_TIME);
        if (shape === 'extended') {
          expect(r).toMatchObject({ platform: expected.platform, device_type: expected.deviceType });
        } else {
          expect(r).not.toHaveProperty('platform');
          expect(r).not.toHaveProperty('device_type');
        }

        // the app, scheme and channel an upload without channel key creates (R10)
        expect(r.scheme).toEqual({ id: expect.any(Number), name: expected.scheme });
        expect(r.channel).toMatchObject({ slug, name: expected.platform, device_type: expected.deviceType, bundle_id: '*', git_url: null, has_password: false });
        if (shape === 'extended') {
          expect(r.app).toMatchObject({ name: expected.appName, archived: false, schemes: [{ name: expected.scheme, channels: [{ name: expected.platform }] }] });
          expect(r.app.collaborators).toEqual([expect.objectContaining({ username: 'admin', owner: true })]);
        } else {
          expect(r.app).toEqual({ id: expect.any(Number), name: expected.appName });
        }

        // the icon is a real PNG; the download gives back the very bytes uploaded
        if (expected.icon) {
          const icon = await fetch(r.icon_url.replace('http://lab.example:7700', t.url));
          expect(icon.headers.get('content-type')).toBe('image/png');
          const meta = await sharp(Buffer.from(await icon.arrayBuffer())).metadata();
          expect(meta.format).toBe('png');
          expect(meta.width).toBeGreaterThan(0);
        }
        const download = await fetch(`${t.url}/download/releases/${r.id}`);
        expect(download.status).toBe(200);
        const served = createHash('sha256').update(Buffer.from(await download.arrayBuffer())).digest('hex');
        expect(served).toBe(createHash('sha256').update(data).digest('hex'));
      });
    }
  }
});
