/**
 * The console's upload queue. Builds dropped on the window or a channel, or picked with a file
 * button, each become one upload (POST /api/apps/upload: one file per request), two at a time, with
 * their progress, speed and outcome kept for the upload panel: the parsed release when done, the
 * server's reason when refused. An upload can be cancelled until its last byte is sent; after that
 * the server is already reading the build.
 */
import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from 'react';
import { asApiError, type ApiError } from '../api/errors.ts';
import type { UploadedRelease } from '../api/types.ts';
import { UploadCancelled, uploadBuild, type UploadHandle } from '../api/upload.ts';
import { useApi } from '../session.tsx';

/** Where builds go: a channel, or a new app made from each build (no channel key). */
export type UploadTarget = { kind: 'channel'; channelId: number; label: string } | { kind: 'new-app' };

export type UploadState = 'queued' | 'sending' | 'processing' | 'done' | 'failed' | 'cancelled';

export interface UploadItem {
  id: number;
  file: File;
  target: UploadTarget;
  state: UploadState;
  loaded: number;
  total: number;
  bytesPerSecond: number;
  release: UploadedRelease | null;
  error: ApiError | null;
}

export interface Uploads {
  items: UploadItem[];
  add(files: File[], target: UploadTarget, changelog?: string): void;
  cancel(id: number): void;
  /** forgets finished, failed and cancelled uploads */
  clearFinished(): void;
  /** asks where dropped or picked files go (UploadDialog), then uploads them */
  choose(files: File[]): void;
  /** files waiting for the user to choose their target */
  choosing: File[] | null;
  stopChoosing(): void;
}

const CONCURRENCY = 2;

interface Job {
  id: number;
  file: File;
  target: UploadTarget;
  changelog: string | undefined;
}

const UploadsContext = createContext<Uploads | null>(null);

export function useUploads(): Uploads {
  const uploads = useContext(UploadsContext);
  if (!uploads) throw new Error('useUploads() outside UploadsProvider');
  return uploads;
}

export function isActive(item: UploadItem): boolean {
  return item.state === 'queued' || item.state === 'sending' || item.state === 'processing';
}

export function UploadsProvider({ children }: { children: ReactNode }) {
  const api = useApi();
  const [items, setItems] = useState<UploadItem[]>([]);
  const [choosing, setChoosing] = useState<File[] | null>(null);
  const nextId = useRef(1);
  const pending = useRef<Job[]>([]);
  const running = useRef(0);
  const handles = useRef(new Map<number, UploadHandle>());
  /** cancelled while their channel key was being read: not sent */
  const cancelledEarly = useRef(new Set<number>());

  const update = useCallback((id: number, patch: Partial<UploadItem>) => {
    setItems((current) => current.map((item) => (item.id === id ? { ...item, ...patch } : item)));
  }, []);

  const send = useCallback(
    async ({ id, file, target, changelog }: Job) => {
      update(id, { state: 'sending' });
      try {
        const channelKey = target.kind === 'channel' ? await api.channels.key(target.channelId) : undefined;
        if (cancelledEarly.current.delete(id)) throw new UploadCancelled();
        const handle = uploadBuild(api.http.connection, file, { channel_key: channelKey, changelog }, (progress) =>
          update(id, { ...progress, state: progress.loaded >= progress.total ? 'processing' : 'sending' }),
        );
        handles.current.set(id, handle);
        update(id, { release: await handle.result, state: 'done' });
      } catch (error) {
        update(id, error instanceof UploadCancelled ? { state: 'cancelled' } : { state: 'failed', error: asApiError(error) });
      } finally {
        handles.current.delete(id);
      }
    },
    [api, update],
  );

  const pump = useCallback(() => {
    while (running.current < CONCURRENCY && pending.current.length > 0) {
      const job = pending.current.shift()!;
      running.current += 1;
      void send(job).finally(() => {
        running.current -= 1;
        pump();
      });
    }
  }, [send]);

  const add = useCallback(
    (files: File[], target: UploadTarget, changelog?: string) => {
      const jobs = files.map((file) => ({ id: nextId.current++, file, target, changelog: changelog?.trim() || undefined }));
      setItems((current) => [
        ...current,
        ...jobs.map((job) => ({ ...job, state: 'queued' as const, loaded: 0, total: job.file.size, bytesPerSecond: 0, release: null, error: null })),
      ]);
      pending.current.push(...jobs);
      pump();
    },
    [pump],
  );

  const cancel = useCallback(
    (id: number) => {
      const handle = handles.current.get(id);
      if (handle) return handle.cancel();
      const queued = pending.current.findIndex((job) => job.id === id);
      if (queued >= 0) {
        pending.current.splice(queued, 1);
        update(id, { state: 'cancelled' });
      } else {
        cancelledEarly.current.add(id);
      }
    },
    [update],
  );

  const clearFinished = useCallback(() => setItems((current) => current.filter(isActive)), []);

  const value = useMemo<Uploads>(
    () => ({ items, add, cancel, clearFinished, choose: setChoosing, choosing, stopChoosing: () => setChoosing(null) }),
    [items, add, cancel, clearFinished, choosing],
  );
  return <UploadsContext.Provider value={value}>{children}</UploadsContext.Provider>;
}
