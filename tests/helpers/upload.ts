/**
 * Uploading real fixtures through POST /api/apps/upload, as CI scripts do, with the answer checked
 * against the OpenAPI document like every API answer.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { expect } from 'vitest';
import { multipartBody } from './builds.ts';
import type { ApiClient, ApiResponse } from './client.ts';

/** Posts a fixture (absolute path) to /api/apps/upload; answers the raw response. */
export async function postUpload(
  client: ApiClient,
  path: string,
  fields: Record<string, string> = {},
  options: { shape?: 'base' | 'extended'; fileName?: string } = {},
): Promise<ApiResponse> {
  const { body, contentType } = multipartBody(fields, { name: options.fileName ?? basename(path), data: await readFile(path) });
  return client.request('POST', '/api/apps/upload', { raw: { body, contentType }, ...(options.shape && { shape: options.shape }) });
}

/** Uploads and expects 201; answers the release body. */
export async function upload(
  client: ApiClient,
  path: string,
  fields: Record<string, string> = {},
  options: { shape?: 'base' | 'extended'; fileName?: string } = {},
): Promise<any> {
  const res = await postUpload(client, path, fields, options);
  expect(res.status, res.text).toBe(201);
  return res.body;
}
