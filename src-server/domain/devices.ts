/**
 * Test devices (iOS UDIDs and the like) registered by fastlane's device sync (`PUT /api/devices/:udid`,
 * R6) and by the on-device UDID page (`/udid`: its profile makes the device post its UDID back).
 * Upserted by UDID; listed for the console.
 *
 * The UDID page then sends the device to a result page named by a page token: the UDID and an HMAC
 * of it with the installation's secret, so that nobody reaches a device's page by guessing UDIDs.
 */
import { count, desc, eq } from 'drizzle-orm';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { devices } from '../storage/schema.ts';
import type { Device, DomainContext, Page } from './context.ts';
import { offsetOf } from './context.ts';
import { NotFoundError } from './errors.ts';

/** UDIDs are hexadecimal (with a dash in newer ones); tools disagree on case, so we store upper case. */
export function normalizeUdid(udid: string): string {
  return udid.trim().toUpperCase();
}

/** What an iOS device tells the UDID page about itself (read by profiles/udid-callback.ts). */
export interface EnrolledDevice {
  udid: string;
  /** DEVICE_NAME, when the device gives it */
  deviceName: string | null;
  /** PRODUCT, the model identifier, e.g. "iPhone14,5" */
  product: string | null;
}

/** UDIDs as Apple writes them: 40 hex digits, or (since 2018's devices) 8 and 16 joined by a dash. */
export const UDID_PATTERN = /^(?:[0-9A-F]{40}|[0-9A-F]{8}-[0-9A-F]{16})$/i;

export function createDeviceService(ctx: DomainContext) {
  const { db } = ctx;
  const pageSignature = (udid: string) => createHmac('sha256', ctx.secret).update(`udid-page:${udid}`).digest('base64url');

  const service = {
    /** Creates or updates the device with this UDID; `created` tells which. */
    upsert(rawUdid: string, input: { name: string; model?: string | undefined; platform?: string | undefined }): { device: Device; created: boolean } {
      const udid = normalizeUdid(rawUdid);
      const now = ctx.now();
      return db.transaction((tx) => {
        const existing = tx.select().from(devices).where(eq(devices.udid, udid)).get();
        if (existing) {
          const device = tx
            .update(devices)
            .set({ name: input.name.trim(), model: input.model?.trim() || existing.model, platform: input.platform ?? existing.platform, updatedAt: now })
            .where(eq(devices.id, existing.id))
            .returning()
            .get()!;
          return { device, created: false };
        }
        const device = tx
          .insert(devices)
          .values({ udid, name: input.name.trim(), model: input.model?.trim() || null, platform: input.platform ?? null, createdAt: now, updatedAt: now })
          .returning()
          .get();
        return { device, created: true };
      });
    },

    list(page: Page): { devices: Device[]; total: number } {
      return {
        devices: db.select().from(devices).orderBy(desc(devices.updatedAt), desc(devices.id)).limit(page.perPage).offset(offsetOf(page)).all(),
        total: db.select({ n: count() }).from(devices).get()?.n ?? 0,
      };
    },

    delete(udid: string): void {
      if (db.delete(devices).where(eq(devices.udid, normalizeUdid(udid))).run().changes === 0) throw new NotFoundError('Device');
    },

    findByUdid(udid: string): Device | null {
      return db.select().from(devices).where(eq(devices.udid, normalizeUdid(udid))).get() ?? null;
    },

    /**
     * Records a device that answered the UDID page's profile. A device already known keeps its name
     * unless the reply carries DEVICE_NAME: a model identifier is no better than the name someone gave.
     */
    enroll(reply: EnrolledDevice): Device {
      const name = reply.deviceName ?? service.findByUdid(reply.udid)?.name ?? reply.product ?? 'iOS device';
      return service.upsert(reply.udid, { name, model: reply.product ?? undefined, platform: 'ios' }).device;
    },

    /** The URL-safe name of a device's result page: `<UDID>.<HMAC>`. */
    pageToken(udid: string): string {
      const normalized = normalizeUdid(udid);
      return `${normalized}.${pageSignature(normalized)}`;
    },

    /** The device a page token names; null for a forged or damaged token, or a device since forgotten. */
    fromPageToken(token: string): Device | null {
      const dot = token.lastIndexOf('.');
      const udid = token.slice(0, Math.max(dot, 0));
      if (!UDID_PATTERN.test(udid) || udid !== normalizeUdid(udid)) return null;
      const given = Buffer.from(token.slice(dot + 1));
      const expected = Buffer.from(pageSignature(udid));
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      return service.findByUdid(udid);
    },
  };
  return service;
}

export type DeviceService = ReturnType<typeof createDeviceService>;
