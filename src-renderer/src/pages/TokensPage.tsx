/**
 * The signed-in user's personal access tokens, for CI and scripts: making one (its value is shown
 * this once, with a copy button; the server keeps only a hash), when each was last used, revoking.
 */
import { useState } from 'react';
import type { Token } from '../api/types.ts';
import { ConfirmDialog, FormDialog } from '../components/Dialog.tsx';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { Field } from '../components/Field.tsx';
import { PageHeader } from '../components/PageHeader.tsx';
import { ShownOnceDialog } from '../components/ShownOnceDialog.tsx';
import { EmptyState, Loading } from '../components/Status.tsx';
import { TableHead } from '../components/TableHead.tsx';
import { Time } from '../components/Time.tsx';
import { useLoad } from '../hooks/useLoad.ts';
import { useI18n } from '../i18n/i18n.tsx';
import { useApi } from '../session.tsx';

const DAY_MS = 24 * 3600 * 1000;

export function TokensPage() {
  const { t } = useI18n();
  const api = useApi();
  const tokens = useLoad(() => api.tokens.list(), [api]);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<Token | null>(null);
  const [revoking, setRevoking] = useState<Token | null>(null);

  const createButton = (
    <button type="button" className="primary" onClick={() => setCreating(true)}>
      {t('tokens.create')}
    </button>
  );
  return (
    <>
      <PageHeader title={t('tokens.title')} actions={createButton}>
        <p className="hint">{t('tokens.intro')}</p>
      </PageHeader>
      {tokens.loading && !tokens.data && <Loading />}
      <ErrorNotice error={tokens.error} onRetry={tokens.reload} />
      {tokens.data?.length === 0 && (
        <EmptyState title={t('tokens.none')} action={createButton}>
          {t('tokens.noneHint')}
        </EmptyState>
      )}
      {tokens.data && tokens.data.length > 0 && (
        <table className="table">
          <TableHead columns={[t('tokens.name'), t('tokens.prefix'), t('tokens.lastUsed'), t('tokens.expires'), t('tokens.created')]} actions />
          <tbody>
            {tokens.data.map((token) => (
              <tr key={token.id} data-token={token.name}>
                <th scope="row">{token.name}</th>
                <td>
                  <code>{token.prefix}…</code>
                </td>
                <td>{token.last_used_at ? <Time value={token.last_used_at} relative /> : t('tokens.neverUsed')}</td>
                <td>{token.expires_at ? <Time value={token.expires_at} /> : t('tokens.never')}</td>
                <td>
                  <Time value={token.created_at} />
                </td>
                <td>
                  <button type="button" className="danger" onClick={() => setRevoking(token)}>
                    {t('tokens.revoke')}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {creating && (
        <CreateTokenDialog
          onCreated={(token) => {
            setCreated(token);
            tokens.reload();
          }}
          onClose={() => setCreating(false)}
        />
      )}
      {created?.token && (
        <ShownOnceDialog
          title={t('tokens.createdTitle', { name: created.name })}
          message={t('tokens.createdBody')}
          value={created.token}
          copyLabel={t('tokens.copy')}
          onClose={() => setCreated(null)}
        />
      )}
      {revoking && (
        <ConfirmDialog
          title={t('tokens.revokeTitle', { name: revoking.name })}
          message={t('tokens.revokeBody')}
          confirmLabel={t('tokens.revoke')}
          onConfirm={async () => {
            await api.tokens.revoke(revoking.id);
            tokens.reload();
          }}
          onClose={() => setRevoking(null)}
        />
      )}
    </>
  );
}

function CreateTokenDialog({ onCreated, onClose }: { onCreated(token: Token): void; onClose(): void }) {
  const { t } = useI18n();
  const api = useApi();
  const [name, setName] = useState('');
  const [days, setDays] = useState('');
  const create = async () => {
    const expiresAt = days ? new Date(Date.now() + Number(days) * DAY_MS).toISOString() : null;
    onCreated(await api.tokens.create(name.trim(), expiresAt));
  };
  return (
    <FormDialog title={t('tokens.create')} submitLabel={t('common.create')} onSubmit={create} onClose={onClose}>
      <Field label={t('tokens.name')} hint={t('tokens.nameHint')}>
        {(props) => <input {...props} required value={name} onChange={(event) => setName(event.target.value)} />}
      </Field>
      <Field label={t('tokens.expiresIn')} hint={t('tokens.expiresInHint')}>
        {(props) => <input {...props} type="number" min={1} max={3650} value={days} onChange={(event) => setDays(event.target.value)} />}
      </Field>
    </FormDialog>
  );
}
