/**
 * A channel's webhooks: the URLs told about uploads, downloads and changelog changes, each with its
 * latest deliveries (state, HTTP status, error) to see whether the receiver got them; a test
 * delivery, redelivery, turning one off. A webhook's signing secret is shown once, when it is made.
 */
import { useEffect, useState } from 'react';
import { WEBHOOK_EVENTS, type Webhook, type WebhookEvent } from '../../api/types.ts';
import { ConfirmDialog, FormDialog } from '../../components/Dialog.tsx';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { Checkbox, Field } from '../../components/Field.tsx';
import { ShownOnceDialog } from '../../components/ShownOnceDialog.tsx';
import { EmptyState, Loading } from '../../components/Status.tsx';
import { TableHead } from '../../components/TableHead.tsx';
import { Time } from '../../components/Time.tsx';
import { useAction } from '../../hooks/useAction.ts';
import { useLoad } from '../../hooks/useLoad.ts';
import { useI18n } from '../../i18n/i18n.tsx';
import { useApi } from '../../session.tsx';
import { useChannelContext } from './ChannelLayout.tsx';

const PENDING_REFRESH_MS = 2000;

export function WebhooksPage() {
  const { t } = useI18n();
  const api = useApi();
  const { channel } = useChannelContext();
  const webhooks = useLoad(() => api.webhooks.list(channel.id), [api, channel.id]);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<Webhook | null>(null);

  const addButton = (
    <button type="button" className="primary" onClick={() => setCreating(true)}>
      {t('webhooks.add')}
    </button>
  );
  return (
    <>
      {webhooks.loading && !webhooks.data && <Loading />}
      <ErrorNotice error={webhooks.error} onRetry={webhooks.reload} />
      {webhooks.data?.length === 0 && (
        <EmptyState title={t('webhooks.none')} action={addButton}>
          {t('webhooks.noneHint')}
        </EmptyState>
      )}
      {webhooks.data && webhooks.data.length > 0 && (
        <>
          <div className="toolbar">{addButton}</div>
          {webhooks.data.map((webhook) => (
            <WebhookCard key={webhook.id} webhook={webhook} onChanged={webhooks.reload} />
          ))}
        </>
      )}
      {creating && (
        <CreateWebhookDialog
          onCreated={(webhook) => {
            setCreated(webhook);
            webhooks.reload();
          }}
          onClose={() => setCreating(false)}
        />
      )}
      {created?.secret && (
        <ShownOnceDialog title={t('webhooks.secretTitle')} message={t('webhooks.secretBody')} value={created.secret} onClose={() => setCreated(null)} />
      )}
    </>
  );
}

function WebhookCard({ webhook, onChanged }: { webhook: Webhook; onChanged(): void }) {
  const { t } = useI18n();
  const api = useApi();
  const action = useAction();
  const [deleting, setDeleting] = useState(false);
  const [deliveriesVersion, setDeliveriesVersion] = useState(0); // bumped to load them again

  const run = (work: () => Promise<unknown>) =>
    action.run(async () => {
      await work();
      onChanged();
      setDeliveriesVersion((n) => n + 1);
    });

  return (
    <section className="card webhook" aria-label={webhook.url}>
      <header className="card-header">
        <h2>
          <code>{webhook.url}</code>
        </h2>
        <p className="chips">
          {webhook.events.map((event) => (
            <span key={event} className="chip">
              {t(`webhooks.event.${event}`)}
            </span>
          ))}
          {!webhook.enabled && <span className="badge">{t('webhooks.disabled')}</span>}
        </p>
        <div className="actions">
          <button type="button" onClick={() => run(() => api.webhooks.update(webhook.id, { enabled: !webhook.enabled }))} disabled={action.busy}>
            {webhook.enabled ? t('webhooks.disable') : t('webhooks.enable')}
          </button>
          <button type="button" onClick={() => run(() => api.webhooks.test(webhook.id))} disabled={action.busy || !webhook.enabled}>
            {t('webhooks.test')}
          </button>
          <button type="button" className="danger" onClick={() => setDeleting(true)}>
            {t('common.delete')}
          </button>
        </div>
      </header>
      <ErrorNotice error={action.error} />
      <details>
        <summary>{t('webhooks.deliveries')}</summary>
        <Deliveries webhook={webhook} generation={deliveriesVersion} onRedeliver={(id) => run(() => api.webhooks.redeliver(webhook.id, id))} />
      </details>
      {deleting && (
        <ConfirmDialog
          title={t('webhooks.deleteTitle')}
          message={t('webhooks.deleteBody', { url: webhook.url })}
          confirmLabel={t('common.delete')}
          onConfirm={async () => {
            await api.webhooks.delete(webhook.id);
            onChanged();
          }}
          onClose={() => setDeleting(false)}
        />
      )}
    </section>
  );
}

