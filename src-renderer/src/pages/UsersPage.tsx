/**
 * The people who use this Hangar (global admins only): creating accounts, their role, locking and
 * unlocking (a locked user cannot sign in and their tokens are refused), deleting. The server keeps
 * an admin from locking or deleting themselves or the last admin, and says so.
 */
import { useState } from 'react';
import { LOCALES, type Locale, type Role, type User } from '../api/types.ts';
import { ConfirmDialog, FormDialog } from '../components/Dialog.tsx';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { Field } from '../components/Field.tsx';
import { PageHeader } from '../components/PageHeader.tsx';
import { EnumSelect, RoleSelect } from '../components/EnumSelect.tsx';
import { EmptyState, Loading } from '../components/Status.tsx';
import { TableHead } from '../components/TableHead.tsx';
import { useAction } from '../hooks/useAction.ts';
import { useLoad } from '../hooks/useLoad.ts';
import { useI18n } from '../i18n/i18n.tsx';
import { isAdmin, useApi, useSession } from '../session.tsx';

export function UsersPage() {
  const { t } = useI18n();
  const { user: me } = useSession();
  if (!isAdmin(me)) {
    return (
      <>
        <PageHeader title={t('users.title')} />
        <EmptyState title={t('users.adminsOnly')}>{t('users.adminsOnlyHint')}</EmptyState>
      </>
    );
  }
  return <UserList me={me} />;
}

function UserList({ me }: { me: User }) {
  const { t } = useI18n();
  const api = useApi();
  const users = useLoad(() => api.users.list(), [api]);
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<User | null>(null);
  const action = useAction();

  const change = (work: () => Promise<User>) =>
    action.run(async () => {
      const changed = await work();
      users.setData((current) => current?.map((u) => (u.id === changed.id ? changed : u)));
    });

  return (
    <>
      <PageHeader
        title={t('users.title')}
        actions={
          <button type="button" className="primary" onClick={() => setCreating(true)}>
            {t('users.create')}
          </button>
        }
      />
      {users.loading && !users.data && <Loading />}
      <ErrorNotice error={users.error} onRetry={users.reload} />
      <ErrorNotice error={action.error} />
      {users.data && (
        <table className="table">
          <TableHead columns={[t('users.username'), t('users.email'), t('users.role'), t('users.status')]} actions />
          <tbody>
            {users.data.map((user) => {
              const self = user.id === me.id;
              return (
                <tr key={user.id} data-user={user.username}>
                  <th scope="row">
                    {user.username} {self && <span className="badge">{t('users.you')}</span>}
                  </th>
                  <td>{user.email}</td>
                  <td>
                    <RoleSelect
                      aria-label={t('users.roleOf', { name: user.username })}
                      value={user.role}
                      disabled={self || action.busy}
                      onChange={(role) => change(() => api.users.update(user.id, { role }))}
                    />
                  </td>
                  <td>{user.locked ? <span className="badge warning">{t('users.locked')}</span> : t('users.active')}</td>
                  <td className="actions">
                    {!self && (
                      <>
                        <button type="button" disabled={action.busy} onClick={() => change(() => (user.locked ? api.users.unlock(user.id) : api.users.lock(user.id)))}>
                          {user.locked ? t('users.unlock') : t('users.lock')}
                        </button>
                        <button type="button" className="danger" onClick={() => setDeleting(user)}>
                          {t('common.delete')}
                        </button>
                      </>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {creating && <CreateUserDialog onCreated={users.reload} onClose={() => setCreating(false)} />}
      {deleting && (
        <ConfirmDialog
          title={t('users.deleteTitle', { name: deleting.username })}
          message={t('users.deleteBody')}
          confirmLabel={t('common.delete')}
          onConfirm={async () => {
            await api.users.delete(deleting.id);
            users.reload();
          }}
          onClose={() => setDeleting(null)}
        />
      )}
    </>
  );
}

function CreateUserDialog({ onCreated, onClose }: { onCreated(): void; onClose(): void }) {
  const { t, locale: myLocale } = useI18n();
  const api = useApi();
  const [username, setUsername] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [locale, setLocale] = useState<Locale>(myLocale);
  const create = async () => {
    await api.users.create({ username: username.trim(), email: email.trim(), password, role, locale });
    onCreated();
  };
  return (
    <FormDialog title={t('users.create')} submitLabel={t('common.create')} onSubmit={create} onClose={onClose}>
      <Field label={t('users.username')} hint={t('users.usernameHint')}>
        {(props) => <input {...props} required autoComplete="off" value={username} onChange={(event) => setUsername(event.target.value)} />}
      </Field>
      <Field label={t('users.email')}>{(props) => <input {...props} type="email" required value={email} onChange={(event) => setEmail(event.target.value)} />}</Field>
      <Field label={t('users.password')} hint={t('users.passwordHint')}>
        {(props) => (
          <input {...props} type="password" required minLength={8} autoComplete="new-password" value={password} onChange={(event) => setPassword(event.target.value)} />
        )}
      </Field>
      <Field label={t('users.role')} hint={t('users.roleHint')}>
        {(props) => <RoleSelect {...props} value={role} onChange={setRole} />}
      </Field>
      <Field label={t('preferences.language')}>
        {(props) => <EnumSelect {...props} values={LOCALES} value={locale} onChange={setLocale} labelOf={(l) => t(`locale.${l}`)} />}
      </Field>
    </FormDialog>
  );
}
