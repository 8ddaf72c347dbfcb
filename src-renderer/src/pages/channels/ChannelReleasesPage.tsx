/**
 * A channel's releases, highest version first, a page at a time, following uploads and deletions
 * live; and where to drop or pick builds for this channel.
 */
import { useState } from 'react';
import { Link } from 'react-router';
import type { Release } from '../../api/types.ts';
import { AppIcon } from '../../components/AppIcon.tsx';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { EmptyState, Loading } from '../../components/Status.tsx';
import { TableHead } from '../../components/TableHead.tsx';
import { Time } from '../../components/Time.tsx';
import { releasePath } from '../../format.ts';
import { useAction } from '../../hooks/useAction.ts';
import { useLoad } from '../../hooks/useLoad.ts';
import { useI18n } from '../../i18n/i18n.tsx';
import { useApi, useLiveEvents } from '../../session.tsx';
import { FilePicker } from '../../uploads/FilePicker.tsx';
import { useUploads } from '../../uploads/uploads.tsx';
import { useChannelContext } from './ChannelLayout.tsx';

const PAGE_SIZE = 25;

export function ChannelReleasesPage() {
  const i18n = useI18n();
  const { t } = i18n;
  const api = useApi();
  const { channel, key, app, scheme } = useChannelContext();
  const { add } = useUploads();
  const first = useLoad(() => api.channels.versions(key, 1, PAGE_SIZE).then((page) => page.releases), [api, key]);
  const [more, setMore] = useState<{ releases: Release[]; page: number; done: boolean }>({ releases: [], page: 1, done: false });
  const loadingMore = useAction();

  useLiveEvents((event) => {
    if ((event.type === 'release.created' || event.type === 'release.deleted' || event.type === 'release.updated') && event.channel_id === channel.id) {
      setMore({ releases: [], page: 1, done: false });
      first.reload();
    }
  });

  const loadMore = () =>
    loadingMore.run(async () => {
      const next = await api.channels.versions(key, more.page + 1, PAGE_SIZE);
      setMore({ releases: [...more.releases, ...next.releases], page: more.page + 1, done: next.releases.length < PAGE_SIZE });
    });

  const upload = (files: File[]) => add(files, { kind: 'channel', channelId: channel.id, label: `${app.name} › ${scheme.name} › ${channel.name}` });
  const releases = [...(first.data ?? []), ...more.releases];
  const hasMore = first.data?.length === PAGE_SIZE && !more.done;

  return (
    <>
      <div className="drop-zone">
        <p>{t('channels.dropHere')}</p>
        <FilePicker label={t('upload.chooseFiles')} onFiles={upload} />
      </div>
      {first.loading && !first.data && <Loading />}
      <ErrorNotice error={first.error} onRetry={first.reload} />
      {first.data?.length === 0 && <EmptyState title={t('releases.none')}>{t('releases.noneHint', { key })}</EmptyState>}
      {releases.length > 0 && (
        <table className="table releases">
          <TableHead columns={[t('release.version'), t('release.bundleId'), t('release.size'), t('release.uploaded')]} />
          <tbody>
            {releases.map((release) => (
              <tr key={release.id} data-release-id={release.id}>
                <th scope="row">
                  <span className="with-icon">
                    <AppIcon url={release.icon_url} name={release.app_name} size="small" />
                    <Link to={releasePath(release.id, channel.id)}>
                      {release.app_name} {release.release_version} ({release.build_version})
                    </Link>
                    <span className="muted">#{release.version}</span>
                  </span>
                </th>
                <td>
                  <code>{release.bundle_id}</code>
                </td>
                <td>{i18n.bytes(release.size)}</td>
                <td>
                  <Time value={release.created_at} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ErrorNotice error={loadingMore.error} />
      {hasMore && (
        <button type="button" onClick={loadMore} disabled={loadingMore.busy}>
          {t('common.loadMore')}
        </button>
      )}
    </>
  );
}
