/**
 * One release: what the build is (versions, bundle id, platform, size, where it came from), its
 * changelog and custom fields, the links testers use (the device page, the install link, the
 * download) with copy buttons, its QR code — also full screen, for devices across the room — and
 * deleting it.
 */
import { useState } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import type { CustomField, Release } from '../api/types.ts';
import { AppIcon } from '../components/AppIcon.tsx';
import { CopyButton } from '../components/CopyButton.tsx';
import { ConfirmDialog } from '../components/Dialog.tsx';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { FullScreenQr } from '../components/FullScreenQr.tsx';
import { PageHeader, type Crumb } from '../components/PageHeader.tsx';
import { QrCode } from '../components/QrCode.tsx';
import { Loading } from '../components/Status.tsx';
import { Time } from '../components/Time.tsx';
import { deviceTypeName } from '../format.ts';
import { useLoad } from '../hooks/useLoad.ts';
import { useI18n } from '../i18n/i18n.tsx';
import { useApi, useSession } from '../session.tsx';

/** Custom fields as CI sent them: usually an array of {name, value, icon}; anything else is skipped. */
function customFieldsOf(release: Release): CustomField[] {
  if (!Array.isArray(release.custom_fields)) return [];
  return release.custom_fields.filter((f): f is CustomField => typeof f === 'object' && f !== null && 'name' in f && 'value' in f);
}

