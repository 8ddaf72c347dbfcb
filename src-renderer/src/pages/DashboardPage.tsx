/**
 * The first page: the address testers' devices open (large, with its QR code, following the machine
 * to a new LAN address live), how the server is doing, how much disk the builds take, and the
 * latest uploads, which appear as they arrive (live events), whoever sent them: CI, curl, this console.
 */
import { Link, useSearchParams } from 'react-router';
import type { PlacedRelease } from '../api/endpoints.ts';
import type { ServerStatus } from '../api/types.ts';
import { AppIcon } from '../components/AppIcon.tsx';
import { CopyButton } from '../components/CopyButton.tsx';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { FullScreenQr } from '../components/FullScreenQr.tsx';
import { PageHeader } from '../components/PageHeader.tsx';
import { QrCode } from '../components/QrCode.tsx';
import { EmptyState, Loading } from '../components/Status.tsx';
import { Time } from '../components/Time.tsx';
import { deviceTypeName, releasePath } from '../format.ts';
import { useLoad } from '../hooks/useLoad.ts';
import { useI18n } from '../i18n/i18n.tsx';
import { useApi, useLiveEvents, useSession } from '../session.tsx';
import { FilePicker } from '../uploads/FilePicker.tsx';
import { useUploads } from '../uploads/uploads.tsx';

const RECENT_UPLOADS = 10;

export function DashboardPage() {
  const { t } = useI18n();
  const api = useApi();
  const { desktop } = useSession();
  const status = useLoad(() => api.server.status(), [api]);
  // #/?qr=1 (the desktop app's tray: "Show QR") shows the address full screen
  const [params, setParams] = useSearchParams();

  useLiveEvents((event) => {
    if (event.type === 'server.address_changed') {
      status.setData((current) => current && { ...current, base_url: event.base_url, secure_base_url: event.secure_base_url, primary: event.primary });
    }
  });

  const lanUrl = status.data?.base_url ?? desktop?.lanUrl ?? null;
  return (
    <>
      <PageHeader title={t('dashboard.title')} />
      <div className="dashboard">
        <section className="card lan-card" aria-labelledby="lan-title">
          <h2 id="lan-title">{t('dashboard.lan')}</h2>
          {lanUrl ? (
            <>
              <p className="lan-url">
                <a href={lanUrl} target="_blank" rel="noreferrer">
                  {lanUrl}
                </a>
              </p>
              <p className="actions centered-actions">
                <CopyButton value={lanUrl} label={t('dashboard.copyLan')} />
                <button type="button" onClick={() => setParams({ qr: '1' })}>
                  {t('qr.fullScreen')}
                </button>
              </p>
              <QrCode value={lanUrl} label={t('qr.of', { url: lanUrl })} className="lan-qr" />
              <p className="hint">{t('dashboard.lanHint')}</p>
              {params.get('qr') === '1' && <FullScreenQr url={lanUrl} title={t('dashboard.lan')} onClose={() => setParams({})} />}
            </>
          ) : status.loading ? (
            <Loading />
          ) : (
            <p className="hint">{t('dashboard.lanUnknown')}</p>
          )}
        </section>
        <ServerCard status={status.data} loading={status.loading} />
        <RecentUploads />
      </div>
      <ErrorNotice error={status.error} onRetry={status.reload} />
    </>
  );
}

