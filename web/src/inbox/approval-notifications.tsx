import type { ApiInboxEvent } from 'holdpoint/react';
import { useEffect, useRef, useState } from 'react';
import { navigate } from '../router';

type Entry = ApiInboxEvent['approvals'][number];

/**
 * The approvals of `approvals` not in `seen`, which from now on are: what a person has
 * not been told about yet.
 */
export function unseenApprovals(seen: Set<string>, approvals: Entry[]): Entry[] {
  const unseen = approvals.filter((entry) => !seen.has(entry.approval_id));
  for (const entry of unseen) seen.add(entry.approval_id);
  return unseen;
}

/** Whether this browser shows notifications at all. */
function notificationsExist(): boolean {
  return typeof window !== 'undefined' && 'Notification' in window;
}

/**
 * A browser notification for each approval the person may decide that arrives while the
 * page is open (not those waiting already when it opened), once they allowed them.
 * Clicking one brings the tab forward on the inbox, where it is listed.
 */
export function useApprovalNotifications(feed: ApiInboxEvent & { version: number }): void {
  const seen = useRef<Set<string>>(undefined);
  useEffect(() => {
    // Nothing pushed yet, or someone else signed in: start over.
    if (feed.version === 0) {
      seen.current = undefined;
      return;
    }
    // The first push says what waited already: nobody is told about that again.
    if (!seen.current) {
      seen.current = new Set(feed.approvals.map((entry) => entry.approval_id));
      return;
    }
    const unseen = unseenApprovals(seen.current, feed.approvals);
    if (!notificationsExist() || Notification.permission !== 'granted') return;
    for (const entry of unseen) {
      const notification = new Notification(`Approval needed: ${entry.tool_name}`, {
        body: `In ${entry.app}`,
        tag: entry.approval_id,
      });
      notification.onclick = () => {
        window.focus();
        navigate('/approvals');
        notification.close();
      };
    }
  }, [feed]);
}

/**
 * "Enable notifications", while the browser has not been told yes or no: asks for the
 * permission, on the person's click only (browsers ignore or punish asking unprompted).
 */
export function EnableNotifications() {
  const [permission, setPermission] = useState(() =>
    notificationsExist() ? Notification.permission : 'denied',
  );
  if (permission !== 'default') return null;
  return (
    <button
      type="button"
      className="hp-button hp-button--secondary hp-button--small"
      onClick={() => void Notification.requestPermission().then(setPermission)}
    >
      Enable notifications
    </button>
  );
}
