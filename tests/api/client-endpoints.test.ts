/**
 * The public client endpoints (R12) — versions, latest, version_exist — against a realistic history
 * of real builds, in both shapes; the Release body by shape (R7, R11); and the upload answer (R5).
 *
 * The history: four uploads of a real .ipa whose versions are then set with PUT /api/releases/:id to
 * 1.9/9, 1.10/10, 1.10/11, 2.0/100 (versions 1..4), so that "newer" must compare as version numbers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, fixturesMissing } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { upload } from '../helpers/upload.ts';
import { createAppTree, type AppTree } from '../helpers/world.ts';

const BASE = 'http://hangar.test:7700';
/** iOS installs go over Hangar's HTTPS port on the base URL's host (LAN issue) */
const secure = () => `https://hangar.test:${t.server.httpsPort}`;
const ZONE = 'Asia/Kolkata'; // +05:30: a half-hour offset shows that the zone setting is used
const IPA = fixture('ios', 'bundle-1.0-b1-ipad-cgbi-icons.ipa');
const APK = fixture('android', 'contactmanager-1.0-vc1-minsdk5-v1signed.apk');
const BUNDLE = 'com.icyleaf.bundle';

const HISTORY = [
  { release_version: '1.9', build_version: '9' },
  { release_version: '1.10', build_version: '10' },
  { release_version: '1.10', build_version: '11', git_commit: 'c0ffee1234' },
  { release_version: '2.0', build_version: '100' },
];

/** Release fields in each shape (spec: Release; R5 for the upload answer). */
const BASE_RELEASE_KEYS = [
  'version', 'app_name', 'bundle_id', 'release_version', 'build_version', 'source', 'branch', 'git_commit', 'ci_url',
  'size', 'icon_url', 'install_url', 'changelog', 'custom_fields', 'created_at',
].sort();
const EXT_RELEASE_KEYS = [...BASE_RELEASE_KEYS, 'id', 'text_changelog', 'platform', 'device_type'].sort();
const UPLOAD_EXTRA_KEYS = ['id', 'release_url', 'qrcode_url', 'text_changelog', 'app', 'scheme', 'channel'];

const BASE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+05:30$/;
const EXT_TIME = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+0530$/;

let t: TestServer;
let tree: AppTree;
/** release ids of the history, in upload order (versions 1..4) */
const ids: number[] = [];

const q = (extra: Record<string, string | number> = {}) => ({ channel_key: tree.channel.key, ...extra });
const versionsOf = (releases: { version: number }[]) => releases.map((r) => r.version);

/** The instant a timestamp of either shape names, in ms (whole seconds for the extended shape). */
function instantOf(text: string): number {
  const ext = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d) ([+-]\d\d)(\d\d)$/.exec(text);
  return Date.parse(ext ? `${ext[1]}T${ext[2]}${ext[3]}:${ext[4]}` : text);
}

beforeAll(async () => {
  t = await startTestServer({ baseUrl: BASE, timezone: ZONE });
  if (fixturesMissing) return;
  tree = await createAppTree(t, t.admin, 'ios');
  for (const versions of HISTORY) {
    const uploaded = await upload(t.admin, IPA, { channel_key: tree.channel.key, changelog: `build ${versions.build_version}` });
    const put = await t.admin.put(`/api/releases/${uploaded.id}`, versions);
    expect(put.status, put.text).toBe(200);
    ids.push(uploaded.id);
  }
});
afterAll(() => t?.close());

