/**
 * Webhook deliveries (R13): hears the event bus, queues a delivery for each enabled webhook of the
 * channel that subscribes to the event, and sends them.
 *
 *   release.created                          -> upload
 *   release.downloaded                       -> download
 *   release.updated with changelogChanged    -> changelog
 *
 * A delivery is a POST of its stored JSON body with `Content-Type: application/json`,
 * `User-Agent: Hangar/<version>`, `X-Hangar-Event`, `X-Hangar-Delivery` (its id) and
 * `X-Hangar-Signature: sha256=<hex HMAC-SHA256 of the body, keyed with the webhook's secret>`.
 * A 2xx answer within the time limit succeeds; anything else (another status, a network error, the
 * time limit) is retried after the next delay of `retryDelaysMs`, and fails after the last one.
 *
 * Deliveries live in the database, so pending ones survive a restart: the job picks up due rows
 * when it starts. One timer wakes it for the next due delivery; nothing polls. While an attempt is
 * in flight its row is leased (due again only after the time limit), so a crash mid-attempt means
 * a retry, never a lost delivery. Nothing here can fail or hold up the request that raised the
 * event: queuing is a couple of row writes, sending happens later.
 */
import { createHmac } from 'node:crypto';
import type { Logger } from 'pino';
import type { WebhookDelivery } from '../domain/context.ts';
import { isReleaseEvent, type HangarEvent } from '../domain/events.ts';
import type { Domain } from '../domain/index.ts';
import type { Urls } from '../network/urls.ts';
import type { WebhookEvent } from '../storage/schema.ts';
import { payloadText, releaseSubject } from './webhook-payload.ts';

/** Waits before the 2nd, 3rd, ... attempt: six attempts over about 1 h 13 min, then failed. */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [10_000, 30_000, 120_000, 600_000, 3_600_000];
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Attempts in flight at once (over all webhooks). */
const CONCURRENCY = 8;
/** How long past its time limit an in-flight attempt's lease lasts. */
const LEASE_GRACE_MS = 5_000;
/** The longest setTimeout delay Node accepts. */
const MAX_TIMER_MS = 2 ** 31 - 1;
const MAX_ERROR_LENGTH = 500;

export interface WebhookDeliveryOptions {
  /** waits before each retry; attempts = retries + 1 (tests shorten them) */
  retryDelaysMs?: readonly number[];
  /** time limit of one attempt (connect, send, answer headers) */
  timeoutMs?: number;
}

export interface WebhookDeliveryDeps {
  domain: Domain;
  logger: Logger;
  /** the public URLs (R11), as the routes build them */
  urls: () => Urls;
  /** Hangar's version, for the User-Agent */
  version: string;
}

export interface WebhookDeliveryJob {
  /** Stops hearing events and sending; attempts in flight are abandoned and stay pending (sent at the next start). */
  stop(): Promise<void>;
}

/** The webhook event an event bus event is, if any. */
export function webhookEventOf(event: HangarEvent): WebhookEvent | null {
  switch (event.type) {
    case 'release.created':
      return 'upload';
    case 'release.downloaded':
      return 'download';
    case 'release.updated':
      return event.changelogChanged ? 'changelog' : null;
    default:
      return null;
  }
}

