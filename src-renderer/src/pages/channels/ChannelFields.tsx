/**
 * A channel's settings as a form, for creating one (in a scheme) and for editing it (its settings
 * page). The visit password is never shown (the API keeps only its hash): editing leaves it as it is
 * unless a new one is typed or its removal is asked for.
 */
import type { ChannelFields } from '../../api/endpoints.ts';
import { DEVICE_TYPES, DOWNLOAD_FILENAME_TYPES, type Channel, type DeviceType, type DownloadFilenameType } from '../../api/types.ts';
import { EnumSelect } from '../../components/EnumSelect.tsx';
import { Checkbox, Field } from '../../components/Field.tsx';
import { deviceTypeName } from '../../format.ts';
import { useI18n } from '../../i18n/i18n.tsx';

export interface ChannelDraft {
  name: string;
  device_type: DeviceType;
  slug: string;
  bundle_id: string;
  git_url: string;
  password: string;
  removePassword: boolean;
  download_filename_type: DownloadFilenameType;
}

export function draftOf(channel: Channel | null, deviceType: DeviceType = 'ios'): ChannelDraft {
  return {
    name: channel?.name ?? '',
    device_type: channel?.device_type ?? deviceType,
    slug: channel?.slug ?? '',
    bundle_id: channel?.bundle_id ?? '',
    git_url: channel?.git_url ?? '',
    password: '',
    removePassword: false,
    download_filename_type: channel?.download_filename_type ?? 'version_datetime',
  };
}

/** What to send: on create, blanks are left to the server's defaults; on edit, only what changed. */
export function fieldsOf(draft: ChannelDraft, original: Channel | null): ChannelFields {
  const fields: ChannelFields = { name: draft.name.trim(), device_type: draft.device_type, download_filename_type: draft.download_filename_type };
  const slug = draft.slug.trim();
  if (original ? slug !== original.slug : slug) fields.slug = slug;
  const bundleId = draft.bundle_id.trim();
  if (original ? bundleId !== original.bundle_id : bundleId) fields.bundle_id = bundleId || '*';
  const gitUrl = draft.git_url.trim();
  if (original ? gitUrl !== (original.git_url ?? '') : gitUrl) fields.git_url = gitUrl || null;
  if (draft.removePassword) fields.password = '';
  else if (draft.password) fields.password = draft.password;
  return fields;
}

interface EditorProps {
  draft: ChannelDraft;
  onChange(draft: ChannelDraft): void;
  /** the channel being edited; null when creating one */
  original: Channel | null;
}

export function ChannelFieldsEditor({ draft, onChange, original }: EditorProps) {
  const { t } = useI18n();
  const set = <K extends keyof ChannelDraft>(key: K, value: ChannelDraft[K]) => onChange({ ...draft, [key]: value });
  return (
    <>
      <Field label={t('channels.name')}>
        {(props) => <input {...props} required value={draft.name} onChange={(event) => set('name', event.target.value)} />}
      </Field>
      <Field label={t('channels.deviceType')}>
        {(props) => <EnumSelect {...props} values={DEVICE_TYPES} value={draft.device_type} onChange={(type) => set('device_type', type)} labelOf={deviceTypeName} />}
      </Field>
      <Field label={t('channels.slug')} hint={t('channels.slugHint')}>
        {(props) => <input {...props} value={draft.slug} pattern="[A-Za-z0-9][A-Za-z0-9_\-]*" maxLength={64} onChange={(event) => set('slug', event.target.value)} />}
      </Field>
      <Field label={t('channels.bundleId')} hint={t('channels.bundleIdHint')}>
        {(props) => <input {...props} value={draft.bundle_id} placeholder="*" onChange={(event) => set('bundle_id', event.target.value)} />}
      </Field>
      <Field label={t('channels.password')} hint={original?.has_password ? t('channels.passwordKeep') : t('channels.passwordHint')}>
        {(props) => (
          <input
            {...props}
            type="password"
            autoComplete="new-password"
            value={draft.password}
            disabled={draft.removePassword}
            onChange={(event) => set('password', event.target.value)}
          />
        )}
      </Field>
      {original?.has_password && <Checkbox label={t('channels.removePassword')} checked={draft.removePassword} onChange={(checked) => set('removePassword', checked)} />}
      <Field label={t('channels.filenameType')}>
        {(props) => (
          <EnumSelect
            {...props}
            values={DOWNLOAD_FILENAME_TYPES}
            value={draft.download_filename_type}
            onChange={(type) => set('download_filename_type', type)}
            labelOf={(type) => t(`channels.filename.${type}`)}
          />
        )}
      </Field>
      <Field label={t('channels.gitUrl')}>
        {(props) => <input {...props} value={draft.git_url} placeholder="git@git.example.com:team/app.git" onChange={(event) => set('git_url', event.target.value)} />}
      </Field>
    </>
  );
}
