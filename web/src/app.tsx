import { createHoldpointClient, HoldpointProvider, useInboxFeed } from 'holdpoint/react';
import { useMemo } from 'react';
import { ChatPage } from './chat/chat-page';
import { type AppsState, useApps } from './chat/use-apps';
import { GrantsPage } from './grants/grants-page';
import { useCurrentUser, useSignIn, useTypedRoles } from './identity/identity';
import { IdentityControl } from './identity/identity-control';
import { SignInPage } from './identity/sign-in-page';
import { useApprovalNotifications } from './inbox/approval-notifications';
import { InboxPage } from './inbox/inbox-page';
import { ApprovalsLabel, usePendingTitle } from './inbox/pending-count';
import { Link, usePathname } from './router';

/** Which page a path shows. */
type Route = 'chat' | 'inbox' | 'grants';

const ROUTES: Record<string, Route> = { '/approvals': 'inbox', '/grants': 'grants' };

/** The page the route names, once the server has said who this is and that they may act. */
function Page({ route, apps }: { route: Route; apps: AppsState }) {
  const signIn = useSignIn();
  if (signIn.kind === 'checking') return null;
  if (signIn.kind === 'signed-out' || signIn.kind === 'unsupported') {
    return <SignInPage signIn={signIn} />;
  }
  if (route === 'inbox') return <InboxPage />;
  if (route === 'grants') return <GrantsPage />;
  return <ChatPage apps={apps} developer={signIn.kind === 'dev'} />;
}

/**
 * Whom the server takes this browser for, as far as the page knows: the principal signed
 * in, or the name and roles the development sign-in sends; undefined before either.
 */
function useWho(): string | undefined {
  const signIn = useSignIn();
  const user = useCurrentUser();
  const roles = useTypedRoles();
  if (signIn.kind === 'signed-in') return signIn.id;
  if (signIn.kind === 'dev') return `${user}\n${roles}`;
  return undefined;
}

/**
 * The UI on holdpoint/react: one client of this page's own server per person signed in
 * (the cookies say who; someone else gets a new client, so nothing of the last one's
 * inbox carries over).
 */
export function App() {
  const who = useWho();
  const user = useCurrentUser();
  // biome-ignore lint/correctness/useExhaustiveDependencies: `who` is the trigger, not an input.
  const client = useMemo(() => createHoldpointClient(), [who]);
  return (
    <HoldpointProvider client={client} user={user}>
      <Shell signedIn={who !== undefined} />
    </HoldpointProvider>
  );
}

/**
 * The shell: brand, navigation (with the pending count, also in the tab's title), who is
 * signed in, and the page; browser notifications for new approvals once allowed.
 */
function Shell({ signedIn }: { signedIn: boolean }) {
  const path = usePathname();
  const apps = useApps();
  const route = ROUTES[path.replace(/\/+$/, '')] ?? 'chat';
  const feed = useInboxFeed(signedIn);
  usePendingTitle(feed.pending, feed.more);
  useApprovalNotifications(feed);
  return (
    <div className="shell">
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/" className="brand">
          <span className="brand__mark" aria-hidden="true">
            <span />
            <span />
          </span>
          <span className="brand__name">Holdpoint</span>
        </Link>
        <nav className="nav" aria-label="Main">
          <Link to="/" className="nav__link" current={route === 'chat'}>
            Chat
          </Link>
          <Link to="/approvals" className="nav__link" current={route === 'inbox'}>
            <ApprovalsLabel pending={feed.pending} more={feed.more} />
          </Link>
          <Link to="/grants" className="nav__link" current={route === 'grants'}>
            Grants
          </Link>
        </nav>
        <IdentityControl />
      </header>
      <Page route={route} apps={apps} />
    </div>
  );
}
