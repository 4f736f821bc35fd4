import { useEffect } from 'react';

/** The page's own title, without a count. */
export const BASE_TITLE = 'Holdpoint';

/** A pending count as people read it: `3`, or `200+` when the server counted no further. */
export function pendingText(pending: number, more: boolean): string {
  return more ? `${pending}+` : String(pending);
}

/** The tab's title for a pending count: `(3) Holdpoint`, or just `Holdpoint` for none. */
export function pendingTitle(pending: number, more: boolean): string {
  return pending > 0 || more ? `(${pendingText(pending, more)}) ${BASE_TITLE}` : BASE_TITLE;
}

/** "Approvals (3)": the nav's label with the pending count. */
export function ApprovalsLabel({ pending, more }: { pending: number; more: boolean }) {
  if (pending === 0 && !more) return <>Approvals</>;
  const count = pendingText(pending, more);
  return (
    <>
      Approvals <span className="nav__count">({count})</span>
    </>
  );
}

/** Keeps the tab's title on the pending count, so a background tab shows it. */
export function usePendingTitle(pending: number, more: boolean): void {
  useEffect(() => {
    document.title = pendingTitle(pending, more);
  }, [pending, more]);
}
