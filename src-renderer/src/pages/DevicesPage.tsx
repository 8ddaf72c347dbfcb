/**
 * The test devices Hangar knows (UDIDs for ad hoc iOS builds): registered by fastlane's device sync
 * or by a phone that opened /udid. Global admins and developers can forget one.
 */
import { useState } from 'react';
import type { Device } from '../api/types.ts';
import { CopyValue } from '../components/CopyButton.tsx';
import { ConfirmDialog } from '../components/Dialog.tsx';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { PageHeader } from '../components/PageHeader.tsx';
import { EmptyState, Loading } from '../components/Status.tsx';
import { TableHead } from '../components/TableHead.tsx';
import { Time } from '../components/Time.tsx';
import { useLoad } from '../hooks/useLoad.ts';
import { useI18n } from '../i18n/i18n.tsx';
import { managesEveryApp, useApi, useSession } from '../session.tsx';

const PAGE_SIZE = 50;

export function DevicesPage() {
  const { t } = useI18n();
  const api = useApi();
  const { user } = useSession();
  const [page, setPage] = useState(1);
  const devices = useLoad(() => api.devices.list(page, PAGE_SIZE), [api, page]);
  const [forgetting, setForgetting] = useState<Device | null>(null);
  const pages = devices.data ? Math.max(1, Math.ceil(devices.data.total / PAGE_SIZE)) : 1;

  return (
    <>
      <PageHeader title={t('devices.title')}>
        <p className="hint">{t('devices.intro')}</p>
      </PageHeader>
      {devices.loading && !devices.data && <Loading />}
      <ErrorNotice error={devices.error} onRetry={devices.reload} />
      {devices.data?.total === 0 && <EmptyState title={t('devices.none')}>{t('devices.noneHint')}</EmptyState>}
      {devices.data && devices.data.devices.length > 0 && (
        <>
          <table className="table">
            <TableHead columns={[t('devices.name'), t('devices.udid'), t('devices.model'), t('devices.lastSeen')]} actions={managesEveryApp(user)} />
            <tbody>
              {devices.data.devices.map((device) => (
                <tr key={device.udid}>
                  <th scope="row">{device.name}</th>
                  <td>
                    <CopyValue value={device.udid} label={t('devices.copyUdid', { name: device.name })} />
                  </td>
                  <td>{[device.model, device.platform].filter(Boolean).join(' · ') || '—'}</td>
                  <td>
                    <Time value={device.updated_at} />
                  </td>
                  {managesEveryApp(user) && (
                    <td>
                      <button type="button" className="danger" onClick={() => setForgetting(device)}>
                        {t('devices.forget')}
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
          {pages > 1 && (
            <nav className="pager" aria-label={t('common.pages')}>
              <button type="button" onClick={() => setPage(page - 1)} disabled={page <= 1}>
                {t('common.previous')}
              </button>
              <span>{t('common.pageOf', { page, pages })}</span>
              <button type="button" onClick={() => setPage(page + 1)} disabled={page >= pages}>
                {t('common.next')}
              </button>
            </nav>
          )}
        </>
      )}
      {forgetting && (
        <ConfirmDialog
          title={t('devices.forgetTitle', { name: forgetting.name })}
          message={t('devices.forgetBody')}
          confirmLabel={t('devices.forget')}
          onConfirm={async () => {
            await api.devices.delete(forgetting.udid);
            devices.reload();
          }}
          onClose={() => setForgetting(null)}
        />
      )}
    </>
  );
}
