import { createContext, type ReactNode, useContext, useMemo, useRef } from 'react';
import {
  createHoldpointClient,
  type HoldpointClient,
  type HoldpointClientOptions,
} from './client/holdpoint-client.js';

/** What the components under a provider share: the server's client, and who the caller is. */
interface HoldpointContextValue {
  client: HoldpointClient;
  /** The caller's user id, when the host knows it (sent as `user_id`; the server checks it). */
  user?: string;
}

const HoldpointContext = createContext<HoldpointContextValue | undefined>(undefined);

/** The provider's props: a client of your own, or where the server is and how to reach it. */
export type HoldpointProviderProps = HoldpointClientOptions & {
  /** A client made with `createHoldpointClient` (then `url`, `headers`… are not read). */
  client?: HoldpointClient;
  /**
   * Who the caller is, when your app knows it: their inbox is read for them and their
   * decisions name them; the server refuses any other than the one it authenticated.
   */
  user?: string;
  children: ReactNode;
};

/**
 * Connects the hooks and components under it to one Holdpoint server: give its `url`
 * (default: this page's origin) and how your app authenticates to it (`headers`, or
 * cookies with `credentials`), or a `client` of your own.
 */
export function HoldpointProvider({
  client,
  url,
  headers,
  credentials,
  fetch,
  user,
  children,
}: HoldpointProviderProps) {
  // The latest headers, read per request: a new function each render is no new client.
  const latestHeaders = useRef(headers);
  latestHeaders.current = headers;
  const made = useMemo(
    () =>
      createHoldpointClient({
        url,
        credentials,
        fetch,
        headers: () => {
          const current = latestHeaders.current;
          return (typeof current === 'function' ? current() : current) ?? {};
        },
      }),
    [url, credentials, fetch],
  );
  const value = useMemo(() => ({ client: client ?? made, user }), [client, made, user]);
  return <HoldpointContext.Provider value={value}>{children}</HoldpointContext.Provider>;
}

/** The provider's client and caller; throws when used outside a `HoldpointProvider`. */
export function useHoldpoint(): HoldpointContextValue {
  const value = useContext(HoldpointContext);
  if (!value) throw new Error('holdpoint/react: wrap this component in a <HoldpointProvider>.');
  return value;
}
