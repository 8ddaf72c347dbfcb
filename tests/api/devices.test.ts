import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser } from '../helpers/world.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ timezone: 'UTC' });
});
afterAll(() => t.close());

describe('PUT /api/devices/:udid', () => {
  it('registers a device from a form body with the token as a field, as fastlane sync_devices sends it', async () => {
    const res = await t.admin.request('PUT', '/api/devices/00008030-001a0c123456802e', {
      form: { name: "QA's iPhone", model: 'iPhone 15' },
      tokenIn: 'body',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.any(Number),
      udid: '00008030-001A0C123456802E',
      name: "QA's iPhone",
      model: 'iPhone 15',
      platform: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+0000$/),
      updated_at: expect.any(String),
    });
  });

  it('updates the same device (any UDID case) rather than adding another', async () => {
    const first = await t.admin.put('/api/devices/aaaabbbbccccdddd', { name: 'Old' });
    const again = await t.admin.put('/api/devices/AAAABBBBCCCCDDDD', { name: 'New name' });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(again.body.name).toBe('New name');
    expect((t.sql.prepare("SELECT count(*) AS n FROM devices WHERE udid = 'AAAABBBBCCCCDDDD'").get() as { n: number }).n).toBe(1);
  });

  it('requires a name (422) and a plausible UDID (422)', async () => {
    const noName = await t.admin.put('/api/devices/0123456789abcdef', {});
    expect(noName.status).toBe(422);
    expect(noName.body.entry).toEqual({ name: ["can't be blank"] });
    const badUdid = await t.admin.put('/api/devices/abc', { name: 'x' });
    expect(badUdid.status).toBe(422);
    expect(badUdid.body.entry).toHaveProperty('udid');
  });

  it('lets any signed-in user register; only developers and admins forget devices', async () => {
    const member = await createUser(t, 'member');
    const put = await member.client.put('/api/devices/1111222233334444', { name: 'Member phone' });
    expect(put.status).toBe(200);
    expect((await member.client.delete('/api/devices/1111222233334444')).status).toBe(403);
    const del = await t.admin.delete('/api/devices/1111222233334444');
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ mesage: 'OK' });
    expect((await t.admin.delete('/api/devices/1111222233334444')).body).toEqual({ error: 'Device not found' });
  });
});

describe('GET /api/devices', () => {
  it('lists most recently seen first with a total count, paginated', async () => {
    for (const udid of ['5555000000000001', '5555000000000002', '5555000000000003']) {
      await t.admin.put(`/api/devices/${udid}`, { name: udid });
    }
    const page = await t.admin.get('/api/devices', { query: { per_page: 2 } });
    expect(page.status).toBe(200);
    expect(page.body.map((d: { udid: string }) => d.udid)).toEqual(['5555000000000003', '5555000000000002']);
    const total = Number(page.headers.get('x-total-count'));
    expect(total).toBeGreaterThanOrEqual(5);
    const last = await t.admin.get('/api/devices', { query: { per_page: 2, page: Math.ceil(total / 2) + 1 } });
    expect(last.body).toEqual([]);
  });
});
