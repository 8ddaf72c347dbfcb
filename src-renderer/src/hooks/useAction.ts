/**
 * A button's or form's asynchronous work: whether it is running (to disable the control) and the
 * error to show when it failed.
 */
import { useCallback, useState } from 'react';
import { asApiError, type ApiError } from '../api/errors.ts';

export interface Action {
  busy: boolean;
  error: ApiError | null;
  /** runs `work`; answers whether it succeeded (its error is kept to show) */
  run(work: () => Promise<unknown>): Promise<boolean>;
  clearError(): void;
}

export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const run = useCallback(async (work: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
      return true;
    } catch (failure) {
      setError(asApiError(failure));
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, clearError: useCallback(() => setError(null), []) };
}