export function signatureOf(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

/** A short, secret-free description of why an attempt failed. */
function describeFailure(error: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `timed out after ${Math.round(timeoutMs / 100) / 10} s`;
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (cause && typeof cause.code === 'string') return typeof cause.message === 'string' ? cause.message : cause.code;
  if (cause && typeof cause.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}

function scrub(text: string, secret: string): string {
  return (secret ? text.split(secret).join('[REDACTED]') : text).slice(0, MAX_ERROR_LENGTH);
}

export function startWebhookDelivery(deps: WebhookDeliveryDeps, options: WebhookDeliveryOptions = {}): WebhookDeliveryJob {
  const { domain, logger, urls, version } = deps;
  const log = logger.child({ job: 'webhooks' });
  const retryDelays = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  const maxAttempts = retryDelays.length + 1;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const now = () => domain.ctx.now();

  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let timerAt = Infinity;
  const stopping = new AbortController();
  /** delivery id -> the attempt in flight */
  const inFlight = new Map<number, Promise<void>>();

  // ---- queuing -------------------------------------------------------------------------------

  function onEvent(event: HangarEvent): void {
    const webhookEvent = webhookEventOf(event);
    if (webhookEvent === null || stopped || !isReleaseEvent(event)) return;
    try {
      const subscribers = domain.webhooks.subscribers(event.channelId, webhookEvent);
      if (subscribers.length === 0) return;
      const subject = releaseSubject(domain, urls(), event.releaseId);
      for (const webhook of subscribers) {
        domain.webhooks.enqueue(webhook.id, webhookEvent, (deliveryId, createdAt) => payloadText(webhookEvent, deliveryId, createdAt, subject));
      }
    } catch (error) {
      log.error({ err: error, event: event.type, releaseId: event.releaseId }, 'could not queue webhook deliveries');
    }
  }

  // ---- scheduling ----------------------------------------------------------------------------

  /** Sets the one timer for the next due delivery (or none). */
  function arm(): void {
    if (stopped) return;
    const next = domain.webhooks.nextDueAt([...inFlight.keys()]);
    if (next === null) {
      if (timer) clearTimeout(timer);
      timer = null;
      timerAt = Infinity;
      return;
    }
    if (timer && timerAt <= next) return;
    if (timer) clearTimeout(timer);
    timerAt = next;
    timer = setTimeout(wake, Math.min(Math.max(next - now(), 0), MAX_TIMER_MS));
    timer.unref();
  }

  function wake(): void {
    timer = null;
    timerAt = Infinity;
    if (stopped) return;
    try {
      const free = CONCURRENCY - inFlight.size;
      if (free > 0) {
        for (const delivery of domain.webhooks.due(now(), free, [...inFlight.keys()])) {
          const attempt = send(delivery)
            .catch((error: unknown) => {
              if (!stopped) log.error({ err: error, delivery: delivery.id }, 'webhook delivery attempt failed unexpectedly');
            })
            .finally(() => {
              inFlight.delete(delivery.id);
              safely(arm);
            });
          inFlight.set(delivery.id, attempt);
        }
      }
      arm();
    } catch (error) {
      log.error({ err: error }, 'webhook scheduling failed');
    }
  }

  function safely(run: () => void): void {
    try {
      run();
    } catch (error) {
      if (!stopped) log.error({ err: error }, 'webhook scheduling failed');
    }
  }

  /** A new delivery is due now: wake at once (the timer may be set for later). */
  function onQueued(): void {
    if (stopped) return;
    if (timer && timerAt <= now()) return;
    if (timer) clearTimeout(timer);
    timerAt = now();
    timer = setTimeout(wake, 0);
    timer.unref();
  }

  // ---- sending -------------------------------------------------------------------------------

  async function send(delivery: WebhookDelivery): Promise<void> {
    const webhook = domain.webhooks.webhookOf(delivery);
    if (!webhook) return; // deleted: its deliveries went with it
    if (!webhook.enabled) {
      domain.webhooks.cancel(delivery, 'not sent: the webhook is disabled');
      return;
    }
    const attempt = delivery.attempts + 1;
    if (attempt > maxAttempts) {
      domain.webhooks.recordAttempt(delivery.id, { attempts: delivery.attempts, succeeded: false, status: delivery.lastStatus, error: delivery.lastError, nextAttemptAt: null });
      return;
    }
    domain.webhooks.lease(delivery.id, now() + timeoutMs + LEASE_GRACE_MS);

    const timeout = AbortSignal.timeout(timeoutMs);
    let status: number | null = null;
    let error: string | null = null;
    try {
      const response = await fetch(webhook.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': `Hangar/${version}`,
          'x-hangar-event': delivery.event,
          'x-hangar-delivery': String(delivery.id),
          'x-hangar-signature': signatureOf(delivery.payload, webhook.secret),
        },
        body: delivery.payload,
        redirect: 'manual',
        signal: AbortSignal.any([timeout, stopping.signal]),
      });
      status = response.status;
      await response.body?.cancel().catch(() => undefined);
      if (status < 200 || status > 299) error = `HTTP ${status}`;
    } catch (caught) {
      if (stopping.signal.aborted) {
        // Stopped mid-attempt: not the receiver's fault. Due again at the next start.
        safely(() => domain.webhooks.lease(delivery.id, now()));
        return;
      }
      error = describeFailure(caught, timeout.aborted, timeoutMs);
    }
    const succeeded = error === null;
    const last = attempt >= maxAttempts;
    const nextAttemptAt = succeeded || last ? null : now() + retryDelays[Math.min(attempt - 1, retryDelays.length - 1)]!;
    const cleanError = error === null ? null : scrub(error, webhook.secret);
    domain.webhooks.recordAttempt(delivery.id, { attempts: attempt, succeeded, status, error: cleanError, nextAttemptAt });
    const context = { webhook: webhook.id, delivery: delivery.id, event: delivery.event, attempt, status };
    if (succeeded) log.debug(context, 'webhook delivered');
    else if (last) log.warn({ ...context, error: cleanError }, 'webhook delivery failed for good');
    else log.info({ ...context, error: cleanError, retryInMs: nextAttemptAt! - now() }, 'webhook delivery failed; will retry');
  }

  // ---- start ---------------------------------------------------------------------------------

  const unsubscribe = domain.ctx.events.subscribe(onEvent);
  const stopQueued = domain.webhooks.onQueued(onQueued);
  safely(arm); // deliveries left pending by the last run

  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      unsubscribe();
      stopQueued();
      if (timer) clearTimeout(timer);
      timer = null;
      stopping.abort();
      await Promise.allSettled([...inFlight.values()]);
    },
  };
}
