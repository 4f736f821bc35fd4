import { type FormEvent, useEffect, useId, useState } from 'react';
import { signInAs, useCurrentUser } from './identity';

/** "Signed in as" — edits the name sent with every request. */
export function IdentityControl() {
  const user = useCurrentUser();
  const [draft, setDraft] = useState(user);
  const id = useId();
  useEffect(() => setDraft(user), [user]);

  const commit = (event?: FormEvent) => {
    event?.preventDefault();
    signInAs(draft);
  };

  return (
    <form className="identity" onSubmit={commit}>
      <label htmlFor={id} className="identity__label">
        Signed in as
      </label>
      <span className="identity__avatar" aria-hidden="true">
        {user.slice(0, 1).toUpperCase()}
      </span>
      <input
        id={id}
        className="identity__input"
        value={draft}
        autoComplete="username"
        spellCheck={false}
        onChange={(event) => setDraft(event.target.value)}
        onBlur={() => commit()}
      />
    </form>
  );
}
