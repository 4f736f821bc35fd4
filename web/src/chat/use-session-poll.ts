import type { SessionMessages } from 'holdpoint/react';
import { useEffect, useRef } from 'react';
import { getSessionMessages } from '../api/holdpoint-api';

/**
 * While `active`, reads the session from the server every `intervalMs` and hands each
 * answer to `onState` with the time it was asked — how a decision made in another tab or the inbox reaches this one.
 */
export function useSessionPoll(
  sessionId: string | undefined,
  active: boolean,
  onState: (state: SessionMessages, askedAt: number) => void,
  intervalMs = 2000,
): void {
  const callback = useRef(onState);
  callback.current = onState;
  useEffect(() => {
    if (!sessionId || !active) return;
    let stopped = false;
    const tick = async () => {
      const askedAt = Date.now();
      try {
        const state = await getSessionMessages(sessionId);
        if (!stopped) callback.current(state, askedAt);
      } catch {
        // Transient: the next tick tries again; errors that matter surface on decisions.
      }
    };
    void tick();
    const timer = setInterval(tick, intervalMs);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [sessionId, active, intervalMs]);
}