describe.skipIf(fixturesMissing !== null)('GET /api/apps/versions', () => {
  it('base: the channel envelope with the releases, version descending, without a token', async () => {
    const res = await t.anon.get('/api/apps/versions', { query: q(), shape: 'base' });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['app', 'app_name', 'bundle_id', 'git_url', 'releases', 'scheme']);
    expect(res.body.app).toEqual({ id: tree.app.id, name: tree.app.name });
    expect(res.body.scheme).toEqual({ id: tree.scheme.id, name: tree.scheme.name });
    expect(res.body.bundle_id).toBe('*');
    expect(res.body.git_url).toBeNull();
    expect(typeof res.body.app_name).toBe('string');
    expect(versionsOf(res.body.releases)).toEqual([4, 3, 2, 1]);
    expect(res.body.releases.map((r: any) => [r.release_version, r.build_version])).toEqual([
      ['2.0', '100'],
      ['1.10', '11'],
      ['1.10', '10'],
      ['1.9', '9'],
    ]);
    for (const release of res.body.releases) expect(Object.keys(release).sort()).toEqual(BASE_RELEASE_KEYS);
  });

  it('extended: adds the channel id and the full app; releases carry their id', async () => {
    const res = await t.anon.get('/api/apps/versions', { query: q(), shape: 'extended' });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['app', 'app_name', 'bundle_id', 'git_url', 'id', 'releases', 'scheme']);
    expect(res.body.id).toBe(tree.channel.id);
    expect(res.body.app).toMatchObject({ id: tree.app.id, name: tree.app.name, archived: false });
    expect(res.body.app.schemes).toEqual([
      expect.objectContaining({ id: tree.scheme.id, name: tree.scheme.name, channels: [expect.objectContaining({ id: tree.channel.id, slug: tree.channel.slug })] }),
    ]);
    expect(res.body.scheme).toEqual({ id: tree.scheme.id, name: tree.scheme.name });
    expect(versionsOf(res.body.releases)).toEqual([4, 3, 2, 1]);
    expect(res.body.releases.map((r: any) => r.id)).toEqual([...ids].reverse());
    for (const release of res.body.releases) expect(Object.keys(release).sort()).toEqual(EXT_RELEASE_KEYS);
  });

  it('pages: page and per_page pick a slice, version descending', async () => {
    const first = await t.anon.get('/api/apps/versions', { query: q({ per_page: 3 }) });
    expect(versionsOf(first.body.releases)).toEqual([4, 3, 2]);
    const second = await t.anon.get('/api/apps/versions', { query: q({ per_page: 3, page: 2 }) });
    expect(versionsOf(second.body.releases)).toEqual([1]);
    const beyond = await t.anon.get('/api/apps/versions', { query: q({ per_page: 3, page: 3 }) });
    expect(beyond.status).toBe(200);
    expect(beyond.body.releases).toEqual([]);
  });

  it('refuses pagination out of range with 422 and entry', async () => {
    const bads: Record<string, string | number>[] = [{ page: 0 }, { page: -1 }, { per_page: 0 }, { per_page: 101 }, { page: 'x' }, { per_page: 'many' }];
    for (const bad of bads) {
      for (const shape of ['base', 'extended'] as const) {
        const res = await t.anon.get('/api/apps/versions', { query: q(bad), shape });
        expect(res.status, `${JSON.stringify(bad)} ${shape}: ${res.text}`).toBe(422);
        expect(res.body.error).toBe('Unprocessable entity');
        expect(Object.keys(res.body.entry ?? {})).toEqual([Object.keys(bad)[0]]);
      }
    }
  });

  it('answers 422 "Unauthorized channel key" for an unknown key', async () => {
    const unknown = await t.anon.get('/api/apps/versions', { query: { channel_key: 'no-such-key' } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toBe('Unauthorized channel key');
  });

  it('answers 422 "Unauthorized channel key" for a missing or empty key too (R2), on every client endpoint', async () => {
    const failures: string[] = [];
    for (const path of ['/api/apps/versions', '/api/apps/latest', '/api/apps/version_exist']) {
      const rest = path.endsWith('version_exist') ? { bundle_id: BUNDLE, release_version: '1.0', build_version: '1' } : path.endsWith('latest') ? { release_version: '1.0', build_version: '1' } : {};
      for (const key of [undefined, '']) {
        const res = await t.anon.get(path, { query: { ...rest, channel_key: key } });
        if (res.status !== 422 || res.body.error !== 'Unauthorized channel key') failures.push(`${path} channel_key=${JSON.stringify(key)}: ${res.status} ${res.text}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('does not take a channel key of another channel for this one', async () => {
    const other = await createAppTree(t, t.admin, 'ios');
    const res = await t.anon.get('/api/apps/versions', { query: { channel_key: other.channel.key } });
    expect(res.status).toBe(200);
    expect(res.body.releases).toEqual([]);
  });
});

describe.skipIf(fixturesMissing !== null)('GET /api/apps/latest (extended)', () => {
  const latest = async (query: Record<string, string>) => {
    const res = await t.anon.get('/api/apps/latest', { query: q(query), shape: 'extended' });
    expect(res.status, `${JSON.stringify(query)}: ${res.text}`).toBe(200);
    expect(Array.isArray(res.body.releases), res.text).toBe(true);
    return res.body;
  };

  const cases: [string, Record<string, string>, number[]][] = [
    ['1.9 (9): everything newer', { release_version: '1.9', build_version: '9' }, [4, 3, 2]],
    ['1.10 (10): "1.10" and "11", "100" are newer', { release_version: '1.10', build_version: '10' }, [4, 3]],
    ['1.10 (11): only 2.0', { release_version: '1.10', build_version: '11' }, [4]],
    ['2.0 (100): up to date', { release_version: '2.0', build_version: '100' }, []],
    ['2.0.0 (99): trailing zeros do not count', { release_version: '2.0.0', build_version: '99' }, [4]],
    ['1.10 (9): release_version >= is inclusive', { release_version: '1.10', build_version: '9' }, [4, 3, 2]],
    ['v1.9 (beta) / 9: a leading v and text are ignored', { release_version: 'v1.9 (beta)', build_version: '9' }, [4, 3, 2]],
    ['1.2 (99): build 100 > 99 numerically, not as text', { release_version: '1.2', build_version: '99' }, [4]],
    ['3.0 (1): a higher release_version is up to date', { release_version: '3.0', build_version: '1' }, []],
    ['1.9 (1000): a higher build is up to date', { release_version: '1.9', build_version: '1000' }, []],
  ];
  for (const [name, query, expected] of cases) {
    it(name, async () => {
      const body = await latest(query);
      expect(versionsOf(body.releases)).toEqual(expected);
      for (const release of body.releases) expect(Object.keys(release).sort()).toEqual(EXT_RELEASE_KEYS);
    });
  }

  it('without versions: the single newest release in a one-item array', async () => {
    const body = await latest({});
    expect(versionsOf(body.releases)).toEqual([4]);
    expect(body.releases[0].id).toBe(ids[3]);
  });

  it('carries the extended envelope (id and the full app)', async () => {
    const body = await latest({ release_version: '1.9', build_version: '9' });
    expect(body.id).toBe(tree.channel.id);
    expect(body.app).toMatchObject({ id: tree.app.id, name: tree.app.name, schemes: expect.any(Array) });
    expect(body.scheme).toEqual({ id: tree.scheme.id, name: tree.scheme.name });
  });

  it('filters by bundle_id', async () => {
    expect(versionsOf((await latest({ release_version: '1.9', build_version: '9', bundle_id: BUNDLE })).releases)).toEqual([4, 3, 2]);
    expect((await latest({ release_version: '1.9', build_version: '9', bundle_id: 'com.example.other' })).releases).toEqual([]);
    expect(versionsOf((await latest({ bundle_id: BUNDLE })).releases)).toEqual([4]);
    expect((await latest({ bundle_id: 'com.example.other' })).releases).toEqual([]);
  });

  it('decodes as the Zealot iOS SDK reads it: version Int, string versions, changelog [{message}], install_url', async () => {
    const body = await latest({ release_version: '1.10', build_version: '11' });
    const [release] = body.releases;
    expect(Number.isInteger(release.version)).toBe(true);
    expect(release).toMatchObject({ release_version: '2.0', build_version: '100', bundle_id: BUNDLE, app_name: expect.any(String) });
    expect(release.changelog).toEqual([{ message: 'build 100' }]);
    expect(release.install_url).toBe(`itms-services://?action=download-manifest&url=${secure()}/channels/${tree.channel.slug}/releases/${ids[3]}/install`);
  });

  it('needs no token and answers 422 "Unauthorized channel key" for an unknown key', async () => {
    const res = await t.anon.get('/api/apps/latest', { query: { channel_key: 'nope', release_version: '1.0', build_version: '1' }, shape: 'extended' });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('Unauthorized channel key');
  });
});

describe.skipIf(fixturesMissing !== null)('GET /api/apps/latest (base)', () => {
  it('requires release_version and build_version: 422 with entry', async () => {
    const cases: [Record<string, string>, string[]][] = [
      [{}, ['build_version', 'release_version']],
      [{ release_version: '1.0' }, ['build_version']],
      [{ build_version: '1' }, ['release_version']],
    ];
    for (const [query, fields] of cases) {
      const res = await t.anon.get('/api/apps/latest', { query: q(query), shape: 'base' });
      expect(res.status, res.text).toBe(422);
      expect(res.body.error).toBe('Unprocessable entity');
      expect(Object.keys(res.body.entry).sort()).toEqual(fields);
    }
  });

  it('answers the newest newer build as one object', async () => {
    for (const [rv, bv] of [['1.9', '9'], ['1.10', '10'], ['1.10', '11']]) {
      const res = await t.anon.get('/api/apps/latest', { query: q({ release_version: rv!, build_version: bv! }), shape: 'base' });
      expect(res.status, res.text).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['app', 'app_name', 'bundle_id', 'git_url', 'releases', 'scheme']);
      expect(Array.isArray(res.body.releases)).toBe(false);
      expect(res.body.releases).toMatchObject({ version: 4, release_version: '2.0', build_version: '100' });
      expect(Object.keys(res.body.releases).sort()).toEqual(BASE_RELEASE_KEYS);
    }
  });

  it('answers releases: null when up to date', async () => {
    for (const [rv, bv] of [['2.0', '100'], ['2.0', '1000'], ['10', '1']]) {
      const res = await t.anon.get('/api/apps/latest', { query: q({ release_version: rv!, build_version: bv! }), shape: 'base' });
      expect(res.status, res.text).toBe(200);
      expect(res.body.releases).toBeNull();
    }
  });

  it('filters by bundle_id', async () => {
    const res = await t.anon.get('/api/apps/latest', { query: q({ release_version: '1.0', build_version: '1', bundle_id: 'com.example.other' }), shape: 'base' });
    expect(res.status).toBe(200);
    expect(res.body.releases).toBeNull();
  });
});

describe.skipIf(fixturesMissing !== null)('GET /api/apps/version_exist', () => {
  const exist = (query: Record<string, string>, shape: 'base' | 'extended' = 'extended') => t.anon.get('/api/apps/version_exist', { query: q(query), shape });

  it('bundle_id + release_version + build_version: 200 with the Release in either shape', async () => {
    const base = await exist({ bundle_id: BUNDLE, release_version: '1.10', build_version: '11' }, 'base');
    expect(base.status, base.text).toBe(200);
    expect(Object.keys(base.body).sort()).toEqual(BASE_RELEASE_KEYS);
    expect(base.body).toMatchObject({ version: 3, release_version: '1.10', build_version: '11', bundle_id: BUNDLE });
    const ext = await exist({ bundle_id: BUNDLE, release_version: '1.10', build_version: '11' }, 'extended');
    expect(ext.status, ext.text).toBe(200);
    expect(Object.keys(ext.body).sort()).toEqual(EXT_RELEASE_KEYS);
    expect(ext.body).toMatchObject({ id: ids[2], version: 3 });
  });

  it('bundle_id + git_commit: 200 with the Release', async () => {
    const res = await exist({ bundle_id: BUNDLE, git_commit: 'c0ffee1234' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: ids[2], git_commit: 'c0ffee1234' });
  });

  it('absent: 404 {"error":"Not found release"}', async () => {
    const absent: Record<string, string>[] = [
      { bundle_id: BUNDLE, release_version: '1.10', build_version: '12' },
      { bundle_id: BUNDLE, release_version: '1.1', build_version: '11' },
      { bundle_id: 'com.example.other', release_version: '1.10', build_version: '11' },
      { bundle_id: BUNDLE, git_commit: 'deadbeef' },
      { bundle_id: 'com.example.other', git_commit: 'c0ffee1234' },
    ];
    for (const query of absent) {
      for (const shape of ['base', 'extended'] as const) {
        const res = await exist(query, shape);
        expect(res.status, `${JSON.stringify(query)}: ${res.text}`).toBe(404);
        expect(res.body).toEqual({ error: 'Not found release' });
      }
    }
  });

  it('other combinations: 422', async () => {
    const others: Record<string, string>[] = [
      { bundle_id: BUNDLE },
      { bundle_id: BUNDLE, release_version: '1.10' },
      { bundle_id: BUNDLE, build_version: '11' },
      { release_version: '1.10', build_version: '11' },
      { git_commit: 'c0ffee1234' },
    ];
    for (const query of others) {
      const res = await exist(query);
      expect(res.status, `${JSON.stringify(query)}: ${res.text}`).toBe(422);
      expect(typeof res.body.error).toBe('string');
    }
  });

  it('an unknown channel key is 422 "Unauthorized channel key" (never 404, which means "absent")', async () => {
    const res = await t.anon.get('/api/apps/version_exist', { query: { channel_key: 'unknown-key', bundle_id: BUNDLE, release_version: '1.10', build_version: '11' } });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('Unauthorized channel key');
  });
});

describe.skipIf(fixturesMissing !== null)('the Release body by shape', () => {
  it('base: no id, text_changelog, platform or device_type; ISO time with ms and the zone offset', async () => {
    const res = await t.anon.get('/api/apps/versions', { query: q({ per_page: 1 }), shape: 'base' });
    const release = res.body.releases[0];
    const row = t.sql.prepare('SELECT * FROM releases WHERE id = ?').get(ids[3]) as Record<string, any>;
    expect(release).toEqual({
      version: 4,
      app_name: row.app_name,
      bundle_id: BUNDLE,
      release_version: '2.0',
      build_version: '100',
      source: 'api',
      branch: null,
      git_commit: null,
      ci_url: null,
      size: row.size,
      icon_url: `${BASE}/icons/releases/${ids[3]}.png`,
      install_url: `itms-services://?action=download-manifest&url=${secure()}/channels/${tree.channel.slug}/releases/${ids[3]}/install`,
      changelog: [{ message: 'build 100' }],
      custom_fields: [],
      created_at: expect.stringMatching(BASE_TIME),
    });
    expect(instantOf(release.created_at)).toBe(row.created_at);
  });

  it('extended: id, text_changelog, platform, device_type; "YYYY-MM-DD HH:MM:SS +ZZZZ"', async () => {
    const res = await t.anon.get('/api/apps/versions', { query: q({ per_page: 1 }), shape: 'extended' });
    const release = res.body.releases[0];
    const row = t.sql.prepare('SELECT * FROM releases WHERE id = ?').get(ids[3]) as Record<string, any>;
    expect(release).toMatchObject({
      id: ids[3],
      version: 4,
      release_version: '2.0',
      build_version: '100',
      text_changelog: '- build 100',
      platform: 'iOS',
      device_type: 'ios',
      created_at: expect.stringMatching(EXT_TIME),
    });
    expect(instantOf(release.created_at)).toBe(Math.floor(row.created_at / 1000) * 1000);
  });

  it('version is an integer; release_version and build_version are always strings', async () => {
    for (const shape of ['base', 'extended'] as const) {
      const res = await t.anon.get('/api/apps/versions', { query: q(), shape });
      for (const release of res.body.releases) {
        expect(Number.isInteger(release.version)).toBe(true);
        expect(typeof release.release_version).toBe('string');
        expect(typeof release.build_version).toBe('string');
        expect(Array.isArray(release.changelog)).toBe(true);
        expect(Array.isArray(release.custom_fields)).toBe(true);
      }
    }
  });

  it('an Android release: install_url is the download URL, platform Android', async () => {
    const android = await createAppTree(t, t.admin, 'android');
    const uploaded = await upload(t.admin, APK, { channel_key: android.channel.key });
    expect(uploaded.install_url).toBe(`${BASE}/download/releases/${uploaded.id}`);
    for (const shape of ['base', 'extended'] as const) {
      const res = await t.anon.get('/api/apps/latest', { query: { channel_key: android.channel.key, release_version: '0.1', build_version: '0' }, shape });
      expect(res.status, res.text).toBe(200);
      const release = shape === 'base' ? res.body.releases : res.body.releases[0];
      expect(release).toMatchObject({
        bundle_id: 'com.example.android.contactmanager',
        release_version: '1.0',
        build_version: '1',
        install_url: `${BASE}/download/releases/${uploaded.id}`,
      });
      if (shape === 'extended') expect(release).toMatchObject({ platform: 'Android', device_type: 'android' });
      else expect(release).not.toHaveProperty('device_type');
    }
  });
});

describe.skipIf(fixturesMissing !== null)('the upload answer (R5)', () => {
  const fields = (key: string) => ({
    channel_key: key,
    changelog: 'first line\n- second line\n\n* third line',
    branch: 'origin/feature/x',
    git_commit: 'abc123',
    ci_url: 'https://ci.example.test/build/7',
    custom_fields: '[{"name":"Env","value":"staging","icon":"fas fa-flag"}]',
  });

  it('base: id, release_url, qrcode_url, install_url, app {id,name}, scheme, channel', async () => {
    const tree2 = await createAppTree(t, t.admin, 'ios');
    const body = await upload(t.admin, IPA, fields(tree2.channel.key), { shape: 'base' });
    expect(Object.keys(body).sort()).toEqual([...BASE_RELEASE_KEYS, ...UPLOAD_EXTRA_KEYS].sort());
    const { slug } = tree2.channel;
    expect(body).toMatchObject({
      id: expect.any(Number),
      version: 1,
      bundle_id: BUNDLE,
      release_version: '1.0',
      build_version: '1',
      source: 'api',
      branch: 'feature/x',
      git_commit: 'abc123',
      ci_url: 'https://ci.example.test/build/7',
      changelog: [{ message: 'first line' }, { message: 'second line' }, { message: 'third line' }],
      text_changelog: '- first line\n- second line\n- third line',
      custom_fields: [{ name: 'Env', value: 'staging', icon: 'fas fa-flag' }],
      created_at: expect.stringMatching(BASE_TIME),
      app: { id: tree2.app.id, name: tree2.app.name },
      scheme: { id: tree2.scheme.id, name: tree2.scheme.name },
      channel: { slug, name: 'Main', device_type: 'ios', bundle_id: '*', git_url: null, has_password: false },
    });
    expect(body.release_url).toBe(`${BASE}/${slug}/${body.id}`);
    expect(body.qrcode_url).toBe(`${BASE}/channels/${slug}/releases/${body.id}/qrcode`);
    expect(body.install_url).toBe(`itms-services://?action=download-manifest&url=${secure()}/channels/${slug}/releases/${body.id}/install`);
    expect(body.icon_url).toBe(`${BASE}/icons/releases/${body.id}.png`);
  });

  it('extended: the full App (schemes with channels, collaborators), platform and device_type', async () => {
    const tree2 = await createAppTree(t, t.admin, 'ios');
    const body = await upload(t.admin, IPA, fields(tree2.channel.key), { shape: 'extended' });
    expect(Object.keys(body).sort()).toEqual([...new Set([...EXT_RELEASE_KEYS, ...UPLOAD_EXTRA_KEYS])].sort());
    const { slug } = tree2.channel;
    expect(body.release_url).toBe(`${BASE}/${slug}/${body.id}`);
    expect(body.qrcode_url).toBe(`${BASE}/channels/${slug}/releases/${body.id}/qrcode`);
    expect(body.created_at).toMatch(EXT_TIME);
    expect(body).toMatchObject({ platform: 'iOS', device_type: 'ios', text_changelog: '- first line\n- second line\n- third line' });
    expect(body.app).toMatchObject({
      id: tree2.app.id,
      name: tree2.app.name,
      archived: false,
      schemes: [expect.objectContaining({ id: tree2.scheme.id, channels: [expect.objectContaining({ id: tree2.channel.id, slug })] })],
      collaborators: [expect.objectContaining({ username: 'admin', role: 'admin' })],
    });
    expect(body.scheme).toEqual({ id: tree2.scheme.id, name: tree2.scheme.name });
    expect(body.channel).toMatchObject({ id: tree2.channel.id, slug, name: 'Main', device_type: 'ios', has_password: false });
  });

  it('the version numbers count up per channel from 1', async () => {
    const tree2 = await createAppTree(t, t.admin, 'ios');
    const a = await upload(t.admin, IPA, { channel_key: tree2.channel.key });
    const b = await upload(t.admin, IPA, { channel_key: tree2.channel.key }, { shape: 'base' });
    expect([a.version, b.version]).toEqual([1, 2]);
  });
});
