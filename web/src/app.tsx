import { ChatPage } from './chat/chat-page';
import { type AppsState, useApps } from './chat/use-apps';
import { GrantsPage } from './grants/grants-page';
import { useSignIn } from './identity/identity';
import { IdentityControl } from './identity/identity-control';
import { SignInPage } from './identity/sign-in-page';
import { useApprovalNotifications } from './inbox/approval-notifications';
import { useInboxFeed } from './inbox/inbox-feed';
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
 * The shell: brand, navigation (with the pending count, also in the tab's title), who is
 * signed in, and the page; browser notifications for new approvals once allowed.
 */
export function App() {
  const path = usePathname();
  const apps = useApps();
  const route = ROUTES[path.replace(/\/+$/, '')] ?? 'chat';
  const feed = useInboxFeed();
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
