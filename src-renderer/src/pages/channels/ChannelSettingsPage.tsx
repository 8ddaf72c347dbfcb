/**
 * A channel's settings (name, platform, slug, bundle id, visit password, download file names, Git
 * URL) and its key: the `channel_key` CI uploads with, which can be replaced when it leaked (the old
 * one stops working at once).
 */
import { useState, type FormEvent } from 'react';
import { CopyValue } from '../../components/CopyButton.tsx';
import { ConfirmDialog } from '../../components/Dialog.tsx';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { useAction } from '../../hooks/useAction.ts';
import { useI18n } from '../../i18n/i18n.tsx';
import { useApi } from '../../session.tsx';
import { ChannelFieldsEditor, draftOf, fieldsOf } from './ChannelFields.tsx';
import { useChannelContext } from './ChannelLayout.tsx';

export function ChannelSettingsPage() {
  const { t } = useI18n();
  const api = useApi();
  const { channel, key, setChannel, setKey } = useChannelContext();
  const [draft, setDraft] = useState(() => draftOf(channel));
  const [saved, setSaved] = useState(false);
  const [regenerating, setRegenerating] = useState(false);
  const saving = useAction();

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    const ok = await saving.run(async () => {
      const updated = await api.channels.update(channel.id, fieldsOf(draft, channel));
      setChannel(updated);
      setDraft(draftOf(updated));
    });
    setSaved(ok);
  };

  return (
    <div className="columns">
      <form className="card" onSubmit={save} aria-labelledby="channel-settings-title">
        <h2 id="channel-settings-title">{t('channels.settings')}</h2>
        <ChannelFieldsEditor draft={draft} onChange={setDraft} original={channel} />
        <ErrorNotice error={saving.error} />
        {saved && (
          <p className="notice success" role="status">
            {t('common.saved')}
          </p>
        )}
        <button type="submit" className="primary" disabled={saving.busy}>
          {t('common.save')}
        </button>
      </form>
      <section className="card" aria-labelledby="channel-key-title">
        <h2 id="channel-key-title">{t('channels.key')}</h2>
        <p className="hint">{t('channels.keyHint')}</p>
        <CopyValue value={key} label={t('channels.copyKey')} />
        <p>
          <button type="button" className="danger" onClick={() => setRegenerating(true)}>
            {t('channels.regenerate')}
          </button>
        </p>
      </section>
      {regenerating && (
        <ConfirmDialog
          title={t('channels.regenerateTitle')}
          message={t('channels.regenerateBody')}
          confirmLabel={t('channels.regenerate')}
          onConfirm={async () => setKey(await api.channels.regenerateKey(channel.id))}
          onClose={() => setRegenerating(false)}
        />
      )}
    </div>
  );
}
