/**
 * An app's pages (schemes and channels, collaborators, debug files) under one header: its name, and
 * renaming, archiving and deleting it. The app is loaded here once and handed to the section shown.
 */
import { useState } from 'react';
import { Outlet, useNavigate, useOutletContext, useParams } from 'react-router';
import type { App } from '../../api/types.ts';
import { ConfirmDialog, FormDialog } from '../../components/Dialog.tsx';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { Field } from '../../components/Field.tsx';
import { PageHeader, SectionNav } from '../../components/PageHeader.tsx';
import { Loading } from '../../components/Status.tsx';
import { useAction } from '../../hooks/useAction.ts';
import { useLoad } from '../../hooks/useLoad.ts';
import { useI18n } from '../../i18n/i18n.tsx';
import { useApi } from '../../session.tsx';

export interface AppContext {
  app: App;
  /** after a change made on the page */
  setApp(app: App): void;
  reload(): void;
}

export function useAppContext(): AppContext {
  return useOutletContext<AppContext>();
}

export function AppLayout() {
  const { t } = useI18n();
  const api = useApi();
  const appId = Number(useParams().appId);
  const loaded = useLoad(() => api.apps.get(appId), [api, appId]);
  const [dialog, setDialog] = useState<'rename' | 'delete' | null>(null);
  const archiving = useAction();
  const navigate = useNavigate();

  const app = loaded.data;
  if (!app) return loaded.error ? <ErrorNotice error={loaded.error} onRetry={loaded.reload} /> : <Loading />;

  const setApp = (next: App) => loaded.setData(() => next);
  const base = `/apps/${app.id}`;
  const actions = (
    <>
      <button type="button" onClick={() => setDialog('rename')} disabled={app.archived}>
        {t('common.rename')}
      </button>
      <button type="button" onClick={() => archiving.run(async () => setApp(await api.apps.update(app.id, { archived: !app.archived })))} disabled={archiving.busy}>
        {app.archived ? t('apps.unarchive') : t('apps.archive')}
      </button>
      <button type="button" className="danger" onClick={() => setDialog('delete')}>
        {t('common.delete')}
      </button>
    </>
  );

  return (
    <>
      <PageHeader title={app.name} crumbs={[{ label: t('apps.title'), to: '/apps' }]} actions={actions}>
        {app.archived && <p className="notice info">{t('apps.archivedNotice')}</p>}
      </PageHeader>
      <ErrorNotice error={archiving.error} />
      <SectionNav
        label={t('apps.sections')}
        links={[
          { to: base, label: t('apps.overview') },
          { to: `${base}/collaborators`, label: t('collaborators.title') },
          { to: `${base}/debug-files`, label: t('debugFiles.title') },
        ]}
      />
      <Outlet context={{ app, setApp, reload: loaded.reload } satisfies AppContext} />
      {dialog === 'rename' && <RenameAppDialog app={app} onRenamed={setApp} onClose={() => setDialog(null)} />}
      {dialog === 'delete' && (
        <ConfirmDialog
          title={t('apps.deleteTitle', { name: app.name })}
          message={t('apps.deleteBody')}
          confirmLabel={t('common.delete')}
          onConfirm={async () => {
            await api.apps.delete(app.id);
            navigate('/apps');
          }}
          onClose={() => setDialog(null)}
        />
      )}
    </>
  );
}

function RenameAppDialog({ app, onRenamed, onClose }: { app: App; onRenamed(app: App): void; onClose(): void }) {
  const { t } = useI18n();
  const api = useApi();
  const [name, setName] = useState(app.name);
  return (
    <FormDialog title={t('apps.renameTitle')} submitLabel={t('common.save')} onSubmit={async () => onRenamed(await api.apps.update(app.id, { name }))} onClose={onClose}>
      <Field label={t('apps.name')}>{(props) => <input {...props} required value={name} onChange={(event) => setName(event.target.value)} />}</Field>
    </FormDialog>
  );
}
