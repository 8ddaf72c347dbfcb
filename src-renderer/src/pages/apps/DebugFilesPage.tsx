/**
 * The debug symbols CI stored for an app's builds (dSYMs, ProGuard mappings), channel by channel:
 * what each holds, downloading and deleting. The API keys them by channel key (R15), which the
 * console reads per channel.
 */
import { useState } from 'react';
import type { Channel, DebugFile } from '../../api/types.ts';
import { ConfirmDialog } from '../../components/Dialog.tsx';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { EmptyState, Loading } from '../../components/Status.tsx';
import { TableHead } from '../../components/TableHead.tsx';
import { Time } from '../../components/Time.tsx';
import { deviceTypeName } from '../../format.ts';
import { useLoad } from '../../hooks/useLoad.ts';
import { useI18n } from '../../i18n/i18n.tsx';
import { useApi } from '../../session.tsx';
import { useAppContext } from './AppLayout.tsx';

interface ChannelFiles {
  channel: Channel;
  key: string;
  files: DebugFile[];
}

export function DebugFilesPage() {
  const { t } = useI18n();
  const api = useApi();
  const { app } = useAppContext();
  const channels = app.schemes.flatMap((scheme) => scheme.channels);
  const loaded = useLoad(
    () =>
      Promise.all(
        channels.map(async (channel): Promise<ChannelFiles> => {
          const key = await api.channels.key(channel.id);
          return { channel, key, files: await api.debugFiles.list(key) };
        }),
      ),
    [api, app],
  );
  const [deleting, setDeleting] = useState<{ file: DebugFile; key: string } | null>(null);

  if (!loaded.data) return loaded.error ? <ErrorNotice error={loaded.error} onRetry={loaded.reload} /> : <Loading />;
  const withFiles = loaded.data.filter((c) => c.files.length > 0);
  if (withFiles.length === 0) {
    return (
      <EmptyState title={t('debugFiles.none')}>
        {t('debugFiles.noneHint')}
      </EmptyState>
    );
  }
  return (
    <>
      {withFiles.map(({ channel, key, files }) => (
        <section key={channel.id} className="card" aria-labelledby={`debug-${channel.id}`}>
          <h2 id={`debug-${channel.id}`}>
            {channel.name} <span className="muted">{deviceTypeName(channel.device_type)}</span>
          </h2>
          <table className="table">
            <TableHead columns={[t('release.version'), t('debugFiles.contents'), t('debugFiles.uploaded')]} actions />
            <tbody>
              {files.map((file) => (
                <tr key={file.id}>
                  <th scope="row">
                    {file.release_version} ({file.build_version})
                  </th>
                  <td>
                    <ul className="plain">
                      {file.metadata.map((m) => (
                        <li key={m.id}>
                          <span className="chip">{m.category}</span> {m.name ?? m.bundle_id} <code className="muted">{m.uuid}</code>
                        </li>
                      ))}
                    </ul>
                  </td>
                  <td>{file.metadata[0] && <Time value={file.metadata[0].created_at} />}</td>
                  <td className="actions">
                    <a className="button" href={api.debugFiles.downloadUrl(file.id, key)} download>
                      {t('common.download')}
                    </a>
                    <button type="button" className="danger" onClick={() => setDeleting({ file, key })}>
                      {t('common.delete')}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ))}
      {deleting && (
        <ConfirmDialog
          title={t('debugFiles.deleteTitle', { version: `${deleting.file.release_version} (${deleting.file.build_version})` })}
          message={t('debugFiles.deleteBody')}
          confirmLabel={t('common.delete')}
          onConfirm={async () => {
            await api.debugFiles.delete(deleting.file.id, deleting.key);
            loaded.reload();
          }}
          onClose={() => setDeleting(null)}
        />
      )}
    </>
  );
}
