/**
 * Per-channel webhooks (R13): a JSON POST to a URL for the events a channel's webhook subscribes to
 * (`upload`, `download`, `changelog`). Rules owned here:
 * - the URL is an absolute http(s) URL of at most 2048 characters, without credentials in it;
 * - `events` is a non-empty subset of WEBHOOK_EVENTS (duplicates dropped, kept in their usual order);
 * - the signing `secret` (32 random bytes, hex) is made at creation and shown once, in that answer;
 * - an archived app's channels are frozen: its webhooks cannot be created, changed or deleted;
 * - deliveries: one row per event and webhook (the exact body sent), pending until a 2xx answer
 *   (succeeded) or the last attempt (failed); each webhook keeps its latest KEEP_DELIVERIES finished
 *   ones. Sending them is the job of src-server/jobs/webhook-delivery.ts, which hears of new rows
 *   through `onQueued`.
 */
import { and, asc, desc, eq, isNotNull, lte, min, notInArray, sql } from 'drizzle-orm';
import { randomBytes } from 'node:crypto';
import { webhookDeliveries, webhooks, WEBHOOK_EVENTS } from '../storage/schema.ts';
import type { WebhookEvent } from '../storage/schema.ts';
import type { AppService } from './apps.ts';
import type { ChannelService } from './channels.ts';
import type { DomainContext, Webhook, WebhookDelivery } from './context.ts';
import { NotFoundError, ValidationError } from './errors.ts';

export const MAX_WEBHOOK_URL_LENGTH = 2048;
/** Finished deliveries kept per webhook (the console shows them); pending ones are always kept. */
export const KEEP_DELIVERIES = 50;

export interface WebhookInput {
  url: string;
  events: readonly string[];
  enabled?: boolean | undefined;
}

/** A new webhook with its secret: the only time the secret leaves the server through the API. */
export interface CreatedWebhook {
  webhook: Webhook;
  secret: string;
}

export function newWebhookSecret(): string {
  return randomBytes(32).toString('hex');
}

export function eventsOf(webhook: Webhook): WebhookEvent[] {
  return JSON.parse(webhook.events) as WebhookEvent[];
}

