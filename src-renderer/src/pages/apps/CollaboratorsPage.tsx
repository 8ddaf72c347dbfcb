/**
 * Who works on an app, with which role: adding a user by their email address, changing roles,
 * removing. The owner (the app's first admin) stays. Finding a user by email needs a global admin
 * (GET /api/users/search); others see the server's refusal.
 */
import { useState } from 'react';
import { ApiError } from '../../api/errors.ts';
import type { Collaborator, Role } from '../../api/types.ts';
import { ConfirmDialog, FormDialog } from '../../components/Dialog.tsx';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { Field } from '../../components/Field.tsx';
import { RoleSelect } from '../../components/EnumSelect.tsx';
import { EmptyState } from '../../components/Status.tsx';
import { TableHead } from '../../components/TableHead.tsx';
import { useAction } from '../../hooks/useAction.ts';
import { useI18n } from '../../i18n/i18n.tsx';
import { useApi } from '../../session.tsx';
import { useAppContext } from './AppLayout.tsx';

export function CollaboratorsPage() {
  const { t } = useI18n();
  const api = useApi();
  const { app, reload } = useAppContext();
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<Collaborator | null>(null);
  const changing = useAction();

  if (!app.collaborators) return <EmptyState title={t('collaborators.hidden')}>{t('collaborators.hiddenHint')}</EmptyState>;

  const changeRole = (collaborator: Collaborator, role: Role) =>
    changing.run(async () => {
      await api.collaborators.update(app.id, collaborator.id, role);
      reload();
    });

  return (
    <section aria-labelledby="collaborators-title">
      <div className="toolbar">
        <h2 id="collaborators-title">{t('collaborators.title')}</h2>
        <button type="button" className="primary" onClick={() => setAdding(true)}>
          {t('collaborators.add')}
        </button>
      </div>
      <ErrorNotice error={changing.error} />
      <table className="table">
        <TableHead columns={[t('users.username'), t('users.email'), t('users.role')]} actions />
        <tbody>
          {app.collaborators.map((collaborator) => (
            <tr key={collaborator.id}>
              <th scope="row">
                {collaborator.username} {collaborator.owner && <span className="badge">{t('collaborators.owner')}</span>}
              </th>
              <td>{collaborator.email}</td>
              <td>
                <RoleSelect
                  aria-label={t('collaborators.roleOf', { name: collaborator.username })}
                  value={collaborator.role}
                  disabled={collaborator.owner || changing.busy}
                  onChange={(role) => changeRole(collaborator, role)}
                />
              </td>
              <td>
                {!collaborator.owner && (
                  <button type="button" className="danger" onClick={() => setRemoving(collaborator)}>
                    {t('collaborators.remove')}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {adding && <AddCollaboratorDialog onClose={() => setAdding(false)} />}
      {removing && (
        <ConfirmDialog
          title={t('collaborators.removeTitle', { name: removing.username })}
          message={t('collaborators.removeBody', { app: app.name })}
          confirmLabel={t('collaborators.remove')}
          onConfirm={async () => {
            await api.collaborators.remove(app.id, removing.id);
            reload();
          }}
          onClose={() => setRemoving(null)}
        />
      )}
    </section>
  );
}

function AddCollaboratorDialog({ onClose }: { onClose(): void }) {
  const { t } = useI18n();
  const api = useApi();
  const { app, reload } = useAppContext();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const add = async () => {
    const [user] = await api.users.searchByEmail(email.trim());
    if (!user) throw new ApiError(t('collaborators.noSuchUser', { email: email.trim() }), 404);
    await api.collaborators.add(app.id, user.id, role);
    reload();
  };
  return (
    <FormDialog title={t('collaborators.addTitle', { app: app.name })} submitLabel={t('collaborators.add')} onSubmit={add} onClose={onClose}>
      <Field label={t('users.email')} hint={t('collaborators.emailHint')}>
        {(props) => <input {...props} type="email" required value={email} onChange={(event) => setEmail(event.target.value)} />}
      </Field>
      <Field label={t('users.role')} hint={t('collaborators.roleHint')}>
        {(props) => <RoleSelect {...props} value={role} onChange={setRole} />}
      </Field>
    </FormDialog>
  );
}
