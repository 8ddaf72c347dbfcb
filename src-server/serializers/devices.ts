/** Test device bodies (beyond the spec: fastlane's device sync sends them; Zealot answers the row). */
import type { Device } from '../domain/context.ts';
import type { Shape } from './shapes.ts';

export function deviceBody(device: Device, shape: Shape) {
  return {
    id: device.id,
    udid: device.udid,
    name: device.name,
    model: device.model,
    platform: device.platform,
    created_at: shape.timestamp(device.createdAt),
    updated_at: shape.timestamp(device.updatedAt),
  };
}
