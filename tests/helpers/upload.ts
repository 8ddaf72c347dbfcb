/**
 * Uploading real fixtures through POST /api/apps/upload, as CI scripts do (multipart built by
 * fetch's FormData), with the answer checked against the OpenAPI document like every API answer.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { expect } from 'vitest';
import type { ApiClient, ApiResponse } from './client.ts';

/** A multipart body (bytes and content type) holding `file` under `fileName` and the text fields. */
export async function multipartBody(file: Buffer, fileName: string, fields: Record<string, string> = {}): Promise<{ body: Buffer; contentType: string }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('file', new Blob([new Uint8Array(file)]), fileName);
  const request = new Request('http://multipart.invalid/', { method: 'POST', body: form });
  return { body: Buffer.from(await request.arrayBuffer()), contentType: request.headers.get('content-type')! };
}

/** Posts a fixture (absolute path) to /api/apps/upload; answers the raw response. */
export async function postUpload(
  client: ApiClient,
  path: string,
  fields: Record<string, string> = {},
  options: { shape?: 'base' | 'extended'; fileName?: string } = {},
): Promise<ApiResponse> {
  const { body, contentType } = await multipartBody(await readFile(path), options.fileName ?? basename(path), fields);
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
