/**
 * An app's schemes and their channels: adding, editing and deleting both. Each channel row is a drop
 * target: builds dropped on it are uploaded to it.
 */
import { useState } from 'react';
import { Link } from 'react-router';
import type { Scheme } from '../../api/types.ts';
import { ConfirmDialog, FormDialog } from '../../components/Dialog.tsx';
import { Checkbox, Field } from '../../components/Field.tsx';
import { EmptyState } from '../../components/Status.tsx';
import { TableHead } from '../../components/TableHead.tsx';
import { deviceTypeName } from '../../format.ts';
import { useI18n } from '../../i18n/i18n.tsx';
import { useApi } from '../../session.tsx';
import { ChannelFieldsEditor, draftOf, fieldsOf } from '../channels/ChannelFields.tsx';
import { useAppContext } from './AppLayout.tsx';

type SchemeDialog = { kind: 'create' } | { kind: 'edit'; scheme: Scheme } | { kind: 'delete'; scheme: Scheme } | { kind: 'channel'; scheme: Scheme };

export function AppOverviewPage() {
  const i18n = useI18n();
  const { t } = i18n;
  const { app, reload } = useAppContext();
  const [dialog, setDialog] = useState<SchemeDialog | null>(null);
  const close = () => setDialog(null);
  const locked = app.archived;

  const addScheme = (
    <button type="button" className="primary" onClick={() => setDialog({ kind: 'create' })} disabled={locked}>
      {t('schemes.create')}
    </button>
  );
  return (
    <>
      {app.schemes.length === 0 ? (
        <EmptyState title={t('schemes.none')} action={addScheme}>
          {t('schemes.noneHint')}
        </EmptyState>
      ) : (
        <>
          <div className="toolbar">{addScheme}</div>
          {app.schemes.map((scheme) => (
            <section key={scheme.id} className="card scheme" aria-labelledby={`scheme-${scheme.id}`}>
              <header className="card-header">
                <h2 id={`scheme-${scheme.id}`}>{scheme.name}</h2>
                <p className="muted">
                  {scheme.new_build_callout ? t('schemes.calloutOn') : t('schemes.calloutOff')} ·{' '}
                  {scheme.retained_builds === 0 ? t('schemes.keepAll') : i18n.plural('schemes.keepSome', scheme.retained_builds)}
                </p>
                <div className="actions">
                  <button type="button" onClick={() => setDialog({ kind: 'channel', scheme })} disabled={locked}>
                    {t('channels.create')}
                  </button>
                  <button type="button" onClick={() => setDialog({ kind: 'edit', scheme })} disabled={locked}>
                    {t('common.edit')}
                  </button>
                  <button type="button" className="danger" onClick={() => setDialog({ kind: 'delete', scheme })} disabled={locked}>
                    {t('common.delete')}
                  </button>
                </div>
              </header>
              {scheme.channels.length === 0 ? (
                <p className="hint">{t('channels.none')}</p>
              ) : (
                <table className="table">
                  <TableHead columns={[t('channels.name'), t('channels.deviceType'), t('channels.bundleId'), t('channels.slug')]} />
                  <tbody>
                    {scheme.channels.map((channel) => (
                      <tr key={channel.id} data-drop-channel={channel.id} data-drop-label={`${app.name} › ${scheme.name} › ${channel.name}`}>
                        <th scope="row">
                          <Link to={`/channels/${channel.id}`}>{channel.name}</Link>
                          {channel.has_password && <span className="badge">{t('channels.protected')}</span>}
                        </th>
                        <td>{deviceTypeName(channel.device_type)}</td>
                        <td>
                          <code>{channel.bundle_id}</code>
                        </td>
                        <td>
                          <code>{channel.slug}</code>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </section>
          ))}
          <p className="hint">{t('channels.dropHint')}</p>
        </>
      )}
      {(dialog?.kind === 'create' || dialog?.kind === 'edit') && <SchemeFormDialog scheme={dialog.kind === 'edit' ? dialog.scheme : null} onDone={reload} onClose={close} />}
      {dialog?.kind === 'channel' && <CreateChannelDialog scheme={dialog.scheme} onDone={reload} onClose={close} />}
      {dialog?.kind === 'delete' && <DeleteSchemeDialog scheme={dialog.scheme} onDone={reload} onClose={close} />}
    </>
  );
}

function SchemeFormDialog({ scheme, onDone, onClose }: { scheme: Scheme | null; onDone(): void; onClose(): void }) {
  const { t } = useI18n();
  const api = useApi();
  const { app } = useAppContext();
  const [name, setName] = useState(scheme?.name ?? '');
  const [callout, setCallout] = useState(scheme?.new_build_callout ?? true);
  const [retained, setRetained] = useState(String(scheme?.retained_builds ?? 0));
  const save = async () => {
    const fields = { name, new_build_callout: callout, retained_builds: Number(retained) };
    await (scheme ? api.schemes.update(scheme.id, fields) : api.schemes.create(app.id, fields));
    onDone();
  };
  return (
    <FormDialog title={scheme ? t('schemes.editTitle') : t('schemes.create')} submitLabel={scheme ? t('common.save') : t('common.create')} onSubmit={save} onClose={onClose}>
      <Field label={t('schemes.name')} hint={t('schemes.nameHint')}>
        {(props) => <input {...props} required value={name} onChange={(event) => setName(event.target.value)} />}
      </Field>
      <Checkbox label={t('schemes.callout')} hint={t('schemes.calloutHint')} checked={callout} onChange={setCallout} />
      <Field label={t('schemes.retained')} hint={t('schemes.retainedHint')}>
        {(props) => <input {...props} type="number" min={0} max={10000} required value={retained} onChange={(event) => setRetained(event.target.value)} />}
      </Field>
    </FormDialog>
  );
}

function CreateChannelDialog({ scheme, onDone, onClose }: { scheme: Scheme; onDone(): void; onClose(): void }) {
  const { t } = useI18n();
  const api = useApi();
  const [draft, setDraft] = useState(() => draftOf(null));
  const create = async () => {
    await api.channels.create(scheme.id, fieldsOf(draft, null));
    onDone();
  };
  return (
    <FormDialog title={t('channels.createIn', { scheme: scheme.name })} submitLabel={t('common.create')} onSubmit={create} onClose={onClose}>
      <ChannelFieldsEditor draft={draft} onChange={setDraft} original={null} />
    </FormDialog>
  );
}

function DeleteSchemeDialog({ scheme, onDone, onClose }: { scheme: Scheme; onDone(): void; onClose(): void }) {
  const { t } = useI18n();
  const api = useApi();
  return (
    <ConfirmDialog
      title={t('schemes.deleteTitle', { name: scheme.name })}
      message={t('schemes.deleteBody')}
      confirmLabel={t('common.delete')}
      onConfirm={async () => {
        await api.schemes.delete(scheme.id);
        onDone();
      }}
      onClose={onClose}
    />
  );
}