/** The URL as stored, or a 422 on `url`. */
export function checkWebhookUrl(input: string): string {
  const text = input.trim();
  if (text === '') throw ValidationError.field('url', "can't be blank");
  if (text.length > MAX_WEBHOOK_URL_LENGTH) throw ValidationError.field('url', `is too long (maximum is ${MAX_WEBHOOK_URL_LENGTH} characters)`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw ValidationError.field('url', 'must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw ValidationError.field('url', 'must be an absolute http or https URL');
  if (url.hostname === '') throw ValidationError.field('url', 'must be an absolute http or https URL');
  if (url.username !== '' || url.password !== '') throw ValidationError.field('url', 'must not contain a user name or password');
  return text;
}

/** The events as stored (JSON array text), or a 422 on `events`. */
function checkEvents(events: readonly string[]): string {
  if (events.length === 0) throw ValidationError.field('events', "can't be blank");
  for (const event of events) {
    if (!(WEBHOOK_EVENTS as readonly string[]).includes(event)) throw ValidationError.field('events', 'is not included in the list');
  }
  return JSON.stringify(WEBHOOK_EVENTS.filter((event) => events.includes(event)));
}

export function createWebhookService(ctx: DomainContext, services: { apps: AppService; channels: ChannelService }) {
  const { db } = ctx;
  const { apps, channels } = services;
  const queuedListeners = new Set<() => void>();

  function find(id: number): Webhook {
    const webhook = db.select().from(webhooks).where(eq(webhooks.id, id)).get();
    if (!webhook) throw new NotFoundError('Webhook');
    return webhook;
  }

  function appIdOf(webhook: Webhook): number {
    return channels.appIdOf(channels.find(webhook.channelId));
  }

  function assertActive(webhook: Webhook): void {
    apps.assertActive(appIdOf(webhook));
  }

  /** Deletes the finished deliveries of a webhook beyond its latest KEEP_DELIVERIES. */
  function prune(webhookId: number): void {
    const kept = db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.webhookId, webhookId))
      .orderBy(desc(webhookDeliveries.id))
      .limit(KEEP_DELIVERIES);
    db.delete(webhookDeliveries)
      .where(and(eq(webhookDeliveries.webhookId, webhookId), sql`${webhookDeliveries.state} <> 'pending'`, notInArray(webhookDeliveries.id, kept)))
      .run();
  }

  function notifyQueued(): void {
    for (const listener of queuedListeners) {
      try {
        listener();
      } catch {
        // a listener's failure must not fail whatever queued the delivery
      }
    }
  }

  return {
    find,
    appIdOf,

    /** A channel's webhooks, oldest first. */
    listOfChannel(channelId: number): Webhook[] {
      channels.find(channelId);
      return db.select().from(webhooks).where(eq(webhooks.channelId, channelId)).orderBy(asc(webhooks.id)).all();
    },

    create(channelId: number, input: WebhookInput): CreatedWebhook {
      const channel = channels.find(channelId);
      apps.assertActive(channels.appIdOf(channel));
      const url = checkWebhookUrl(input.url);
      const events = checkEvents(input.events);
      const secret = newWebhookSecret();
      const now = ctx.now();
      const webhook = db
        .insert(webhooks)
        .values({ channelId, url, events, secret, enabled: input.enabled ?? true, createdAt: now, updatedAt: now })
        .returning()
        .get();
      return { webhook, secret };
    },

    /** Changes the fields given; the secret never changes. */
    update(id: number, input: Partial<WebhookInput>): Webhook {
      const webhook = find(id);
      assertActive(webhook);
      return db
        .update(webhooks)
        .set({
          url: input.url === undefined ? undefined : checkWebhookUrl(input.url),
          events: input.events === undefined ? undefined : checkEvents(input.events),
          enabled: input.enabled,
          updatedAt: ctx.now(),
        })
        .where(eq(webhooks.id, id))
        .returning()
        .get()!;
    },

    /** Deletes a webhook with its deliveries (pending ones are not sent). */
    delete(id: number): void {
      const webhook = find(id);
      assertActive(webhook);
      db.delete(webhooks).where(eq(webhooks.id, id)).run();
    },

    /** The enabled webhooks of a channel that subscribe to `event`. */
    subscribers(channelId: number, event: WebhookEvent): Webhook[] {
      return db
        .select()
        .from(webhooks)
        .where(and(eq(webhooks.channelId, channelId), eq(webhooks.enabled, true)))
        .orderBy(asc(webhooks.id))
        .all()
        .filter((webhook) => eventsOf(webhook).includes(event));
    },

    // ---- deliveries ----------------------------------------------------------------------------

    /**
     * Records a delivery of `event` to a webhook, due at once. `body` makes the JSON body from the
     * delivery's id and creation time; it is stored and sent exactly so, on every attempt.
     */
    enqueue(webhookId: number, event: WebhookEvent, body: (deliveryId: number, createdAt: number) => string): WebhookDelivery {
      const now = ctx.now();
      const delivery = db.transaction((tx) => {
        const row = tx
          .insert(webhookDeliveries)
          .values({ webhookId, event, payload: '', state: 'pending', attempts: 0, nextAttemptAt: now, createdAt: now, updatedAt: now })
          .returning()
          .get();
        return tx.update(webhookDeliveries).set({ payload: body(row.id, now) }).where(eq(webhookDeliveries.id, row.id)).returning().get()!;
      });
      prune(webhookId);
      notifyQueued();
      return delivery;
    },

    /** Calls `listener` whenever a delivery was queued; returns the function that stops it. */
    onQueued(listener: () => void): () => void {
      queuedListeners.add(listener);
      return () => queuedListeners.delete(listener);
    },

    /** The latest deliveries of a webhook, latest first. */
    deliveries(webhookId: number, limit = KEEP_DELIVERIES): WebhookDelivery[] {
      find(webhookId);
      return db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, webhookId)).orderBy(desc(webhookDeliveries.id)).limit(limit).all();
    },

    findDelivery(webhookId: number, deliveryId: number): WebhookDelivery {
      const delivery = db
        .select()
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.webhookId, webhookId)))
        .get();
      if (!delivery) throw new NotFoundError('Delivery');
      return delivery;
    },

    /** Pending deliveries due by `now`, soonest first, leaving out those in `busy` (in flight). */
    due(now: number, limit: number, busy: readonly number[]): WebhookDelivery[] {
      return db
        .select()
        .from(webhookDeliveries)
        .where(
          and(
            eq(webhookDeliveries.state, 'pending'),
            isNotNull(webhookDeliveries.nextAttemptAt),
            lte(webhookDeliveries.nextAttemptAt, now),
            busy.length > 0 ? notInArray(webhookDeliveries.id, [...busy]) : undefined,
          ),
        )
        .orderBy(asc(webhookDeliveries.nextAttemptAt), asc(webhookDeliveries.id))
        .limit(limit)
        .all();
    },

    /** When the next pending delivery (not in `busy`) is due; null when none is. */
    nextDueAt(busy: readonly number[]): number | null {
      const row = db
        .select({ at: min(webhookDeliveries.nextAttemptAt) })
        .from(webhookDeliveries)
        .where(
          and(
            eq(webhookDeliveries.state, 'pending'),
            isNotNull(webhookDeliveries.nextAttemptAt),
            busy.length > 0 ? notInArray(webhookDeliveries.id, [...busy]) : undefined,
          ),
        )
        .get();
      return row?.at ?? null;
    },

    /** The webhook of a delivery, or undefined when it is gone. */
    webhookOf(delivery: WebhookDelivery): Webhook | undefined {
      return db.select().from(webhooks).where(eq(webhooks.id, delivery.webhookId)).get();
    },

    /** Pushes a pending delivery's due time (while it is in flight: if the process dies, it is retried then). */
    lease(deliveryId: number, until: number): void {
      db.update(webhookDeliveries).set({ nextAttemptAt: until }).where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.state, 'pending'))).run();
    },

    /**
     * Records an attempt's outcome: `nextAttemptAt` null finishes the delivery (succeeded when
     * `succeeded`, else failed); a time keeps it pending until then.
     */
    recordAttempt(
      deliveryId: number,
      outcome: { attempts: number; succeeded: boolean; status: number | null; error: string | null; nextAttemptAt: number | null },
    ): void {
      const state = outcome.succeeded ? 'succeeded' : outcome.nextAttemptAt === null ? 'failed' : 'pending';
      const row = db
        .update(webhookDeliveries)
        .set({
          state,
          attempts: outcome.attempts,
          lastStatus: outcome.status,
          lastError: outcome.error,
          nextAttemptAt: state === 'pending' ? outcome.nextAttemptAt : null,
          updatedAt: ctx.now(),
        })
        .where(eq(webhookDeliveries.id, deliveryId))
        .returning({ webhookId: webhookDeliveries.webhookId })
        .get();
      if (row && state !== 'pending') prune(row.webhookId);
    },

    /** Ends a pending delivery without sending it (its webhook was disabled). */
    cancel(delivery: WebhookDelivery, reason: string): void {
      db.update(webhookDeliveries)
        .set({ state: 'failed', lastError: reason, nextAttemptAt: null, updatedAt: ctx.now() })
        .where(and(eq(webhookDeliveries.id, delivery.id), eq(webhookDeliveries.state, 'pending')))
        .run();
      prune(delivery.webhookId);
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
