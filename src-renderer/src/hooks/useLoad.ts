/**
 * Loading what a page shows: the data, or the error to show instead, and a way to load it again.
 * An answer that arrives after a newer request started (the page moved on) is dropped.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { asApiError, type ApiError } from '../api/errors.ts';

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | null;
  loading: boolean;
  /** loads again, keeping what is shown until the answer arrives */
  reload(): void;
  /** replaces what is shown (after a change the page made itself) */
  setData(update: (current: T | undefined) => T | undefined): void;
}

export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(true);
  const generation = useRef(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  const run = useCallback(() => {
    const current = ++generation.current;
    setLoading(true);
    loadRef.current().then(
      (value) => {
        if (current !== generation.current) return;
        setData(value);
        setError(null);
        setLoading(false);
      },
      (failure: unknown) => {
        if (current !== generation.current) return;
        setError(asApiError(failure));
        setLoading(false);
      },
    );
  }, []);

  useEffect(() => {
    setData(undefined);
    run();
    return () => {
      generation.current += 1;
    };
    // the caller names what the load depends on (the load function itself changes every render)
  }, deps);

  return { data, error, loading, reload: run, setData };
}