export function ReleasePage() {
  const i18n = useI18n();
  const { t } = i18n;
  const api = useApi();
  const { desktop } = useSession();
  const navigate = useNavigate();
  const releaseId = Number(useParams().releaseId);
  const [params] = useSearchParams();
  const queryChannel = Number(params.get('channel')) || null;

  const loaded = useLoad(async () => {
    const release = await api.releases.get(releaseId);
    const channelId = release.channel_id ?? queryChannel;
    const [place, status] = await Promise.all([
      channelId === null
        ? null
        : Promise.all([api.channels.get(channelId), api.channels.key(channelId)]).then(async ([channel, key]) => ({ channel, ...(await api.channels.versions(key, 1, 1)) })),
      api.server.status(),
    ]);
    const base = status?.base_url ?? desktop?.lanUrl ?? null;
    // The device page (R11): as the server gives it, else built the way the server builds it.
    const releaseUrl = release.release_url ?? (place && base ? `${base}/${encodeURIComponent(place.channel.slug)}/${release.id}` : null);
    return { release, place, releaseUrl };
  }, [api, releaseId, queryChannel]);
  const [dialog, setDialog] = useState<'qr' | 'delete' | null>(null);

  if (!loaded.data) return loaded.error ? <ErrorNotice error={loaded.error} onRetry={loaded.reload} /> : <Loading />;
  const { release, place, releaseUrl } = loaded.data;
  const crumbs: Crumb[] = place
    ? [
        { label: t('apps.title'), to: '/apps' },
        { label: `${place.app.name} › ${place.scheme.name}`, to: `/apps/${place.app.id}` },
        { label: place.channel.name, to: `/channels/${place.channel.id}` },
      ]
    : [];
  const downloadUrl = api.http.url(`/download/releases/${release.id}`);
  const fields = customFieldsOf(release);
  const title = `${release.app_name} ${release.release_version} (${release.build_version})`;

  return (
    <>
      <PageHeader
        title={
          <span className="with-icon">
            <AppIcon url={release.icon_url} name={release.app_name} size="large" />
            {title}
          </span>
        }
        crumbs={crumbs}
        actions={
          <>
            {releaseUrl && (
              <button type="button" className="primary" onClick={() => setDialog('qr')}>
                {t('qr.fullScreen')}
              </button>
            )}
            <button type="button" className="danger" onClick={() => setDialog('delete')}>
              {t('common.delete')}
            </button>
          </>
        }
      />
      <div className="columns release">
        <div>
          <section className="card" aria-labelledby="release-facts">
            <h2 id="release-facts">{t('release.details')}</h2>
            <dl className="facts">
              <dt>{t('release.number')}</dt>
              <dd>#{release.version}</dd>
              <dt>{t('release.version')}</dt>
              <dd>
                {release.release_version} ({release.build_version})
              </dd>
              <dt>{t('release.bundleId')}</dt>
              <dd>
                <code>{release.bundle_id}</code>
              </dd>
              <dt>{t('release.platform')}</dt>
              <dd>{deviceTypeName(release.device_type)}</dd>
              <dt>{t('release.size')}</dt>
              <dd>{i18n.bytes(release.size)}</dd>
              <dt>{t('release.uploaded')}</dt>
              <dd>
                <Time value={release.created_at} />
              </dd>
              <dt>{t('release.source')}</dt>
              <dd>{release.source}</dd>
              {release.branch && (
                <>
                  <dt>{t('release.branch')}</dt>
                  <dd>
                    <code>{release.branch}</code>
                  </dd>
                </>
              )}
              {release.git_commit && (
                <>
                  <dt>{t('release.commit')}</dt>
                  <dd>
                    <code>{release.git_commit}</code>
                  </dd>
                </>
              )}
              {release.ci_url && (
                <>
                  <dt>{t('release.ci')}</dt>
                  <dd>
                    <a href={release.ci_url} target="_blank" rel="noreferrer">
                      {release.ci_url}
                    </a>
                  </dd>
                </>
              )}
            </dl>
          </section>
          <section className="card" aria-labelledby="release-changelog">
            <h2 id="release-changelog">{t('release.changelog')}</h2>
            {release.changelog.length === 0 ? (
              <p className="hint">{t('release.noChangelog')}</p>
            ) : (
              <ul className="changelog">
                {release.changelog.map((entry, index) => (
                  <li key={index}>
                    {entry.message}
                    {(entry.author || entry.date) && <span className="muted"> — {[entry.author, entry.date].filter(Boolean).join(', ')}</span>}
                  </li>
                ))}
              </ul>
            )}
          </section>
          {fields.length > 0 && (
            <section className="card" aria-labelledby="release-fields">
              <h2 id="release-fields">{t('release.customFields')}</h2>
              <dl className="facts">
                {fields.map((field, index) => (
                  <div key={index} className="fact">
                    <dt>{field.name}</dt>
                    <dd>{String(field.value)}</dd>
                  </div>
                ))}
              </dl>
            </section>
          )}
        </div>
        <section className="card links" aria-labelledby="release-links">
          <h2 id="release-links">{t('release.links')}</h2>
          {releaseUrl ? (
            <>
              <QrCode value={releaseUrl} label={t('qr.of', { url: releaseUrl })} className="release-qr" />
              <LinkRow label={t('release.page')} copyLabel={t('release.copyPage')} url={releaseUrl} />
            </>
          ) : (
            <p className="hint">{t('release.noPageUrl')}</p>
          )}
          <LinkRow label={t('release.install')} copyLabel={t('release.copyInstall')} url={release.install_url} />
          <p>
            <a className="button" href={downloadUrl} download>
              {t('release.download')}
            </a>
          </p>
        </section>
      </div>
      {dialog === 'qr' && releaseUrl && <FullScreenQr url={releaseUrl} title={title} onClose={() => setDialog(null)} />}
      {dialog === 'delete' && (
        <ConfirmDialog
          title={t('release.deleteTitle', { name: title })}
          message={t('release.deleteBody')}
          confirmLabel={t('common.delete')}
          onConfirm={async () => {
            await api.releases.delete(release.id);
            navigate(place ? `/channels/${place.channel.id}` : '/');
          }}
          onClose={() => setDialog(null)}
        />
      )}
    </>
  );
}

function LinkRow({ label, copyLabel, url }: { label: string; copyLabel: string; url: string }) {
  return (
    <div className="link-row">
      <p className="link-label">{label}</p>
      <p className="link-value">
        <a href={url} target="_blank" rel="noreferrer">
          {url}
        </a>
      </p>
      <CopyButton value={url} label={copyLabel} />
    </div>
  );
}
