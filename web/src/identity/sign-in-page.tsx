import { type SignIn, signInHref } from './identity';

type Needed = Extract<SignIn, { kind: 'signed-out' | 'unsupported' }>;

/** Why the web UI cannot sign in to a server in `mode`, and what would let it. */
function unsupportedReason(mode: string | undefined, message: string): string {
  switch (mode) {
    case 'api-keys':
      return 'This server signs callers in with API keys, which a browser does not hold. The web UI needs the server’s dev sign-in (--auth dev, on this machine) or OpenID Connect sign-in (--auth jwt with --oidc-client-id).';
    case 'jwt':
      return 'This server accepts tokens (--auth jwt) but offers browsers no way to get one. Configure OpenID Connect sign-in (--oidc-client-id) to use the web UI.';
    default:
      return message || 'This server does not say how a browser signs in.';
  }
}

/** What the page shows instead of the chat and the inbox while nobody can act. */
export function SignInPage({ signIn }: { signIn: Needed }) {
  return (
    <main className="page page--sign-in" id="main">
      <div className="sign-in">
        <span className="empty-state__mark" aria-hidden="true">
          <span />
          <span />
        </span>
        {signIn.kind === 'signed-out' ? (
          <>
            <h1 className="page__title">Sign in to Holdpoint</h1>
            <p className="page__subtitle">
              Chats and approvals act as you: sign in with your organization’s account first.
            </p>
            <a className="hp-button hp-button--primary" href={signInHref(signIn.loginUrl)}>
              Continue to sign-in
            </a>
          </>
        ) : (
          <>
            <h1 className="page__title">The web UI can’t sign in here</h1>
            <p className="page__subtitle">{unsupportedReason(signIn.mode, signIn.message)}</p>
          </>
        )}
      </div>
    </main>
  );
}
