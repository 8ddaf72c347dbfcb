/**
 * Per-channel webhooks (R13, beyond the spec): their settings, their latest deliveries, a test
 * delivery and redelivery. Sending is src-server/jobs/webhook-delivery.ts; the body sent is
 * documented in README.md ("Webhooks"). Every route needs `manage` on the channel's app, reads too:
 * webhook URLs and delivery bodies are for those who run the app.
 */
import type { FastifyRequest } from 'fastify';
import Type from 'typebox';
import { ConflictError } from '../domain/errors.ts';
import type { WebhookInput } from '../domain/webhooks.ts';
import { KEEP_DELIVERIES, MAX_WEBHOOK_URL_LENGTH } from '../domain/webhooks.ts';
import { access } from '../http/access.ts';
import { FORM_BODY } from '../http/validation.ts';
import { payloadText, testSubject, utcTimestamp } from '../jobs/webhook-payload.ts';
import { deliveryBody, webhookBody } from '../serializers/webhooks.ts';
import { DELIVERY_STATES, WEBHOOK_EVENTS } from '../storage/schema.ts';
import type { Api, RouteDeps } from './deps.ts';
import { OK } from './deps.ts';
import { errors, Id, IdParams, OkBody } from './schemas.ts';

const tags = ['Webhooks'];

const Timestamp = Type.String({ description: 'base: 2026-11-21T14:03:05.123+08:00; extended: 2026-11-21 14:03:05 +0800' });

