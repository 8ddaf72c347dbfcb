/**
 * Seeds a stopped Hangar's database straight through SQLite (far faster than uploads): apps of 2
 * schemes x 2 channels, iOS and Android apps alternating, each channel with the same number of
 * releases whose versions climb (so that `latest` has real work: a version range per channel). The
 * rows are what uploads would have written (version keys, metadata, file paths); the files themselves
 * are not written (`latest`, `versions` and the app list never read them).
 */
import Database from 'better-sqlite3';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { versionKey } from '../../src-server/domain/versions.ts';
import { DATABASE_FILE } from '../../src-server/server.ts';

export interface SeededChannel {
  key: string;
  /** the versions of the second newest release: a client one build behind */
  releaseVersion: string;
  buildVersion: string;
  deviceType: 'ios' | 'android';
}

/** release i (0-based) of a channel: 1.0.0, 1.0.1, ... 1.0.4, 1.1.0, ... 1.3.4, 2.0.0 ... */
function releaseVersionOf(i: number): string {
  return `${1 + Math.floor(i / 20)}.${Math.floor((i % 20) / 5)}.${i % 5}`;
}

export interface SeedOptions {
  channels: number;
  perChannel: number;
  /** channels seeded before (into the same database): new slugs and app names continue after them */
  firstChannel?: number;
}

/** Adds `channels` channels of `perChannel` releases each (4 channels per app), in one transaction. */
export function seed(dataDir: string, { channels: channelCount, perChannel, firstChannel = 0 }: SeedOptions): SeededChannel[] {
  const db = new Database(join(dataDir, DATABASE_FILE));
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  const admin = db.prepare(`SELECT id FROM users WHERE username = 'admin'`).get() as { id: number } | undefined;
  if (!admin) throw new Error('no admin user in the seeded database');
  const insertApp = db.prepare(`INSERT INTO apps (name, archived, owner_id, created_at, updated_at) VALUES (?, 0, ?, ?, ?)`);
  const insertCollaborator = db.prepare(`INSERT INTO collaborators (app_id, user_id, role, created_at, updated_at) VALUES (?, ?, 'admin', ?, ?)`);
  const insertScheme = db.prepare(`INSERT INTO schemes (app_id, name, new_build_callout, retained_builds, created_at, updated_at) VALUES (?, ?, 1, 0, ?, ?)`);
  const insertChannel = db.prepare(
    `INSERT INTO channels (scheme_id, name, slug, key, device_type, bundle_id, git_url, password_hash, download_filename_type, next_release_version, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, '*', ?, NULL, 'version_datetime', ?, ?, ?)`,
  );
  const insertRelease = db.prepare(
    `INSERT INTO releases (channel_id, version, app_name, bundle_id, release_version, build_version, release_version_key, build_version_key,
       release_type, source, branch, git_commit, ci_url, platform, device_type, changelog, custom_fields, metadata,
       file_path, file_name, size, sha256, icon_path, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'api', ?, ?, ?, ?, ?, ?, '[]', ?, ?, ?, ?, ?, NULL, ?, ?)`,
  );
  const setFilePath = db.prepare(`UPDATE releases SET file_path = ? WHERE id = ?`);
  const seeded: SeededChannel[] = [];
  const now = Date.now();
  const hour = 3600 * 1000;
  const changelog = JSON.stringify([{ message: 'Fix a crash when the list is empty' }, { message: 'Faster start-up' }]);
  db.transaction(() => {
    const appCount = Math.ceil(channelCount / 4);
    for (let a = 0; a < appCount && seeded.length < channelCount; a += 1) {
      const ios = a % 2 === 0;
      const appNumber = Math.ceil(firstChannel / 4) + a + 1;
      const appName = `Bench App ${appNumber}`;
      const bundleId = `com.example.bench.app${appNumber}`;
      const appId = Number(insertApp.run(appName, admin.id, now, now).lastInsertRowid);
      insertCollaborator.run(appId, admin.id, now, now);
      for (const schemeName of ['Debug', 'Release']) {
        const schemeId = Number(insertScheme.run(appId, schemeName, now, now).lastInsertRowid);
        for (const channelName of ios ? ['iOS', 'iOS TestFlight'] : ['Android', 'Android Beta']) {
          if (seeded.length >= channelCount) break;
          const key = randomBytes(16).toString('hex');
          const slug = `b${(firstChannel + seeded.length).toString(36)}${randomBytes(3).toString('hex')}`;
          const channelId = Number(
            insertChannel.run(schemeId, channelName, slug, key, ios ? 'ios' : 'android', `https://git.example.com/bench/app${appNumber}.git`, perChannel + 1, now, now).lastInsertRowid,
          );
          const buildBase = 100 + (seeded.length % 37) * 50;
          for (let i = 0; i < perChannel; i += 1) {
            const releaseVersion = releaseVersionOf(i);
            const buildVersion = String(buildBase + i);
            const created = now - (perChannel - i) * hour;
            const sha256 = createHash('sha256').update(`${channelId}/${i}`).digest('hex');
            const info = insertRelease.run(
              channelId,
              i + 1,
              appName,
              bundleId,
              releaseVersion,
              buildVersion,
              versionKey(releaseVersion),
              versionKey(buildVersion),
              ios ? (schemeName === 'Debug' ? 'debug' : 'adhoc') : 'adhoc',
              'main',
              sha256.slice(0, 40),
              `https://ci.example.com/job/app${appNumber}/${buildBase + i}`,
              ios ? 'iOS' : 'Android',
              ios ? 'ios' : 'android',
              changelog,
              ios ? '{"minimumOsVersion":"13.0","deviceFamilies":["iphone"]}' : '{"minSdkVersion":24,"targetSdkVersion":34}',
              '',
              ios ? 'App.ipa' : 'app-release.apk',
              48 * 1024 * 1024 + i,
              sha256,
              created,
              created,
            );
            const releaseId = Number(info.lastInsertRowid);
            setFilePath.run(
              `files/channels/${channelId}/releases/${releaseId}/release${ios ? '.ipa' : '.apk'}`,
              releaseId,
            );
          }
          seeded.push({ key, releaseVersion: releaseVersionOf(perChannel - 2), buildVersion: String(buildBase + perChannel - 2), deviceType: ios ? 'ios' : 'android' });
        }
      }
    }
  })();
  db.pragma('optimize');
  db.close();
  return seeded;
}
