/**
 * A channel's pages (releases, settings, webhooks) under one header, with where the channel sits
 * (app › scheme) and deleting it. The whole area is a drop target: builds dropped on it are
 * uploaded to this channel.
 */
import { useState } from 'react';
import { Outlet, useNavigate, useOutletContext, useParams } from 'react-router';
import type { Channel, ChannelVersions } from '../../api/types.ts';
import { ConfirmDialog } from '../../components/Dialog.tsx';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { PageHeader, SectionNav } from '../../components/PageHeader.tsx';
import { Loading } from '../../components/Status.tsx';
import { deviceTypeName } from '../../format.ts';
import { useLoad } from '../../hooks/useLoad.ts';
import { useI18n } from '../../i18n/i18n.tsx';
import { useApi } from '../../session.tsx';

export interface ChannelContext {
  channel: Channel;
  /** the channel key (`channel_key`) */
  key: string;
  app: ChannelVersions['app'];
  scheme: ChannelVersions['scheme'];
  setChannel(channel: Channel): void;
  setKey(key: string): void;
}

export function useChannelContext(): ChannelContext {
  return useOutletContext<ChannelContext>();
}

export function ChannelLayout() {
  const { t } = useI18n();
  const api = useApi();
  const navigate = useNavigate();
  const channelId = Number(useParams().channelId);
  const loaded = useLoad(async () => {
    const [channel, key] = await Promise.all([api.channels.get(channelId), api.channels.key(channelId)]);
    const { app, scheme } = await api.channels.versions(key, 1, 1);
    return { channel, key, app, scheme };
  }, [api, channelId]);
  const [deleting, setDeleting] = useState(false);

  if (!loaded.data) return loaded.error ? <ErrorNotice error={loaded.error} onRetry={loaded.reload} /> : <Loading />;
  const { channel, app, scheme } = loaded.data;
  const context: ChannelContext = {
    ...loaded.data,
    setChannel: (next) => loaded.setData((current) => current && { ...current, channel: next }),
    setKey: (key) => loaded.setData((current) => current && { ...current, key }),
  };
  const base = `/channels/${channel.id}`;
  return (
    <div data-drop-channel={channel.id} data-drop-label={`${app.name} › ${scheme.name} › ${channel.name}`} className="channel-area">
      <PageHeader
        title={channel.name}
        crumbs={[
          { label: t('apps.title'), to: '/apps' },
          { label: `${app.name} › ${scheme.name}`, to: `/apps/${app.id}` },
        ]}
        actions={
          <button type="button" className="danger" onClick={() => setDeleting(true)}>
            {t('common.delete')}
          </button>
        }
      >
        <p className="chips">
          <span className="chip">{deviceTypeName(channel.device_type)}</span>
          {channel.has_password && <span className="chip">{t('channels.protected')}</span>}
        </p>
      </PageHeader>
      <SectionNav
        label={t('channels.sections')}
        links={[
          { to: base, label: t('channels.releases') },
          { to: `${base}/settings`, label: t('channels.settings') },
          { to: `${base}/webhooks`, label: t('webhooks.title') },
        ]}
      />
      <Outlet context={context} />
      {deleting && (
        <ConfirmDialog
          title={t('channels.deleteTitle', { name: channel.name })}
          message={t('channels.deleteBody')}
          confirmLabel={t('common.delete')}
          onConfirm={async () => {
            await api.channels.delete(channel.id);
            navigate(`/apps/${app.id}`);
          }}
          onClose={() => setDeleting(false)}
        />
      )}
    </div>
  );
}
