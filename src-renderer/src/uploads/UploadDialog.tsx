/**
 * Where dropped or picked builds go: a channel (the one whose page is open, by default) or a new app
 * per build, which the server makes from what it reads in the build. An optional changelog goes with
 * every build of the batch.
 */
import { useState } from 'react';
import { useMatch } from 'react-router';
import { ApiError } from '../api/errors.ts';
import { Field, Radio } from '../components/Field.tsx';
import { FormDialog } from '../components/Dialog.tsx';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { Loading } from '../components/Status.tsx';
import { deviceTypeName } from '../format.ts';
import { useLoad } from '../hooks/useLoad.ts';
import { useI18n } from '../i18n/i18n.tsx';
import { useApi } from '../session.tsx';
import { useUploads } from './uploads.tsx';

export function UploadDialog() {
  const { choosing, stopChoosing } = useUploads();
  if (!choosing) return null;
  return <ChooseTarget files={choosing} onClose={stopChoosing} />;
}

function ChooseTarget({ files, onClose }: { files: File[]; onClose(): void }) {
  const i18n = useI18n();
  const { t } = i18n;
  const api = useApi();
  const { add } = useUploads();
  const openChannel = useMatch({ path: '/channels/:channelId', end: false })?.params.channelId;
  const apps = useLoad(() => api.apps.list('active'), []);
  const [channelId, setChannelId] = useState<string>(openChannel ?? '');
  const [target, setTarget] = useState<'channel' | 'new-app'>(openChannel ? 'channel' : 'new-app');
  const [changelog, setChangelog] = useState('');

  const channels = (apps.data ?? []).flatMap((app) =>
    app.schemes.flatMap((scheme) => scheme.channels.map((channel) => ({ app, scheme, channel, label: `${app.name} › ${scheme.name} › ${channel.name}` }))),
  );
  const chosen = channels.find((c) => String(c.channel.id) === channelId);

  const submit = async () => {
    if (target === 'new-app') return add(files, { kind: 'new-app' }, changelog);
    if (!chosen) throw new ApiError(t('upload.chooseChannelFirst'), 422);
    add(files, { kind: 'channel', channelId: chosen.channel.id, label: chosen.label }, changelog);
  };

  return (
    <FormDialog title={i18n.plural('upload.dialogTitle', files.length)} submitLabel={t('upload.start')} onSubmit={submit} onClose={onClose}>
      <ul className="file-list">
        {files.map((file, index) => (
          <li key={`${index}:${file.name}`}>
            {file.name} <span className="muted">{i18n.bytes(file.size)}</span>
          </li>
        ))}
      </ul>
      <fieldset className="choices">
        <legend>{t('upload.target')}</legend>
        <Radio name="target" label={t('upload.newApp')} hint={t('upload.newAppHint')} checked={target === 'new-app'} onChange={() => setTarget('new-app')} />
        <Radio name="target" label={t('upload.existingChannel')} checked={target === 'channel'} onChange={() => setTarget('channel')} disabled={channels.length === 0} />
        {apps.loading && !apps.data && <Loading />}
        <ErrorNotice error={apps.error} onRetry={apps.reload} />
        {channels.length > 0 && (
          <Field label={t('upload.channel')}>
            {(props) => (
              <select
                {...props}
                required={target === 'channel'}
                value={channelId}
                onChange={(event) => {
                  setChannelId(event.target.value);
                  setTarget('channel');
                }}
              >
                <option value="">{t('upload.pickChannel')}</option>
                {channels.map(({ channel, label }) => (
                  <option key={channel.id} value={channel.id}>
                    {label} ({deviceTypeName(channel.device_type)})
                  </option>
                ))}
              </select>
            )}
          </Field>
        )}
      </fieldset>
      <Field label={t('upload.changelog')} hint={t('upload.changelogHint')}>
        {(props) => <textarea {...props} rows={3} value={changelog} onChange={(event) => setChangelog(event.target.value)} />}
      </Field>
    </FormDialog>
  );
}
