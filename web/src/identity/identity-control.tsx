import { type FormEvent, useEffect, useId, useState } from 'react';
import {
  signInAs,
  signInHref,
  signOut,
  useCurrentUser,
  useSignIn,
  useTypedRoles,
} from './identity';

/**
 * The development sign-in, marked as such: the header shows who the page acts as, and a
 * panel under it edits the name and roles sent with every request (the server's dev
 * mode believes them from this machine only). A real sign-in never shows it.
 */
function TypedName() {
  const user = useCurrentUser();
  const roles = useTypedRoles();
  const [draft, setDraft] = useState(user);
  const [rolesDraft, setRolesDraft] = useState(roles);
  const id = useId();
  const rolesId = useId();
  useEffect(() => setDraft(user), [user]);
  useEffect(() => setRolesDraft(roles), [roles]);

  const commit = (event?: FormEvent) => {
    event?.preventDefault();
    signInAs(draft, rolesDraft);
  };

  return (
    <details className="identity identity--dev">
      <summary className="identity__summary">
        <span className="identity__avatar" aria-hidden="true">
          {user.slice(0, 1).toUpperCase()}
        </span>
        <span className="identity__name">{user}</span>
        {roles ? <span className="identity__roles">{roles}</span> : null}
        <span className="identity__dev">Dev sign-in</span>
      </summary>
      <form className="identity__panel" onSubmit={commit}>
        <p className="identity__note">
          Development sign-in: the server believes this name and these roles from this machine only.
        </p>
        <label htmlFor={id} className="identity__label">
          Signed in as
        </label>
        <input
          id={id}
          className="identity__input"
          value={draft}
          autoComplete="username"
          spellCheck={false}
          onChange={(event) => setDraft(event.target.value)}
          onBlur={() => commit()}
        />
        <label htmlFor={rolesId} className="identity__label">
          Roles
        </label>
        <input
          id={rolesId}
          className="identity__input"
          value={rolesDraft}
          placeholder="approver"
          spellCheck={false}
          onChange={(event) => setRolesDraft(event.target.value)}
          onBlur={() => commit()}
        />
      </form>
    </details>
  );
}

/** Who the server's sign-in proved, and Sign out when the server has a sign-in to end. */
function SignedIn({ id, logoutUrl }: { id: string; logoutUrl?: string }) {
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState(false);

  const leave = async () => {
    setBusy(true);
    setFailed(false);
    try {
      await signOut();
    } catch {
      setFailed(true);
      setBusy(false);
    }
  };

  return (
    <div className="identity">
      <span className="identity__label">Signed in as</span>
      <span className="identity__avatar" aria-hidden="true">
        {id.slice(0, 1).toUpperCase()}
      </span>
      <span className="identity__name">{id}</span>
      {logoutUrl ? (
        <button
          type="button"
          className="hp-button hp-button--ghost hp-button--small"
          disabled={busy}
          onClick={() => void leave()}
        >
          Sign out
        </button>
      ) : null}
      {failed ? (
        <span className="identity__error" role="alert">
          Sign-out failed; try again.
        </span>
      ) : null}
    </div>
  );
}

/**
 * Who is signed in, as the server's sign-in mode allows: a name to type (dev), the
 * principal with Sign out (OpenID Connect), or Sign in when nobody is.
 */
export function IdentityControl() {
  const signIn = useSignIn();
  switch (signIn.kind) {
    case 'dev':
      return <TypedName />;
    case 'signed-in':
      return <SignedIn id={signIn.id} logoutUrl={signIn.logoutUrl} />;
    case 'signed-out':
      return (
        <div className="identity">
          <a
            className="hp-button hp-button--primary hp-button--small"
            href={signInHref(signIn.loginUrl)}
          >
            Sign in
          </a>
        </div>
      );
    case 'unsupported':
      return (
        <div className="identity">
          <span className="identity__label">Not signed in</span>
        </div>
      );
    default:
      // Until the server answers, only the space the control takes.
      return <div className="identity" />;
  }
}
