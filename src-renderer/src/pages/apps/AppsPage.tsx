/** Every app the user may see (active, archived or all), and making a new one. */
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import type { AppScope } from '../../api/endpoints.ts';
import { FormDialog } from '../../components/Dialog.tsx';
import { EnumSelect } from '../../components/EnumSelect.tsx';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { Field } from '../../components/Field.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { EmptyState, Loading } from '../../components/Status.tsx';
import { deviceTypeName } from '../../format.ts';
import { useLoad } from '../../hooks/useLoad.ts';
import { useI18n } from '../../i18n/i18n.tsx';
import { useApi } from '../../session.tsx';

const SCOPES: AppScope[] = ['active', 'archived', 'all'];

export function AppsPage() {
  const i18n = useI18n();
  const { t } = i18n;
  const api = useApi();
  const [params, setParams] = useSearchParams();
  const scope = (SCOPES as string[]).includes(params.get('scope') ?? '') ? (params.get('scope') as AppScope) : 'active';
  const apps = useLoad(() => api.apps.list(scope), [api, scope]);
  const [creating, setCreating] = useState(false);

  const createButton = (
    <button type="button" className="primary" onClick={() => setCreating(true)}>
      {t('apps.create')}
    </button>
  );
  return (
    <>
      <PageHeader title={t('apps.title')} actions={createButton} />
      <div className="toolbar">
        <label className="inline-field">
          {t('apps.show')}{' '}
          <EnumSelect values={SCOPES} value={scope} onChange={(s) => setParams({ scope: s })} labelOf={(s) => t(`apps.scope.${s}`)} />
        </label>
      </div>
      {apps.loading && !apps.data && <Loading />}
      <ErrorNotice error={apps.error} onRetry={apps.reload} />
      {apps.data?.length === 0 && (
        <EmptyState title={scope === 'archived' ? t('apps.noArchived') : t('apps.none')} action={scope !== 'archived' ? createButton : undefined}>
          {scope !== 'archived' && t('apps.noneHint')}
        </EmptyState>
      )}
      {apps.data && apps.data.length > 0 && (
        <ul className="card-grid">
          {apps.data.map((app) => {
            const channels = app.schemes.flatMap((s) => s.channels);
            return (
              <li key={app.id} className="card app-card">
                <h2>
                  <Link to={`/apps/${app.id}`}>{app.name}</Link>
                </h2>
                {app.archived && <span className="badge">{t('apps.archived')}</span>}
                <p className="muted">
                  {i18n.plural('apps.schemeCount', app.schemes.length)} · {i18n.plural('apps.channelCount', channels.length)}
                </p>
                <p className="chips">
                  {[...new Set(channels.map((c) => c.device_type))].map((type) => (
                    <span key={type} className="chip">
                      {deviceTypeName(type)}
                    </span>
                  ))}
                </p>
              </li>
            );
          })}
        </ul>
      )}
      {creating && <CreateAppDialog onClose={() => setCreating(false)} />}
    </>
  );
}

function CreateAppDialog({ onClose }: { onClose(): void }) {
  const { t } = useI18n();
  const api = useApi();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const create = async () => {
    const app = await api.apps.create(name);
    navigate(`/apps/${app.id}`);
  };
  return (
    <FormDialog title={t('apps.create')} submitLabel={t('common.create')} onSubmit={create} onClose={onClose}>
      <Field label={t('apps.name')} hint={t('apps.nameHint')}>
        {(props) => <input {...props} required value={name} onChange={(event) => setName(event.target.value)} />}
      </Field>
    </FormDialog>
  );
}