function ServerCard({ status, loading }: { status: ServerStatus | null | undefined; loading: boolean }) {
  const { t } = useI18n();
  if (status === undefined) return <section className="card">{loading && <Loading />}</section>;
  return (
    <section className="card" aria-labelledby="server-title">
      <h2 id="server-title">{t('dashboard.server')}</h2>
      {status === null ? (
        <p className="hint">{t('dashboard.noStatus')}</p>
      ) : (
        <>
          <dl className="facts">
            <dt>{t('dashboard.versionLabel')}</dt>
            <dd>{status.version}</dd>
            <dt>{t('dashboard.addresses')}</dt>
            <dd>
              <ul className="plain">
                {status.addresses.map((a) => (
                  <li key={`${a.interface}:${a.address}`}>
                    <code>{a.address}</code> <span className="muted">{a.interface}</span>
                  </li>
                ))}
              </ul>
            </dd>
            <dt>{t('dashboard.https')}</dt>
            <dd>{status.https_port === null ? t('common.off') : <code>{status.secure_base_url}</code>}</dd>
            <dt>{t('dashboard.mdns')}</dt>
            <dd>{status.mdns ? t('dashboard.mdnsOn') : t('common.off')}</dd>
            {status.ca && (
              <>
                <dt>{t('dashboard.ca')}</dt>
                <dd>
                  {status.ca.common_name}{' '}
                  <a href={`${status.base_url}/ca`} target="_blank" rel="noreferrer">
                    {t('dashboard.trust')}
                  </a>
                  <br />
                  <code className="fingerprint">{status.ca.fingerprint256}</code>
                </dd>
              </>
            )}
          </dl>
          <h3>{t('dashboard.disk')}</h3>
          <DiskUsage storage={status.storage} />
        </>
      )}
    </section>
  );
}

function DiskUsage({ storage }: { storage: ServerStatus['storage'] }) {
  const i18n = useI18n();
  const used = storage.total_bytes - storage.free_bytes;
  return (
    <div className="disk">
      <meter min={0} max={storage.total_bytes} value={used} high={storage.total_bytes * 0.9} aria-label={i18n.t('dashboard.diskMeter')} />
      <p>{i18n.t('dashboard.builds', { size: i18n.bytes(storage.files_bytes) })}</p>
      <p className="muted">{i18n.t('dashboard.free', { free: i18n.bytes(storage.free_bytes), total: i18n.bytes(storage.total_bytes) })}</p>
    </div>
  );
}

function RecentUploads() {
  const { t } = useI18n();
  const api = useApi();
  const { choose } = useUploads();
  const recent = useLoad(() => api.releases.recent(RECENT_UPLOADS), [api]);

  useLiveEvents((event) => {
    if (event.type === 'release.created') {
      void Promise.all([api.releases.get(event.release_id), api.channels.get(event.channel_id), api.apps.get(event.app_id)]).then(
        ([release, channel, app]) => {
          const placed: PlacedRelease = { release, channel, app: { id: app.id, name: app.name } };
          recent.setData((current) => [placed, ...(current ?? []).filter((r) => r.release.id !== release.id)].slice(0, RECENT_UPLOADS));
        },
        () => recent.reload(),
      );
    } else if (event.type === 'release.deleted') {
      recent.setData((current) => current?.filter((r) => r.release.id !== event.release_id));
    }
  });

  return (
    <section className="card recent" aria-labelledby="recent-title">
      <h2 id="recent-title">{t('dashboard.recent')}</h2>
      {recent.loading && !recent.data && <Loading />}
      <ErrorNotice error={recent.error} onRetry={recent.reload} />
      {recent.data?.length === 0 && (
        <EmptyState title={t('dashboard.noUploads')} action={<FilePicker label={t('upload.button')} onFiles={choose} />}>
          {t('dashboard.noUploadsHint')}
        </EmptyState>
      )}
      {recent.data && recent.data.length > 0 && (
        <ul className="release-list" aria-live="polite">
          {recent.data.map(({ release, app, channel }) => (
            <li key={release.id} data-release-id={release.id}>
              <AppIcon url={release.icon_url} name={release.app_name} size="small" />
              <Link to={releasePath(release.id, channel.id)} className="release-name">
                {release.app_name} {release.release_version} ({release.build_version})
              </Link>
              <span className="muted">
                {app.name} · {channel.name} · {deviceTypeName(release.device_type)}
              </span>
              <Time value={release.created_at} relative />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