function Deliveries({ webhook, generation, onRedeliver }: { webhook: Webhook; generation: number; onRedeliver(id: number): void }) {
  const i18n = useI18n();
  const { t } = i18n;
  const api = useApi();
  const deliveries = useLoad(() => api.webhooks.deliveries(webhook.id), [api, webhook.id, generation]);
  // Deliveries still being tried are looked at again until they succeed or fail.
  const pending = deliveries.data?.some((d) => d.state === 'pending') ?? false;
  useEffect(() => {
    if (!pending || deliveries.loading) return;
    const timer = setTimeout(deliveries.reload, PENDING_REFRESH_MS);
    return () => clearTimeout(timer);
  }, [pending, deliveries.loading, deliveries.reload]);
  if (!deliveries.data) return deliveries.error ? <ErrorNotice error={deliveries.error} onRetry={deliveries.reload} /> : <Loading />;
  if (deliveries.data.length === 0) return <p className="hint">{t('webhooks.noDeliveries')}</p>;
  return (
    <table className="table compact">
      <TableHead columns={[t('webhooks.when'), t('webhooks.eventLabel'), t('webhooks.state'), t('webhooks.response')]} actions />
      <tbody>
        {deliveries.data.map((d) => (
          <tr key={d.id}>
            <td>
              <Time value={d.created_at} />
            </td>
            <td>{t(`webhooks.event.${d.event}`)}</td>
            <td>
              <span className={`state ${d.state}`}>{t(`webhooks.state.${d.state}`)}</span> <span className="muted">{i18n.plural('webhooks.attempts', d.attempts)}</span>
            </td>
            <td>{d.last_status ?? d.last_error ?? '—'}</td>
            <td>
              <button type="button" onClick={() => onRedeliver(d.id)} disabled={!webhook.enabled}>
                {t('webhooks.redeliver')}
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function CreateWebhookDialog({ onCreated, onClose }: { onCreated(webhook: Webhook): void; onClose(): void }) {
  const { t } = useI18n();
  const api = useApi();
  const { channel } = useChannelContext();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<WebhookEvent[]>(['upload']);
  const toggle = (event: WebhookEvent, on: boolean) => setEvents((current) => (on ? [...current, event] : current.filter((e) => e !== event)));
  return (
    <FormDialog
      title={t('webhooks.add')}
      submitLabel={t('common.create')}
      onSubmit={async () => onCreated(await api.webhooks.create(channel.id, { url, events }))}
      onClose={onClose}
    >
      <Field label={t('webhooks.url')} hint={t('webhooks.urlHint')}>
        {(props) => <input {...props} type="url" required value={url} onChange={(event) => setUrl(event.target.value)} />}
      </Field>
      <fieldset className="choices">
        <legend>{t('webhooks.events')}</legend>
        {WEBHOOK_EVENTS.map((event) => (
          <Checkbox key={event} label={t(`webhooks.event.${event}`)} checked={events.includes(event)} onChange={(on) => toggle(event, on)} />
        ))}
      </fieldset>
    </FormDialog>
  );
}
