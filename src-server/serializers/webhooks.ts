/** Webhook and webhook delivery bodies (R13, beyond the spec). The secret only in the answer to a create. */
import type { Webhook, WebhookDelivery } from '../domain/context.ts';
import { eventsOf } from '../domain/webhooks.ts';
import type { Shape } from './shapes.ts';

export function webhookBody(webhook: Webhook, shape: Shape, secret?: string) {
  return {
    id: webhook.id,
    channel_id: webhook.channelId,
    url: webhook.url,
    events: eventsOf(webhook),
    enabled: webhook.enabled,
    ...(secret !== undefined && { secret }),
    created_at: shape.timestamp(webhook.createdAt),
    updated_at: shape.timestamp(webhook.updatedAt),
  };
}

export function deliveryBody(delivery: WebhookDelivery, shape: Shape) {
  let payload: unknown = null;
  try {
    payload = JSON.parse(delivery.payload);
  } catch {
    // not written yet (a delivery is created and given its body in one transaction, so never seen)
  }
  return {
    id: delivery.id,
    webhook_id: delivery.webhookId,
    event: delivery.event,
    state: delivery.state,
    attempts: delivery.attempts,
    last_status: delivery.lastStatus,
    last_error: delivery.lastError,
    next_attempt_at: shape.timestamp(delivery.state === 'pending' ? delivery.nextAttemptAt : null),
    payload,
    created_at: shape.timestamp(delivery.createdAt),
    updated_at: shape.timestamp(delivery.updatedAt),
  };
}
