import { type ApiError, toApiError } from 'holdpoint/react';
import { useEffect, useState } from 'react';
import { type AppCatalog, listApps } from '../api/holdpoint-api';

/** The server's apps: on their way, failed to arrive (with a way to ask again), or here. */
export type AppsState =
  | { state: 'loading' }
  | { state: 'failed'; error: ApiError; retry: () => void }
  | { state: 'ready'; catalog: AppCatalog };

/** The apps the server serves, read once on mount (and again only on `retry`). */
export function useApps(): AppsState {
  const [apps, setApps] = useState<AppsState>({ state: 'loading' });
  useEffect(() => {
    let active = true;
    const load = async () => {
      try {
        const catalog = await listApps();
        if (active) setApps({ state: 'ready', catalog });
      } catch (error) {
        const failure = toApiError(error);
        if (active) setApps({ state: 'failed', error: failure, retry });
      }
    };
    const retry = () => {
      setApps({ state: 'loading' });
      void load();
    };
    void load();
    return () => {
      active = false;
    };
  }, []);
  return apps;
}