const WebhookBody = Type.Object(
  {
    id: Type.Integer(),
    channel_id: Type.Integer(),
    url: Type.String(),
    events: Type.Array(Type.Enum(WEBHOOK_EVENTS)),
    enabled: Type.Boolean(),
    secret: Type.Optional(
      Type.String({ description: 'signs every delivery (`X-Hangar-Signature`); only in the answer to the creation, never again' }),
    ),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Webhook' },
);

const DeliveryBody = Type.Object(
  {
    id: Type.Integer({ description: 'also `delivery_id` in the body sent and the `X-Hangar-Delivery` header' }),
    webhook_id: Type.Integer(),
    event: Type.Enum(WEBHOOK_EVENTS),
    state: Type.Enum(DELIVERY_STATES, { description: 'pending until a 2xx answer (succeeded) or the last attempt (failed)' }),
    attempts: Type.Integer({ description: 'attempts made so far' }),
    last_status: Type.Union([Type.Integer(), Type.Null()], { description: 'HTTP status of the last answer; null: none (network error, time limit)' }),
    last_error: Type.Union([Type.String(), Type.Null()]),
    next_attempt_at: Type.Union([Timestamp, Type.Null()], { description: 'when a pending delivery is tried next' }),
    payload: Type.Unknown({ description: 'the JSON body sent (see the README, "Webhooks")' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'WebhookDelivery' },
);

const Url = Type.String({ minLength: 1, maxLength: MAX_WEBHOOK_URL_LENGTH, description: 'an absolute http or https URL that takes the POSTs' });
const Events = Type.Array(Type.Enum(WEBHOOK_EVENTS), {
  minItems: 1,
  maxItems: 16,
  description: '`upload` (a new release), `download` (a release downloaded), `changelog` (a release\'s changelog changed); a form may send them comma-separated',
});
const fields = {
  url: Url,
  events: Events,
  enabled: Type.Optional(Type.Boolean({ description: 'default true; a disabled webhook is sent nothing' })),
};
type Fields = { url?: string; events?: string[]; enabled?: boolean };

const DeliveryParams = Type.Object({ id: Id, delivery_id: Id });

/**
 * A form sends `events` repeated (an array already) or once, possibly comma-separated
 * (`upload,download`): made an array before validation. A JSON body must send an array.
 */
async function eventsAsList(request: FastifyRequest): Promise<void> {
  const body = request.body as Record<string, unknown> | undefined;
  // a JSON body may be any value: only an object can be a form's
  if (body !== null && typeof body === 'object' && FORM_BODY in body && typeof body.events === 'string') {
    body.events = body.events
      .split(',')
      .map((event) => event.trim())
      .filter((event) => event !== '');
  }
}

function toInput(body: Fields): Partial<WebhookInput> {
  return { url: body.url, events: body.events, enabled: body.enabled };
}

export function webhookRoutes(api: Api, { domain, urls }: RouteDeps): void {
  const manageChannel = { access: access.app('manage', 'channel') };
  const manageWebhook = { access: access.app('manage', 'webhook') };

  api.get('/api/channels/:id/webhooks', {
    config: manageChannel,
    schema: {
      tags,
      summary: "List a channel's webhooks",
      description: 'Secrets are never listed.',
      params: IdParams,
      response: { 200: Type.Array(WebhookBody), ...errors(401, 403, 404) },
    },
    handler: async (request) => domain.webhooks.listOfChannel(request.params.id).map((w) => webhookBody(w, request.shape)),
  });

  api.post('/api/channels/:id/webhooks', {
    config: manageChannel,
    preValidation: eventsAsList,
    schema: {
      tags,
      summary: 'Create a webhook',
      description: 'Answers with the webhook and its `secret`, which is shown this once: keep it to check `X-Hangar-Signature`.',
      params: IdParams,
      body: Type.Object(fields),
      response: { 201: WebhookBody, ...errors(401, 403, 404, 409) },
    },
    handler: async (request, reply) => {
      const { webhook, secret } = domain.webhooks.create(request.params.id, toInput(request.body) as WebhookInput);
      reply.code(201);
      return webhookBody(webhook, request.shape, secret);
    },
  });

  api.get('/api/webhooks/:id', {
    config: manageWebhook,
    schema: { tags, summary: 'Get a webhook', params: IdParams, response: { 200: WebhookBody, ...errors(401, 403, 404) } },
    handler: async (request) => webhookBody(domain.webhooks.find(request.params.id), request.shape),
  });

  for (const method of ['put', 'patch'] as const) {
    api[method]('/api/webhooks/:id', {
      config: manageWebhook,
      preValidation: eventsAsList,
      schema: {
        tags,
        summary: method === 'put' ? 'Update a webhook' : 'Change some fields of a webhook',
        description: 'The secret stays. Deliveries already queued are sent to the URL the webhook has when they are sent.',
        params: IdParams,
        body: method === 'put' ? Type.Object(fields) : Type.Partial(Type.Object(fields)),
        response: { 200: WebhookBody, ...errors(401, 403, 404, 409) },
      },
      handler: async (request) => webhookBody(domain.webhooks.update(request.params.id, toInput(request.body)), request.shape),
    });
  }

  api.delete('/api/webhooks/:id', {
    config: manageWebhook,
    schema: {
      tags,
      summary: 'Delete a webhook',
      description: 'With its deliveries; pending ones are not sent.',
      params: IdParams,
      response: { 200: OkBody, ...errors(401, 403, 404, 409) },
    },
    handler: async (request) => {
      domain.webhooks.delete(request.params.id);
      return OK;
    },
  });

  api.get('/api/webhooks/:id/deliveries', {
    config: manageWebhook,
    schema: {
      tags,
      summary: "A webhook's latest deliveries",
      description: `Latest first; the ${KEEP_DELIVERIES} latest are kept.`,
      params: IdParams,
      response: { 200: Type.Array(DeliveryBody), ...errors(401, 403, 404) },
    },
    handler: async (request) => domain.webhooks.deliveries(request.params.id).map((d) => deliveryBody(d, request.shape)),
  });

  /** 409 for a disabled webhook: it is sent nothing. */
  function enabledWebhook(id: number) {
    const webhook = domain.webhooks.find(id);
    if (!webhook.enabled) throw new ConflictError('Webhook is disabled');
    return webhook;
  }

  api.post('/api/webhooks/:id/deliveries/:delivery_id/redeliver', {
    config: manageWebhook,
    schema: {
      tags,
      summary: 'Send a delivery again',
      description: 'Queues a new delivery with the same body but its own `delivery_id` and `sent_at`; answers with it.',
      params: DeliveryParams,
      response: { 202: DeliveryBody, ...errors(401, 403, 404, 409) },
    },
    handler: async (request, reply) => {
      const webhook = enabledWebhook(request.params.id);
      const original = domain.webhooks.findDelivery(webhook.id, request.params.delivery_id);
      const payload = JSON.parse(original.payload) as Record<string, unknown>;
      const delivery = domain.webhooks.enqueue(webhook.id, original.event, (deliveryId, createdAt) =>
        JSON.stringify({ ...payload, delivery_id: deliveryId, sent_at: utcTimestamp(createdAt) }),
      );
      reply.code(202);
      return deliveryBody(delivery, request.shape);
    },
  });

  api.post('/api/webhooks/:id/test', {
    config: manageWebhook,
    schema: {
      tags,
      summary: 'Send a test delivery',
      description:
        "Queues an `upload` delivery of the channel's newest release (`release` null when it has none) marked `\"test\": true`; answers with it.",
      params: IdParams,
      response: { 202: DeliveryBody, ...errors(401, 403, 404, 409) },
    },
    handler: async (request, reply) => {
      const webhook = enabledWebhook(request.params.id);
      const subject = testSubject(domain, urls(), webhook.channelId);
      const delivery = domain.webhooks.enqueue(webhook.id, 'upload', (deliveryId, createdAt) => payloadText('upload', deliveryId, createdAt, subject, true));
      reply.code(202);
      return deliveryBody(delivery, request.shape);
    },
  });
}
