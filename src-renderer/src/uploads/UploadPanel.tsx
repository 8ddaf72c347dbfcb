/**
 * The uploads of this console, in a panel at the bottom of the window: per file its progress, speed
 * and a cancel button while it is sent; what the server read from it (name, versions, bundle id,
 * icon) once it is a release; the server's reason when it was refused.
 */
import { useState } from 'react';
import { Link } from 'react-router';
import { AppIcon } from '../components/AppIcon.tsx';
import { ErrorNotice, type Guidance } from '../components/ErrorNotice.tsx';
import { releasePath } from '../format.ts';
import { useI18n, type MessageKey } from '../i18n/i18n.tsx';
import type { UploadedRelease } from '../api/types.ts';
import { isActive, useUploads, type UploadItem, type UploadState } from './uploads.tsx';

const STATE_LABELS: Record<UploadState, MessageKey> = {
  queued: 'upload.state.queued',
  sending: 'upload.state.sending',
  processing: 'upload.state.processing',
  done: 'upload.state.done',
  failed: 'upload.state.failed',
  cancelled: 'upload.state.cancelled',
};

/** A 422 to an upload is about the build itself (R10): unreadable, or not for this channel. */
const UPLOAD_ERRORS: Record<number, Guidance> = { 422: { headline: 'upload.unusable', hint: 'upload.unusable.hint' } };

export function UploadPanel() {
  const { t } = useI18n();
  const { items, clearFinished } = useUploads();
  const [collapsed, setCollapsed] = useState(false);
  if (items.length === 0) return null;
  const active = items.filter(isActive).length;
  return (
    <section className="upload-panel" aria-labelledby="upload-panel-title">
      <header>
        <h2 id="upload-panel-title">
          {t('upload.title')} {active > 0 && <span className="badge">{active}</span>}
        </h2>
        <button type="button" onClick={clearFinished} disabled={active === items.length}>
          {t('upload.clearFinished')}
        </button>
        <button type="button" aria-expanded={!collapsed} aria-controls="upload-panel-list" onClick={() => setCollapsed(!collapsed)}>
          {collapsed ? t('upload.show') : t('upload.hide')}
        </button>
      </header>
      <ul id="upload-panel-list" hidden={collapsed}>
        {items.map((item) => (
          <UploadRow key={item.id} item={item} />
        ))}
      </ul>
    </section>
  );
}

function UploadRow({ item }: { item: UploadItem }) {
  const i18n = useI18n();
  const { t } = i18n;
  const { cancel } = useUploads();
  const target = item.target.kind === 'channel' ? item.target.label : t('upload.newApp');
  return (
    <li className="upload-row" data-state={item.state}>
      <div className="upload-file">
        <span className="name">{item.file.name}</span>
        <span className="muted">
          {i18n.bytes(item.file.size)} → {target}
        </span>
      </div>
      <p className="upload-state" aria-live="polite">
        {t(STATE_LABELS[item.state])}
      </p>
      {(item.state === 'queued' || item.state === 'sending' || item.state === 'processing') && (
        <div className="upload-progress">
          <progress max={item.total || 1} value={item.loaded} aria-label={t('upload.progressOf', { name: item.file.name })} />
          <span className="muted">
            {t('upload.sent', { loaded: i18n.bytes(item.loaded), total: i18n.bytes(item.total) })}
            {item.state === 'sending' && item.bytesPerSecond > 0 && ` · ${t('upload.speed', { speed: i18n.bytes(item.bytesPerSecond) })}`}
          </span>
          {item.state !== 'processing' && (
            <button type="button" onClick={() => cancel(item.id)} aria-label={t('upload.cancelNamed', { name: item.file.name })}>
              {t('common.cancel')}
            </button>
          )}
        </div>
      )}
      {item.release && <UploadedSummary release={item.release} />}
      {item.error && <ErrorNotice error={item.error} meaning={UPLOAD_ERRORS} />}
    </li>
  );
}

/** What the server read from the build. */
function UploadedSummary({ release }: { release: UploadedRelease }) {
  const { t } = useI18n();
  return (
    <div className="uploaded">
      <AppIcon url={release.icon_url} name={release.app_name} />
      <dl className="facts compact">
        <dt>{t('release.app')}</dt>
        <dd className="uploaded-name">{release.app_name}</dd>
        <dt>{t('release.version')}</dt>
        <dd>
          {release.release_version} ({release.build_version})
        </dd>
        <dt>{t('release.bundleId')}</dt>
        <dd>
          <code>{release.bundle_id}</code>
        </dd>
        <dt>{t('release.channel')}</dt>
        <dd>{release.channel.name}</dd>
      </dl>
      <Link to={releasePath(release.id, release.channel.id)}>{t('upload.openRelease')}</Link>
    </div>
  );
}
