/**
 * Test devices (iOS UDIDs and the like) registered by fastlane's device sync (`PUT /api/devices/:udid`,
 * R6) and, later, by the on-device UDID page. Upserted by UDID; listed for the console.
 */
import { count, desc, eq } from 'drizzle-orm';
import { devices } from '../storage/schema.ts';
import type { Device, DomainContext, Page } from './context.ts';
import { offsetOf } from './context.ts';
import { NotFoundError } from './errors.ts';

/** UDIDs are hexadecimal (with a dash in newer ones); tools disagree on case, so we store upper case. */
export function normalizeUdid(udid: string): string {
  return udid.trim().toUpperCase();
}

export function createDeviceService(ctx: DomainContext) {
  const { db } = ctx;
  return {
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
  };
}

export type DeviceService = ReturnType<typeof createDeviceService>;
